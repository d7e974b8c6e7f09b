#!/usr/bin/env bash
# pic-track: --print-lattice (and an unstable lattice), lattice files with unsupported or
# malformed content (file and line in one error line), a run with frames and the diagnostics
# table, a restart from its own output that continues bit-identically (compare-results with zero
# tolerance; CPU backend, sorted deposition), HDF5 output with openPMD beam-physics records, a
# beam outside the pipe (all lost, reported), zero particles, and usage errors.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

argon="--Z 18 --A 40 --energy 11.4e6"
check "help" 0 pic-track --help
expect_text "help names the lattice flags" out "--print-lattice"
check "print lattice" 0 pic-track --print-lattice $argon
expect_text "tunes of 16 cells of 129.3 deg" out "tunes: Qx = 5.7466666667, Qy = 5.7466666667"
expect_text "reference particle" out "Z=18 A=40"
check "print lattice without energy" 2 pic-track --print-lattice
expect_error "print lattice without energy" pic-track "give the kinetic energy per nucleon"

cat > unstable.lat <<'LAT'
quadrupole QF L=0.5 k1=8
drift D L=3
quadrupole QD L=0.5 k1=-8
drift D L=3
LAT
check "unstable lattice" 2 pic-track --lattice unstable.lat --print-lattice $argon
expect_error "unstable lattice" pic-track "the lattice is unstable in x"

cat > ring.madx <<'MADX'
qf: quadrupole, l=0.5, k1=0.8;
qd: quadrupole, l=0.5, k1=-0.8;
sx: sextupole, l=0.2, k2=1;
ring: sequence, l=10;
  qf, at=1; qd, at=6;
endsequence;
MADX
check "unsupported MAD-X element" 1 pic-track --lattice ring.madx --print-lattice $argon
expect_error "unsupported MAD-X element" pic-track "ring.madx:3: unsupported element class 'sextupole'"
printf 'qf: quadrupole, l=0.5, k1=0.8;\nqd: quadrupole, l=0.5 k1=-0.8;\n' > syntax.madx
check "MAD-X syntax error" 1 pic-track --lattice syntax.madx --print-lattice $argon
expect_error "MAD-X syntax error" pic-track "syntax.madx:2: unexpected 'k1' in an expression"
printf 'drift D L=1\nkicker K L=2\n' > bad.lat
check "unknown element kind" 1 pic-track --lattice bad.lat --print-lattice $argon
expect_error "unknown element kind" pic-track "bad.lat:2: unknown element kind 'kicker'"

beam="$argon --intensity 2e10 --particles 2000 --pipe-radius 0.075 --sc-kicks 4 --sc-grid 32,32"
beam="$beam --sc-deposition sorted --device cpu"
check "run" 0 pic-track --distribution waterbag $beam --steps 6 --every-steps 3 --diag d.tsv -o run.pks
expect_text "diag header" d.tsv "turn	time_s	alive	lost	newly_lost	mean_x_m"
expect_text "diag emittances" d.tsv "emittance_x_m	emittance_y_m	emittance_z_m"
[ "$(cut -f1 d.tsv | tr '\n' ' ')" = "turn 0 3 6 " ] || { echo "FAIL diag turns: $(cut -f1 d.tsv | tr '\n' ' ')"; fail=1; }
check "first part" 0 pic-track --distribution waterbag $beam --steps 3 -o part1.pks
check "restart" 0 pic-track -i part1.pks --pipe-radius 0.075 --sc-kicks 4 --sc-grid 32,32 --sc-deposition sorted \
  --device cpu --steps 3 -o part2.pks
check "restart is bit-identical" 0 compare-results --subset --atol 0 --rtol 0 part2.pks run.pks
# HDF5 output carries openPMD beam-physics records derived from the trace-space columns:
# p_x / p_z = x', p_y / p_z = y', |p| / (1 + delta) the same for every particle, weight = ions per
# macroparticle; the frame restarts a run like a stream frame.
check "run to HDF5" 0 pic-track --distribution waterbag $beam --steps 2 -o beam.h5
check "HDF5 as CSV" 0 particle-convert --frames 1 beam.h5 beam.csv
grep -v '^#' beam.csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) { split($i, n, ":"); c[n[1]] = i }; next }
  { px = $c["momentum_x"]; py = $c["momentum_y"]; pz = $c["momentum_z"]
    if (pz <= 0 || (px / pz - $c["xp"]) ^ 2 > 1e-24 || (py / pz - $c["yp"]) ^ 2 > 1e-24) { print "FAIL slopes at row " NR; exit 1 }
    p0 = sqrt(px * px + py * py + pz * pz) / (1 + $c["delta"])
    if (NR == 2) first = p0; else if ((p0 / first - 1) ^ 2 > 1e-24) { print "FAIL |p| / (1 + delta) at row " NR; exit 1 }
    if ($c["weight"] != 1e7) { print "FAIL weight " $c["weight"]; exit 1 }
    if ($c["position_x"] != $c["x"] || $c["position_z"] != $c["z"]) { print "FAIL position at row " NR; exit 1 } }
  END { if (NR != 2001) { print "FAIL rows " NR; exit 1 } }' || fail=1
check "restart from HDF5" 0 pic-track -i beam.h5 --pipe-radius 0.075 --sc-kicks 4 --sc-grid 32,32 --device cpu \
  --steps 1 -o from_h5.pks
check "--beam-physics in a stream" 0 pic-track --distribution waterbag $beam --steps 1 --beam-physics -o bp.pks
check "info of that stream" 0 particle-info bp.pks
expect_text "--beam-physics in a stream: momentum" out "momentum           f64x3"
check "restart in another ring" 2 pic-track -i part1.pks --cells 8 --steps 1 -o x.pks --device cpu
expect_error "restart in another ring" pic-track "the frame's ring is 288"
check "beam flags with an input" 2 pic-track -i part1.pks --energy 1e9 --steps 1 -o x.pks --device cpu
expect_error "beam flags with an input" pic-track "describe a generated beam"

check "beam outside the pipe" 0 pic-track --distribution kv $beam --offset 0.2,0 --steps 2 --diag lost.tsv -o lost.pks
expect_text "all lost in turn 0" lost.tsv "
2	"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next } \
  $c["turn"] > 0 && ($c["alive"] != 0 || $c["lost"] != 2000) { print "FAIL all lost: alive " $c["alive"] ", lost " $c["lost"]; exit 1 }' \
  lost.tsv || fail=1
expect_text "losses reported by element" err "lost at QF (element 0): 2000"

check "zero particles" 0 pic-track --distribution gaussian $argon --intensity 1e10 --particles 0 --steps 2 \
  --diag zero.tsv -o zero.pks --device cpu
expect_text "zero particles: a row" zero.tsv "
2	"
check "no stop condition" 2 pic-track --distribution waterbag $beam -o x.pks
check "bad flag" 2 pic-track --sc-maps sometimes --steps 1
sph-init dam-break --dx 0.02 -o fluid.pks 2>/dev/null
check "a frame of another model" 1 pic-track -i fluid.pks --steps 1 -o x.pks --device cpu
expect_error "a frame of another model" pic-track "no group \"beam\""
finish
