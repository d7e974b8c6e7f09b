#!/usr/bin/env bash
# Every reader and parser bounds what it accepts (issue 24, class 2), tried as a hostile user
# would: nesting deep enough to overflow a recursive parser, sizes that multiply into memory or
# time, non-finite and absurd values inside files that are valid by every checksum, endless
# inputs, the OpenMP environment, step counts at the end of int64, coordinates whose squares
# overflow float, per-component units, a stream index that points at the wrong frame. Each
# hostile run must end within its timeout with the documented status (1: bad data, 2: usage;
# compare-results: 2) and one line "PROG: error: ...", naming the file, line, attribute or flag.
# Hostile streams are written by tests/cli/craft_stream.py, openPMD files by h5py.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export PATH="$PARTIKEL_BUILD_DIR/bin:$PATH"
export PARTIKEL_DEVICE=cpu
py=/usr/bin/python3   # Debian's, with numpy and h5py
craft() { "$py" "$PARTIKEL_SOURCE_DIR/tests/cli/craft_stream.py" "$@" || { echo "FAIL craft_stream.py $*"; fail=1; }; }

# refuse WHAT STATUS PATTERN PROG ARGS...: PROG ends within 30 s (timeout's 124 otherwise) with
# STATUS and exactly one stderr line "PROG: error: ...PATTERN".
refuse() {
  local what=$1 status=$2 pattern=$3 prog=$4
  shift 4
  check "$what" "$status" timeout 30 "$prog" "$@"
  if [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q -F -- "$prog: error: " "$work/err" ||
     ! grep -q -F -- "$pattern" "$work/err"; then
    echo "FAIL $what: expected one line '$prog: error: ...$pattern', got:"; sed 's/^/  /' "$work/err" | head -5
    fail=1
  fi
}

sph-init dam-break --dx 0.05 -q -o good.pks || { echo "FAIL sph-init"; exit 1; }
sph-step -i good.pks --steps 2 --every-steps 1 -q -o three.pks || { echo "FAIL sph-step"; exit 1; }
nbody-init plummer -n 64 -q -o bodies.pks || { echo "FAIL nbody-init"; exit 1; }
pic-track --distribution kv --particles 64 --energy 1e9 --intensity 1e10 --steps 0 -q -o beam.pks ||
  { echo "FAIL pic-track"; exit 1; }

# --- nesting: recursive parsers stop at a depth limit with file:line ------------------------
"$py" - <<'EOF'
depth = 20000
with open("deep.madx", "w") as f:
    f.write("x = " + "(" * depth + "1" + ")" * depth + ";\n")
with open("signs.madx", "w") as f:
    f.write("x = " + "-" * depth + "1;\n")
with open("chain.madx", "w") as f:
    f.write("v0 := 1;\n" + "".join("v%d := v%d + 1;\n" % (i, i - 1) for i in range(1, 10000)))
    f.write("d: drift, l = v9999;\nring: sequence, l = v9999;\nd, at = v9999 / 2;\nendsequence;\n")
EOF
tail='d: drift, l=1;\nring: sequence, l=1;\nd, at=0.5;\nendsequence;\n'
refuse "MAD-X parentheses 20,000 deep" 1 "deep.madx:1: expression nested deeper than" \
  pic-track --lattice deep.madx --print-lattice --energy 1e9
refuse "MAD-X signs 20,000 deep" 1 "signs.madx:1: expression nested deeper than" \
  pic-track --lattice signs.madx --print-lattice --energy 1e9
refuse "MAD-X definitions chained 10,000 deep" 1 "chain.madx:" pic-track --lattice chain.madx --print-lattice --energy 1e9
expect_text "the chain's message" "$work/err" "nested deeper than"

# --- sizes that multiply into memory or time ------------------------------------------------
printf 'repeat 4000000000\ndrift d L=1\nend\n' >repeat.txt
refuse "repeat 4000000000" 1 "repeat.txt:1: repeat 4000000000 of 1 elements makes 4e+09 elements" \
  pic-track --lattice repeat.txt --print-lattice --energy 1e9
printf 'repeat 1000\nrepeat 2000\ndrift d L=1\nend\nend\n' >nested-repeat.txt
refuse "nested repeats of 2 x 10^6 elements" 1 "nested-repeat.txt:1: repeat 1000 of 2000 elements makes 2e+06 elements" \
  pic-track --lattice nested-repeat.txt --print-lattice --energy 1e9
refuse "--cells 2e9" 2 "--cells must be in 1..166666 (got 2000000000)" pic-track --cells 2000000000 --print-lattice --energy 1e9
refuse "--sc-kicks 2e9" 2 "--sc-kicks must be in 0..100000 (got 2000000000)" \
  pic-track --sc-kicks 2000000000 --distribution kv --particles 64 --energy 1e9 --intensity 1e10 --steps 1 -o o.pks
# A group of 2^62 particles and no columns: every reader refuses it (it costs no memory to read,
# but every program after the reader would loop over it).
craft good.pks ghost.pks --empty-group ghost:4611686018427387904
refuse "particle-info, 2^62 particles" 1 "group \"ghost\" has 4611686018427387904 particles, more than" particle-info ghost.pks
refuse "particle-convert, 2^62 particles" 1 "4611686018427387904 particles" particle-convert ghost.pks o.csv --groups ghost
refuse "compare-results, 2^62 particles" 2 "4611686018427387904 particles" compare-results ghost.pks ghost.pks
[ ! -e o.csv ] || { echo "FAIL particle-convert left o.csv"; fail=1; }
# 40,000 columns and 100,000 groups: per-column and per-group work is linear (a quadratic
# reader took a minute on 40,000 columns).
craft bodies.pks wide.pks --wide-group wide:40000
craft bodies.pks groups.pks --group-count 100000
for input in wide.pks groups.pks; do
  check "particle-info $input" 0 timeout 30 particle-info "$input"
  check "particle-convert $input" 0 timeout 30 particle-convert "$input" o.pks
  check "compare-results $input" 0 timeout 60 compare-results "$input" o.pks
done
"$py" -c 'import sys; n = 40000; print(",".join("c%d" % i for i in range(n))); print(",".join("1" for i in range(n)))' >wide.csv
check "particle-convert, CSV of 40,000 columns" 0 timeout 30 particle-convert wide.csv o.pks
check "compare-results, tables of 40,000 columns" 0 timeout 30 compare-results wide.csv wide.csv

# --- non-finite and absurd values inside valid files: exit 1, named ---------------------------
craft good.pks nan-time.pks --time nan
craft bodies.pks nan-time-bodies.pks --time nan
refuse "sph-step, a NaN frame time" 1 "nan-time.pks: frame 0 (step 0): time is nan" sph-step -i nan-time.pks --until 0.01 -o o.pks
refuse "nbody-run, a NaN frame time" 1 "time is nan" nbody-run -i nan-time-bodies.pks --until 0.1 -o o.pks
refuse "particle-info, a NaN frame time" 1 "time is nan" particle-info nan-time.pks
craft good.pks zero-unit.pks --time-unit-si 0
refuse "time_unit_si 0" 1 "time_unit_si is 0" sph-step -i zero-unit.pks --steps 1 -o o.pks
craft good.pks shepard.pks --attribute sph.shepard_every=1099511627776
refuse "an int attribute of 2^40" 1 "shepard.pks: step 0: attribute sph.shepard_every = 1099511627776 must be an integer in" \
  sph-step -i shepard.pks --steps 1 -o o.pks
craft good.pks big-h.pks --attribute sph.h=1e300
refuse "a float attribute of 1e300" 1 "attribute sph.h = 1e+300 must be a finite number" sph-step -i big-h.pks --steps 1 -o o.pks
craft good.pks nan-h.pks --attribute sph.h=nan
refuse "splat-render, sph.h = nan" 1 "nan-h.pks: frame 0: attribute sph.h = nan" splat-render -i nan-h.pks --size 8x8 -o o_%d.exr
craft good.pks kernel.pks --attribute sph.kernel=7
refuse "a text attribute holding a number" 1 "attribute sph.kernel is not text" sph-step -i kernel.pks --steps 1 -o o.pks
craft good.pks bad-shepard.pks --attribute sph.shepard_every=-5
refuse "a parameter check of the file's values" 1 "bad-shepard.pks: step 0:" sph-step -i bad-shepard.pks --steps 1 -o o.pks
craft bodies.pks leaf.pks --attribute nbody.leaf_capacity=1099511627776
refuse "nbody-run, an int attribute of 2^40" 1 "attribute nbody.leaf_capacity = 1099511627776" nbody-run -i leaf.pks --steps 1 -o o.pks
craft beam.pks beam-inf.pks --attribute pic.intensity=inf
refuse "pic-track, intensity = inf" 1 "beam-inf.pks: step 0: attribute pic.intensity = inf" pic-track -i beam-inf.pks --steps 1 -o o.pks
craft beam.pks beam-z.pks --attribute pic.Z=1099511627776
refuse "pic-track, Z = 2^40" 1 "attribute pic.Z = 1099511627776" pic-track -i beam-z.pks --steps 1 -o o.pks
printf "d: drift, l=1/0;\nring: sequence, l=1;\nd, at=0.5;\nendsequence;\n" >div.madx
refuse "1/0 in a MAD-X lattice" 1 "div.madx:1: the expression evaluates to inf" pic-track --lattice div.madx --print-lattice --energy 1e9
printf "beam, particle=proton, energy=2, npart=1e400;\n$tail" >npart.madx
refuse "npart = 1e400" 1 "npart.madx:1: the expression evaluates to inf" \
  pic-track --lattice npart.madx --distribution kv --particles 64 --steps 1 -o o.pks
printf "x = sqrt(-1);\n$tail" >sqrt.madx
refuse "sqrt(-1)" 1 "sqrt.madx:1: the expression evaluates to nan" pic-track --lattice sqrt.madx --print-lattice --energy 1e9
printf 'beam Z=1 A=1 energy_per_nucleon_eV=1e9 intensity=1e400\ndrift d L=1\n' >huge.txt
refuse "intensity=1e400 in a text lattice" 1 "huge.txt:1: intensity=1e400 is not a number" \
  pic-track --lattice huge.txt --distribution kv --particles 64 --steps 1 -o o.pks
printf '0 1e39 0 1 0 0 0\n' >camera.txt
refuse "a camera key of 1e39" 1 "camera.txt:1: numbers must be finite and within" \
  splat-render -i good.pks --style points --size 8x8 --camera-path camera.txt -o o_%d.exr

# --- endless inputs: bounded reads ------------------------------------------------------------
for prog in particle-info sph-step splat-render compare-results pic-track; do
  refuse "$prog --config /dev/zero" 2 "/dev/zero: longer than 1024 KiB" "$prog" --config /dev/zero
done
refuse "--camera-path /dev/zero" 1 "/dev/zero: binary data" \
  splat-render -i good.pks --style points --size 8x8 --camera-path /dev/zero -o o_%d.exr
refuse "--lattice /dev/zero" 1 "/dev/zero: binary data" pic-track --lattice /dev/zero --print-lattice --energy 1e9
refuse "a table from /dev/zero" 2 "/dev/zero: binary data" compare-results --kind table /dev/zero /dev/zero
yes 'a,b' | head -c 70000000 >long.txt
refuse "a 70 MB lattice" 1 "more than 67108864 bytes" pic-track --lattice long.txt --print-lattice --energy 1e9
rm -f long.txt
printf '\xef\xbb\xbfquiet = true\n' >bom.cfg
check "a UTF-8 byte order mark in --config" 0 timeout 30 particle-info --config bom.cfg good.pks

# --- the OpenMP environment is bounded like --threads -----------------------------------------
for command in "particle-info good.pks" "splat-render -i good.pks --style points --size 8x8 -o o_%d.exr" \
               "sph-step -i good.pks --steps 1 -o o.pks"; do
  # shellcheck disable=SC2086
  OMP_NUM_THREADS=100000 refuse "${command%% *} OMP_NUM_THREADS=100000" 2 "OMP_NUM_THREADS must be in 1..4096 (or a comma" \
    $command
done
OMP_NUM_THREADS=100000 check "--threads overrides OMP_NUM_THREADS" 0 timeout 30 particle-info --threads 2 good.pks
OMP_NUM_THREADS=2,1 check "a list of thread counts" 0 timeout 30 particle-info good.pks

# --- step counts at the end of int64 saturate -------------------------------------------------
# From step 2, 2 + 9223372036854775807 wrapped to a negative end: the run took no step. It runs
# now (until interrupted), and its last frame is past step 2.
timeout --preserve-status -s INT 6 sph-step -i three.pks --steps 9223372036854775807 -q -o long.pks 2>/dev/null
status=$?
[ $status -eq 130 ] || { echo "FAIL --steps 9223372036854775807: exit $status, expected 130 (interrupted while running)"; fail=1; }
last=$(particle-info long.pks 2>/dev/null | grep '^frame' | tail -1 | sed 's/.*step \([0-9]*\),.*/\1/')
[ -n "$last" ] && [ "$last" -gt 2 ] || { echo "FAIL --steps 9223372036854775807 took no step (last frame step '$last')"; fail=1; }

# --- coordinates and radii whose squares overflow float ----------------------------------------
"$py" - <<'EOF'
import random
random.seed(1)
with open("far.csv", "w") as f:
    f.write("# group: bodies\n")
    for column in ("position", "velocity", "mass"):  # N-body units: dimensionless
        f.write("# unit: %s 0 0 0 0 0 0 0 1\n" % column)
    f.write("position_x,position_y,position_z,velocity_x,velocity_y,velocity_z,mass,id:u64\n")
    for i in range(200):
        f.write("%g,%g,%g,0,0,0,1,%d\n" % (random.uniform(0, 1e30), random.uniform(0, 1e30), random.uniform(0, 1e30), i))
EOF
refuse "frnn-build -r 1e29" 2 "--radius must be <= 1e18 m (got 1e+29)" frnn-build -i far.csv -r 1e29 --stats
refuse "frnn-build over 1e30 m" 1 "far.csv: frame 0: positions along x reach" frnn-build -i far.csv -r 1e17 --stats
refuse "nbody-run over 1e30" 1 "far.csv: step 0: group \"bodies\", row 0: position" nbody-run -i far.csv --steps 1 -o o.pks
refuse "splat-render over 1e30 m" 1 "lies beyond +-1e18 m" splat-render -i far.csv --style points --size 8x8 -o o_%d.exr

# --- openPMD: components of one record with their own unitSI ----------------------------------
"$py" - <<'EOF'
import h5py, numpy as np
with h5py.File("units.h5", "w") as f:
    f.attrs["openPMD"] = np.bytes_("1.1.0")
    f.attrs["basePath"] = np.bytes_("/data/%T/")
    f.attrs["particlesPath"] = np.bytes_("particles/")
    p = f.create_group("data/0/particles/beam/position")
    p.attrs["unitDimension"] = np.array([1.0, 0, 0, 0, 0, 0, 0])
    for axis, values, si in (("x", [1000.0, 2000.0], 1e-3), ("y", [1.0, 2.0], 1.0), ("z", [300.0, 400.0], 1e-2)):
        d = p.create_dataset(axis, data=np.array(values))
        d.attrs["unitSI"] = si
EOF
check "mixed unitSI, to CSV" 0 timeout 30 particle-convert units.h5 units.csv
expect_text "x in mm read as metres" units.csv "1,1,3"
expect_text "second row" units.csv "2,2,4"

# --- the stream index is cross-checked -------------------------------------------------------
craft three.pks misplaced.pks --misplace-index
refuse "--frames 1 through a misplaced index entry" 1 "does not match the frame read" \
  particle-convert --frames 1 misplaced.pks o.pks
craft three.pks swapped.pks --swap-index
rm -f o.pks
timeout 30 particle-convert --frames 1 swapped.pks o.pks 2>/dev/null   # refused, or frame 1 found by reading
if [ -e o.pks ] && ! particle-info o.pks | grep -q '^frame 0: step 1,'; then
  echo "FAIL --frames 1 through swapped index offsets delivered another frame:"; particle-info o.pks | grep '^frame'; fail=1
fi
refuse "the sequential read checks the index too" 1 "a damaged index" particle-info swapped.pks

# --- images declaring more than the machine holds ---------------------------------------------
"$py" - <<'EOF'
import struct, zlib
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
with open("huge.png", "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1000000, 1000000, 16, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))
EOF
refuse "a 10^6 x 10^6 height image" 1 "needs more memory than this machine has" sph-init inclined-plane --terrain huge.png -o o.pks
printf 'abcd' >tiny.raw
refuse "--terrain-size 10^6,10^6" 2 "--terrain-size 1000000,1000000 needs about" \
  sph-init inclined-plane --terrain tiny.raw --terrain-size 1000000,1000000 -o o.pks

finish
