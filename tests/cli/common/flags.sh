#!/usr/bin/env bash
# Numbers, --config and PARTIKEL_DEVICE as the programs share them (tools/common, issue 12):
# a bound reads "--dx must be >= 0 (got -1)" (never CLI11's 309-digit range), NaN is refused by
# name, --threads has a ceiling, --config names the file and line of a mistake, PARTIKEL_DEVICE
# is used and the flag wins; particle-convert -l and --frames, sph-step --until before the start.
# (Every flag of every program: tests/cli/abuse.sh.)
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

# expect_line DESCRIPTION TEXT: stderr is exactly the one line TEXT.
expect_line() {
  if [ "$(cat "$work/err")" != "$2" ]; then
    echo "FAIL $1: expected the one line '$2', got:"; sed 's/^/  /' "$work/err"; fail=1
  fi
}

check "--dx -1" 2 sph-init dam-break --dx -1
expect_line "--dx -1" "sph-init: error: --dx must be >= 0 (got -1) (see sph-init --help)"
check "--radius 0" 2 frnn-build -r 0
expect_line "--radius 0" "frnn-build: error: --radius must be > 0 (got 0) (see frnn-build --help)"
check "--dx nan" 2 sph-init dam-break --dx nan
expect_line "--dx nan" "sph-init: error: --dx must be a finite number (got nan) (see sph-init --help)"
check "--until inf" 2 sph-step --until inf </dev/null
expect_error "--until inf" sph-step "--until must be a finite number (got inf)"
check "--every nan" 2 sph-step --until 1 --every nan </dev/null
expect_error "--every nan" sph-step "--every must be a finite number (got nan)"
check "--skin nan" 2 frnn-build -r 0.1 -m verlet --skin nan </dev/null
expect_error "--skin nan" frnn-build "--skin must be a finite number (got nan)"
for flag in --width --c0; do
  check "sph-init $flag nan" 2 sph-init dam-break $flag nan
  expect_error "sph-init $flag nan" sph-init "$flag must be a finite number (got nan)"
done
check "gravity component nan" 2 sph-step --gravity 0,nan,0 </dev/null
expect_error "gravity component nan" sph-step "--gravity must be a finite number (got nan)"
check "a float's range" 2 sph-step --alpha 1e39 </dev/null
expect_error "a float's range" sph-step "--alpha must be between -3.402823466e+38 and 3.402823466e+38 (got 1e39)"
check "an integer beyond 64 bits" 2 sph-step --steps 99999999999999999999 </dev/null
expect_error "an integer beyond 64 bits" sph-step "--steps must be an integer of at most 64 bits"
check "a negative unsigned" 2 frnn-build --seed -1 </dev/null
expect_error "a negative unsigned" frnn-build "--seed must be >= 0 (got -1)"
check "compare-results --ks-alpha 0" 2 compare-results --ks-alpha 0 a b
expect_error "compare-results --ks-alpha 0" compare-results "--ks-alpha must be > 0 and <= 1 (got 0)"
# No range message spells out DBL_MAX.
for run in "sph-init dam-break --c0 -5" "frnn-build --skin -1" "compare-results --atol -1 a b" "sph-init --boundary-layers 99"; do
  check "$run" 2 $run </dev/null
  if grep -q -E '[0-9]{12}' "$work/err"; then echo "FAIL $run prints a huge number: $(cat "$work/err")"; fail=1; fi
done

# --threads: a usage error beyond 4096 (OpenMP would try to start that many OS threads).
check "--threads 100000" 2 particle-info --threads 100000 x.pks
expect_line "--threads 100000" "particle-info: error: --threads must be in 0..4096 (got 100000) (see particle-info --help)"

# Input for the rest: four frames (steps 0..3) of a small dam break.
sph-init -q dam-break --dx 0.05 -o init.pks && sph-step -q --device cpu -i init.pks --steps 3 --every-steps 1 -o run.pks ||
  { echo "FAIL making the input"; exit 1; }

# --config: used, and every mistake names the file and the line.
printf '# one step\nsteps = 1\nalpha = 0.5\n' >ok.cfg
check "a good --config" 0 sph-step -q --device cpu --config ok.cfg -i init.pks -o ok.pks
check "its values are used" 0 particle-info ok.pks
expect_text "its values are used" "$work/out" "sph.alpha = 0.5"
printf 'steps = 1\nalpah = 0.5\n' >typo.cfg
check "a misspelt key" 2 sph-step --device cpu --config typo.cfg -i init.pks -o typo.pks
expect_line "a misspelt key" "sph-step: error: typo.cfg:2: unknown flag 'alpah' (see sph-step --help)"
printf 'steps = 1\n\x01\x02\x03 = \xff\n' >binary.cfg
check "bytes that are not text" 2 sph-step --config binary.cfg -i init.pks -o typo.pks
expect_error "bytes that are not text" sph-step "binary.cfg:2: not a text line"
printf 'steps = 1\nverbose\n' >bare.cfg
check "a line without '='" 2 sph-step --config bare.cfg -i init.pks -o typo.pks
expect_error "a line without '='" sph-step "bare.cfg:2: expected 'flag = value', got 'verbose'"
printf 'steps = 1\nuntil = nan\n' >nan.cfg
check "NaN from a file" 2 sph-step --config nan.cfg -i init.pks -o typo.pks
expect_error "NaN from a file" sph-step "--until must be a finite number (got nan)"
[ -e typo.pks ] && { echo "FAIL a refused --config left an output"; fail=1; }

# PARTIKEL_DEVICE is --device's default (a GPU that no machine has fails the run), and the flag wins.
check "PARTIKEL_DEVICE is used" 1 env PARTIKEL_DEVICE=cuda:99 frnn-build -r 0.1 --stats -i init.pks
expect_error "PARTIKEL_DEVICE is named" frnn-build "PARTIKEL_DEVICE=cuda:99: "
check "--device wins over PARTIKEL_DEVICE" 0 env PARTIKEL_DEVICE=cuda:99 frnn-build --device cpu -r 0.1 --stats -i init.pks
check "PARTIKEL_DEVICE=cpu" 0 env PARTIKEL_DEVICE=cpu frnn-build -r 0.1 --stats -i init.pks
grep -v "^frnn-build: info: searched 1 frame in " "$work/err" | grep -q . &&
  { echo "FAIL PARTIKEL_DEVICE=cpu still looked for a GPU: $(cat "$work/err")"; fail=1; }

# particle-convert: -l within the range the page states; --frames past the end is a mistake.
check "-l -99" 2 particle-convert -l -99 run.pks out.pks
expect_line "-l -99" "particle-convert: error: --level must be in -7..22 (got -99) (see particle-convert --help)"
grep -q -- '-7 to 22' "$PARTIKEL_SOURCE_DIR/man/man1/particle-convert.1" || { echo "FAIL particle-convert(1) does not state -7 to 22"; fail=1; }
check "--frames 99 of 4" 2 particle-convert --frames 99 run.pks out.pks
expect_line "--frames 99 of 4" "particle-convert: error: --frames 99 selects none of the 4 frames of run.pks"
check "--frames 99 of a pipe" 2 sh -c 'cat run.pks | particle-convert --frames 9: -o out.pks'
expect_line "--frames 99 of a pipe" "particle-convert: error: --frames 9: selects none of the frames of stdin"
check "--frames 3:99 keeps the last" 0 particle-convert --frames 3:99 run.pks last.pks
ls -A | grep -q '^out.pks' && { echo "FAIL --frames past the end left $(ls -A | grep out.pks)"; fail=1; }

# sph-step --until before the start frame's time: a usage error saying so, no output.
check "--until before the start" 2 sph-step --device cpu -i run.pks --until 1e-9 -o before.pks
expect_text "--until before the start" "$work/err" "sph-step: error: --until 1e-09 lies before the start frame's time 0.0045"
[ -e before.pks ] && { echo "FAIL --until before the start wrote before.pks"; fail=1; }
finish
