#!/usr/bin/env bash
# sph-step in a pipeline: frames every N steps, the diagnostics table, a restart from its own
# output that continues bit-identically (compare-results with zero tolerance), with the Verlet
# integrator too (its frames carry the previous step); frames written every step (each copy
# overlapping the next steps) equal those written every 3 steps, diagnostics included; errors
# with one line: no stop condition (2), truncated input (1), a runaway that keeps the frames (1);
# a terrain from a PNG height image equals the same raw one; mdbc restarts bit-identically, its
# normals carried by the frames. The bit-identical comparisons run on
# the CPU backend (--device cpu), also where a GPU is present.
. "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/lib.sh"

sph-init dam-break --dx 0.008 -o db.pks 2>/dev/null
check "pipeline" 0 sh -c 'sph-init dam-break --dx 0.008 2>/dev/null | sph-step --steps 6 --every-steps 3 --diag d.tsv --device cpu > run.pks'
expect_text "diag header" d.tsv "step	time_s	dt_s	kinetic_J	potential_J"
expect_text "diag momentum and wall impulse" d.tsv "momentum_x_kg_m_s	momentum_y_kg_m_s	momentum_z_kg_m_s	wall_impulse_x_N_s"
[ "$(wc -l < d.tsv)" -eq 4 ] || { echo "FAIL diag rows: $(wc -l < d.tsv), expected 4 (header, steps 0 3 6)"; fail=1; }
check "first part" 0 sph-step -i db.pks -o part1.pks --steps 3 --device cpu
check "restart" 0 sph-step -i part1.pks -o part2.pks --steps 3 --diag d2.tsv --device cpu
expect_text "restart continues at step 6" d2.tsv "
6	"
check "restart is bit-identical" 0 compare-results --subset --atol 0 --rtol 0 part2.pks run.pks
# Output every step: each frame is captured while the previous one is still being compressed.
check "a frame every step" 0 sph-step -i db.pks -o every1.pks --steps 6 --every-steps 1 --diag d1.tsv --device cpu
check "frames every step equal those every 3 steps" 0 compare-results --subset --atol 0 --rtol 0 every1.pks run.pks
check "seven frames" 0 particle-info every1.pks
expect_text "seven frames" out "stream, 7 frames"
steps=$(cut -f1 d1.tsv | tr '\n' ' ')
[ "$steps" = "step 0 1 2 3 4 5 6 " ] || { echo "FAIL diag steps: $steps"; fail=1; }
[ "$(grep '^3	' d1.tsv)" = "$(grep '^3	' d.tsv)" ] || { echo "FAIL diag row of step 3 differs"; fail=1; }
# Verlet: N steps straight against N/2, a restart, N/2 (Euler steps into steps 1, 3 and 6).
verlet="--integrator verlet --verlet-euler-every 3 --device cpu"
check "verlet straight" 0 sph-step -i db.pks -o v.pks --steps 8 --every-steps 4 $verlet
check "verlet first part" 0 sph-step -i db.pks -o v1.pks --steps 4 $verlet
check "verlet frame info" 0 particle-info v1.pks
expect_text "verlet frames carry the previous step" out "velocity_previous"
expect_text "verlet frames carry the previous step" out "density_previous"
check "verlet restart" 0 sph-step -i v1.pks -o v2.pks --steps 4 --device cpu
check "verlet restart is bit-identical" 0 compare-results --subset --atol 0 --rtol 0 v2.pks v.pks
# Any frame is a restart point: from frame 3 (step 3) of every1.pks to step 6 equals the
# straight run.
check "start frame" 0 sph-step -i every1.pks --start-frame 3 -o from3.pks --steps 3 --device cpu
check "start frame continues bit-identically" 0 compare-results --subset --atol 0 --rtol 0 from3.pks run.pks
check "start frame out of range" 2 sph-step -i every1.pks --start-frame 7 -o x.pks --steps 1 --device cpu
expect_error "start frame out of range" sph-step "no frame 7"
# Diagnostics as CSV and JSON lines.
check "diag csv" 0 sph-step -i db.pks -o /dev/null --force --steps 2 --diag d.csv --diag-format csv --device cpu
expect_text "diag csv header" d.csv "step,time_s,dt_s,kinetic_J"
check "diag jsonl" 0 sph-step -i db.pks -o /dev/null --force --steps 2 --diag d.jsonl --diag-format jsonl --device cpu
expect_text "diag jsonl units" d.jsonl '"units":["1","s","s","J"'
expect_text "diag jsonl row" d.jsonl '{"step":2,"time_s":'
# Provenance on every frame; a summary line ends the run.
check "provenance" 0 particle-info run.pks
expect_text "provenance: program" out 'program = "sph-step"'
expect_text "provenance: commit" out "commit = "
expect_text "provenance: utc time" out "utc_time = "
check "summary" 0 sph-step -i db.pks -o /dev/null --force --steps 2 --device cpu
expect_text "summary line" err "particle-steps/s"
# SIGINT: the run stops between steps, keeps its output under the final name with the state it
# reached as the last frame (a restart point), and exits 130.
interrupt_run int.pks sph-step -i db.pks -o int.pks --until 100 --every-steps 50 --device cpu
check "interrupted output is complete" 0 particle-info int.pks
check "interrupted output restarts" 0 sph-step -i int.pks -o /dev/null --force --steps 1 --device cpu
check "until and every" 0 sph-step -i db.pks -o t.pks --until 0.002 --every 0.001 --profile
expect_text "profile" err "particle-steps/s"
check "density limits" 0 sph-step -i db.pks -o lim.pks --steps 1 --density-limits 700,1300 --device cpu
check "density limits recorded" 0 particle-info lim.pks
expect_text "density limits recorded" out "sph.density_max = 1300"
check "density limits must enclose rho0" 2 sph-step -i db.pks -o x.pks --steps 1 --density-limits 1100,1300 --device cpu
expect_error "density limits must enclose rho0" sph-step "(--density-limits) must enclose sph.rho0"
# mDBC: sph-init's wall normals travel with the frames; a restart continues bit-identically.
check "scene normals" 0 particle-info db.pks
expect_text "scene normals" out "boundary_normal"
mdbc="--boundary mdbc --boundary-velocity no-slip --device cpu"
check "mdbc straight" 0 sph-step -i db.pks -o m.pks --steps 6 --every-steps 3 $mdbc
check "mdbc first part" 0 sph-step -i db.pks -o m1.pks --steps 3 $mdbc
check "mdbc restart" 0 sph-step -i m1.pks -o m2.pks --steps 3 $mdbc
check "mdbc restart is bit-identical" 0 compare-results --subset --atol 0 --rtol 0 m2.pks m.pks
check "mdbc differs from dbc" 1 compare-results --subset --atol 0 --rtol 0 --columns density m.pks run.pks
check "bad boundary" 2 sph-step -i db.pks -o x.pks --steps 1 --boundary ghost --device cpu
expect_error "bad boundary" sph-step "--boundary must be dbc or mdbc (got 'ghost')"
check "no stop condition" 2 sph-step -i db.pks -o x.pks
expect_error "no stop condition" sph-step "exactly one of --until and --steps"
check "bad option value" 2 sph-step -i db.pks -o x.pks --steps 1 --kernel gauss
head -c 2000 db.pks > cut.pks
check "truncated input" 1 sph-step -q -i cut.pks -o x.pks --steps 1
expect_error "truncated input" sph-step "cut.pks"
# A sound speed of 1 cm/s makes the collapse a runaway at once (limit 5 c0).
check "runaway" 1 sph-step -q -i db.pks -o bad.pks --until 0.2 --every-steps 1 --c0 0.01 --dt-max 1e-3
expect_error "runaway" sph-step "runaway speed"
expect_error "the runaway names the particle" sph-step "first particle id "
check "frames before the runaway are kept" 0 sph-step -i bad.pks -o /dev/null --force --steps 0
# A sloped terrain as a 16-bit grey PNG (written with zlib alone) and as raw samples: the
# scenes are identical, and sph-step runs on it.
"$py" - <<'PY'
import struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
samples = [[1000 * (i + k) for i in range(4)] for k in range(4)]  # rows along x, row k at z = k cell
rows = b"".join(b"\0" + b"".join(struct.pack(">H", v) for v in row) for row in samples)
open("slope.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 16, 0, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
open("slope.raw", "wb").write(b"".join(struct.pack("<H", v) for row in samples for v in row))
PY
check "png terrain" 0 sph-init inclined-plane --dx 0.2 --terrain slope.png --terrain-cell 3 --terrain-scale 0.001 -o png.pks
check "raw terrain" 0 sph-init inclined-plane --dx 0.2 --terrain slope.raw --terrain-size 4,4 --terrain-cell 3 \
  --terrain-scale 0.001 -o raw.pks
check "png and raw terrain agree" 0 compare-results --atol 0 --rtol 0 png.pks raw.pks
check "steps on a png terrain" 0 sph-step -q -i png.pks -o /dev/null --force --steps 2
finish
