#!/usr/bin/env bash
# nbody-init: --list; every model writes one readable frame (particle-info reads it, nbody-run
# steps it) with its units, parameters and provenance; a seed gives the same bodies for any
# thread count (and the golden first body of the library's generator), another seed others;
# a Henon-unit model rescaled to astro units; the Kepler pair at apoapsis.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

check "list" 0 nbody-init --list
for m in plummer uniform kepler galaxy-pair; do expect_text "list names $m" out "$m "; done

for m in "plummer -n 600" "uniform -n 600" "uniform -n 600 --shape cube --size 2 --virial-ratio 1" \
         "kepler --eccentricity 0.9" "galaxy-pair -n 600"; do
  name=$(echo "$m" | tr ' ' '_')
  check "$m" 0 nbody-init $m -o "$name.pks"
  expect_text "$m logs its parameters" err "softening"
  check "$m is readable" 0 particle-info "$name.pks"
  expect_text "$m: one frame" out "stream, 1 frame"
  expect_text "$m: the bodies group" out "group bodies: "
  expect_text "$m: provenance" out 'program = "nbody-init"'
  expect_text "$m: parameters for nbody-run" out "nbody.softening = "
  check "$m steps" 0 nbody-run -q -i "$name.pks" -o /dev/null -f --steps 1 --device cpu
done
check "galaxy-pair info" 0 particle-info galaxy-pair_-n_600.pks
expect_text "galaxy-pair is in astro units" out 'nbody.units = "astro"'
expect_text "galaxy-pair: G in kpc (km/s)^2 / 1e10 Msun" out "nbody.G = 43007.1"
expect_text "galaxy-pair: 600 bodies" out "group bodies: 600 particles"
expect_text "galaxy-pair: seed in the provenance" out "seed = 1"

# The same seed gives the same bodies with one thread or two; the first body is the library's
# golden value; another seed gives other bodies.
check "seed 11, one thread" 0 env OMP_NUM_THREADS=1 nbody-init plummer -n 1000 --seed 11 -o s1.pks
check "seed 11, two threads" 0 env OMP_NUM_THREADS=2 nbody-init plummer -n 1000 --seed 11 -o s2.pks
check "same seed, same bodies" 0 compare-results --atol 0 --rtol 0 s1.pks s2.pks
check "golden first body" 0 particle-convert s1.pks s1.csv
expect_text "golden first body" s1.csv "-0.13305515,0.019180275,-0.45814985,"
check "seed 12" 0 nbody-init plummer -n 1000 --seed 12 -o s3.pks
check "another seed, other bodies" 1 compare-results -q --atol 0 --rtol 0 s1.pks s3.pks

# Kepler, e = 0.5, a = 1 from apoapsis: the bodies at x = -+0.75, speeds sqrt(1/3)/2.
check "kepler" 0 nbody-init kepler -o k.pks
check "kepler csv" 0 particle-convert k.pks k.csv
expect_text "kepler body 0" k.csv "-0.75,0,0,0,-0.28867513,0,0.5,0"
expect_text "kepler body 1" k.csv "0.75,0,0,0,0.28867513,0,0.5,1"

# Henon units rescaled: one mass unit 1e11 Msun, one length unit 2 kpc.
check "plummer in astro units" 0 nbody-init plummer -n 1000 --units astro --mass 10 --length 2 -o a.pks
check "astro info" 0 particle-info a.pks
expect_text "astro units" out 'nbody.units = "astro"'
expect_text "positions in kpc" out "position           f32x3   3.085678e+19 m"
expect_text "masses of 1e11 Msun / 1000" out "min 0.01           max 0.01"
check "astro model steps" 0 nbody-run -q -i a.pks -o /dev/null -f --steps 1 --device cpu
finish
