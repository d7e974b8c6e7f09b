#!/usr/bin/env bash
# sph-step in a pipeline: frames every N steps, the diagnostics table, a restart from its own
# output that continues bit-identically (compare-results with zero tolerance), errors with one
# line: no stop condition (2), truncated input (1), a runaway that keeps the frames (1).
. "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/lib.sh"

sph-init dam-break --dx 0.008 -o db.pks 2>/dev/null
check "pipeline" 0 sh -c 'sph-init dam-break --dx 0.008 2>/dev/null | sph-step --steps 6 --every-steps 3 --diag d.tsv --device cpu > run.pks'
expect_text "diag header" d.tsv "step	time_s	dt_s	kinetic_J	potential_J"
[ "$(wc -l < d.tsv)" -eq 4 ] || { echo "FAIL diag rows: $(wc -l < d.tsv), expected 4 (header, steps 0 3 6)"; fail=1; }
check "first part" 0 sph-step -i db.pks -o part1.pks --steps 3
check "restart" 0 sph-step -i part1.pks -o part2.pks --steps 3 --diag d2.tsv
expect_text "restart continues at step 6" d2.tsv "
6	"
check "restart is bit-identical" 0 compare-results --subset --atol 0 --rtol 0 part2.pks run.pks
check "until and every" 0 sph-step -i db.pks -o t.pks --until 0.002 --every 0.001 --profile
expect_text "profile" err "particle-steps/s"
check "no stop condition" 2 sph-step -i db.pks -o x.pks
expect_error "no stop condition" sph-step "exactly one of --until and --steps"
check "bad option value" 2 sph-step -i db.pks -o x.pks --steps 1 --kernel gauss
head -c 2000 db.pks > cut.pks
check "truncated input" 1 sph-step -q -i cut.pks -o x.pks --steps 1
expect_error "truncated input" sph-step "cut.pks"
# A sound speed of 1 cm/s makes the collapse a runaway at once (limit 5 c0).
check "runaway" 1 sph-step -q -i db.pks -o bad.pks --until 0.2 --every-steps 1 --c0 0.01 --dt-max 1e-3
expect_error "runaway" sph-step "runaway speed"
check "frames before the runaway are kept" 0 sph-step -i bad.pks -o /dev/null --force --steps 0
finish
