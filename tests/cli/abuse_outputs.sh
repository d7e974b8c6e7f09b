#!/usr/bin/env bash
# Every program that writes files, with its outputs sent where users and machines send them
# (issue 12; docs/ARCHITECTURE.md, "How output files are written"):
#  - a FIFO: written directly, in order; the reader gets the whole output; the FIFO stays;
#  - a symbolic link: the link stays, its target is replaced;
#  - character devices: /dev/zero takes everything, /dev/full fails with one line
#    "prog: error: /dev/full: write failed: No space left on device" (exit 1) and stays a device
#    (never the real /dev/null: a program that renamed over it would break the machine);
#  - a full disk, as an unprivileged process can have one: a file size limit (ulimit -f) with
#    SIGXFSZ ignored, so writes fail with EFBIG: exit 1, one line naming the file and "File too
#    large", nothing under the final name, no temporary left;
#  - SIGINT in the middle of the three simulating programs: exit 130, a note of how far the run
#    got, the output kept under its name and readable, the diagnostics table ending on a whole row.
source "$(dirname "$0")/lib.sh"
export TMPDIR="$work/tmp"   # where HDF5/EXR outputs to devices are staged: checked for leftovers
mkdir -p "$TMPDIR"

argon="--Z 18 --A 40 --energy 11.4e6"
beam="$argon --intensity 2e10 --particles 2000 --pipe-radius 0.075 --sc-kicks 4 --sc-grid 32,32 --sc-deposition sorted --device cpu"

sph-init dam-break --dx 0.01 -q -o d.pks || { echo "FAIL making input"; exit 1; }
nbody-init plummer -n 500 --seed 3 -q -o p.pks || { echo "FAIL making input"; exit 1; }

# The writers: a name and a command with @OUT@ where the output path goes.
writers=(
  "sph-init|sph-init dam-break --dx 0.01 -q -o @OUT@"
  "nbody-init|nbody-init plummer -n 500 --seed 3 -q -o @OUT@"
  "particle-convert stream|particle-convert d.pks -o @OUT@ -t stream -q"
  "particle-convert hdf5|particle-convert d.pks -o @OUT@ -t h5 --no-xdmf -q"
  "particle-convert csv|particle-convert d.pks -o @OUT@ -t csv --groups fluid -q"
  "particle-convert vtk|particle-convert d.pks -o @OUT@ -t vtk --groups fluid -q"
  "particle-convert ply|particle-convert d.pks -o @OUT@ -t ply --groups fluid -q"
  "sph-step|sph-step -i d.pks -o @OUT@ --steps 2 --device cpu -q"
  "sph-step --diag|sph-step -i d.pks -o x.pks --steps 30 --diag-every-steps 1 --diag @OUT@ --device cpu -q"
  "nbody-run|nbody-run -i p.pks -o @OUT@ --steps 2 --device cpu -q"
  "nbody-run --diag|nbody-run -i p.pks -o x.pks --steps 30 --every-steps 1 --diag @OUT@ --device cpu -q"
  "pic-track|pic-track --distribution waterbag $beam --steps 2 -o @OUT@ -q"
  "pic-track --diag|pic-track --distribution waterbag $beam --steps 30 --every-steps 1 --diag @OUT@ -o x.pks -q"
  "frnn-build|frnn-build -i d.pks --group fluid -r 0.02 --device cpu -o @OUT@ -q"
  "compare-results|compare-results d.pks d.pks -o @OUT@"
  "splat-render|splat-render -q -i d.pks --style points --size 64x48 -o @OUT@"
)

# run_with PATH COMMAND: the command with @OUT@ replaced (word splitting is wanted here).
run_with() {
  local out=$1 cmd=${2//@OUT@/$1}
  # shellcheck disable=SC2086
  $cmd
}

no_leftovers() {
  if ls -A . "$TMPDIR" | grep -q 'partikel-tmp'; then
    echo "FAIL $1: a temporary is left:"; ls -A . "$TMPDIR" | grep 'partikel-tmp' | sed 's/^/  /'; fail=1
    rm -f .*partikel-tmp* "$TMPDIR"/*partikel-tmp*
  fi
}

for entry in "${writers[@]}"; do
  name=${entry%%|*}
  cmd=${entry#*|}
  out=out   # no extension: the stream format (tables and reports take any name)
  [[ $name == splat-render ]] && out=out.exr
  failed=1  # the exit status of a write failure; compare-results keeps 1 for "different"
  [[ $name == compare-results ]] && failed=2

  # A FIFO: the reader gets every byte; the FIFO is still a FIFO.
  rm -f "$out" got; mkfifo "$out"
  timeout 20 cat "$out" > got &
  reader=$!
  check "$name to a FIFO" 0 run_with "$out" "$cmd"
  wait $reader
  fifo_kept=1
  [ -p "$out" ] || { echo "FAIL $name: the FIFO was replaced"; fail=1; fifo_kept=0; }
  [ -s got ] || { echo "FAIL $name: the FIFO's reader got nothing"; fail=1; }
  case $name in
    sph-init|nbody-init|"particle-convert stream"|"particle-convert hdf5"|sph-step|nbody-run|pic-track|frnn-build)
      particle-info got > /dev/zero 2>info.err || { echo "FAIL $name: FIFO output unreadable: $(cat info.err)"; fail=1; } ;;
  esac
  no_leftovers "$name to a FIFO"

  # A symbolic link: its target is replaced, the link stays.
  rm -f "$out" target; echo old > target; ln -s target "$out"
  check "$name to a symlink" 0 run_with "$out" "$cmd"
  [ -L "$out" ] || { echo "FAIL $name: the symbolic link was replaced"; fail=1; }
  grep -qx old target && { echo "FAIL $name: the link's target was not written"; fail=1; }
  no_leftovers "$name to a symlink"
  rm -f "$out" target

  # Character devices; only for a program that left the FIFO a FIFO (as root, one that renames
  # over its output would replace the machine's /dev/zero and /dev/full).
  if [[ $name != splat-render && $fifo_kept == 1 ]]; then
    check "$name to /dev/zero" 0 run_with /dev/zero "$cmd"
    check "$name to /dev/full" $failed run_with /dev/full "$cmd"
    expect_error "$name to /dev/full" "${name%% *}" "/dev/full: write failed: No space left on device"
    [ -c /dev/full ] && [ -c /dev/zero ] || { echo "FAIL $name: a device was replaced"; fail=1; }
    no_leftovers "$name to a device"
  fi

  # A full disk: writes past 1 KiB fail with EFBIG; nothing appears under the final name.
  rm -f full
  check "$name on a full disk" $failed bash -c "ulimit -f 1; trap '' XFSZ; $(declare -f run_with); run_with full '$cmd'"
  expect_error "$name on a full disk" "${name%% *}" "File too large"
  [ -e full ] && { echo "FAIL $name: output under the final name after a full disk"; fail=1; }
  no_leftovers "$name on a full disk"
done

# Reports on stdout: a full device and a full disk are errors, not a silent cut.
check "particle-info to /dev/full" 1 bash -c "particle-info d.pks > /dev/full"
expect_error "particle-info to /dev/full" particle-info "<stdout>: write failed: No space left on device"
check "particle-info on a full disk" 1 bash -c "ulimit -f 1; trap '' XFSZ; particle-info d.pks > report.txt"
expect_error "particle-info on a full disk" particle-info "<stdout>: write failed"
check "frnn-build --stats to /dev/full" 1 bash -c "frnn-build -i d.pks --group fluid -r 0.02 --device cpu --stats > /dev/full"

# Damaged HDF5 input (formats/SPEC.md §3.4): every reader ends with a clean error or a correct
# read, never a signal, and no program leaves a temporary behind.
particle-convert d.pks good.h5 --no-xdmf -q || { echo "FAIL making good.h5"; exit 1; }
size=$(stat -c %s good.h5)
for ((offset = 3; offset < size; offset += 1499)); do
  python3 -c "import sys; b = bytearray(open('good.h5', 'rb').read()); b[$offset] ^= 0x5A; open('bad.h5', 'wb').write(b)"
  for cmd in "particle-info bad.h5" "particle-convert bad.h5 conv.pks" "compare-results bad.h5 good.h5" \
             "frnn-build -i bad.h5 --group fluid -r 0.02 --device cpu -o lists.pks" \
             "sph-step -i bad.h5 -o step.pks --steps 1 --device cpu -q"; do
    $cmd > /dev/zero 2>bad.err
    rc=$?
    if [ $rc -ge 126 ]; then echo "FAIL $cmd with byte $offset flipped: exit $rc: $(head -2 bad.err)"; fail=1; fi
    if [ $rc -ne 0 ] && ! grep -q "bad.h5" bad.err; then echo "FAIL $cmd, byte $offset: error does not name the file: $(head -2 bad.err)"; fail=1; fi
  done
  no_leftovers "damaged HDF5 at byte $offset"
done

# Absurd sizes are refused with the numbers before anything is allocated (each run is capped at
# 1 GB of address space: a program that tried would fail or be killed instead of exiting 2).
# Under AddressSanitizer (make sanitize sets ASAN_OPTIONS) no cap: its shadow memory alone
# reserves terabytes of address space, and it reports an allocation that large itself.
cap="ulimit -v 1000000;"
[ -n "${ASAN_OPTIONS:-}" ] && cap=""
check "sph-init --dx 1e-9" 2 bash -c "$cap sph-init dam-break --dx 1e-9 -o huge.pks"
expect_error "sph-init --dx 1e-9" sph-init "particles, which needs about .* GB of host memory .* available"
# A terrain in the wrong height unit (the shipped hillside without its --terrain-scale) makes
# columns hundreds of metres long: refused before they are filled.
check "sph-init avalanche, heights unscaled" 2 bash -c "$cap sph-init avalanche --terrain '$PARTIKEL_SOURCE_DIR/examples/avalanche/hillside.png' --terrain-cell 0.5 -o huge.pks"
expect_error "sph-init avalanche, heights unscaled" sph-init "particles, which needs about .* GB of host memory"
check "pic-track --particles 1e11" 2 bash -c "$cap pic-track --distribution waterbag $argon --intensity 2e10 --particles 100000000000 --pipe-radius 0.075 --device cpu --steps 1 -o huge.pks"
expect_error "pic-track --particles 1e11" pic-track "needs about .* GB of host memory"
check "nbody-init -n 1e12" 2 bash -c "$cap nbody-init plummer -n 1000000000000 -o huge.pks"
expect_error "nbody-init -n 1e12" nbody-init "of host memory"
[ -e huge.pks ] && { echo "FAIL an absurd size left huge.pks"; fail=1; }

# SIGINT in the middle of a run: the frames so far are kept under the final name, readable, and
# the diagnostics table ends on a whole row.
whole_rows() {  # TABLE: every line has the header's number of fields and ends in a newline
  [ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] &&
    awk -F'\t' 'NR == 1 { n = NF } NF != n { exit 1 }' "$1" ||
    { echo "FAIL $1 does not end on a whole row:"; tail -2 "$1" | sed 's/^/  /'; fail=1; }
}
interrupted() {  # OUTPUT TABLE
  [ -e "$1" ] || { echo "FAIL interrupted run: $1 was not kept"; fail=1; return; }
  particle-info "$1" > info.txt 2>info.err || { echo "FAIL interrupted run: $1 unreadable: $(cat info.err)"; fail=1; }
  whole_rows "$2"
}
interrupt_run int1.pks sph-step -i d.pks -o int1.pks --until 1000 --every-steps 5 --diag int1.tsv --diag-every-steps 1 --device cpu
interrupted int1.pks int1.tsv
interrupt_run int2.pks nbody-run -i p.pks -o int2.pks --until 1e9 --every-steps 20 --diag int2.tsv --device cpu
interrupted int2.pks int2.tsv
interrupt_run int3.pks pic-track --distribution waterbag $beam --steps 100000000 --every-steps 50 --diag int3.tsv -o int3.pks
interrupted int3.pks int3.tsv
no_leftovers "SIGINT"

# SIGKILL: the frames sit in the temporary named by the run's first lines; --recover keeps them.
sph-step -i d.pks -o killed.pks --until 1000 --every-steps 5 --device cpu 2>killed.err &
pid=$!
for _ in $(seq 100); do [ -s ".killed.pks.partikel-tmp-$pid" ] && break; sleep 0.1; done
sleep 0.5
kill -KILL $pid; wait $pid 2>/dev/null
expect_text "the temporary is named" killed.err ".killed.pks.partikel-tmp-$pid"
check "recover a killed run" 0 particle-convert --recover ".killed.pks.partikel-tmp-$pid" recovered.pks
expect_text "recover says what it kept" err "complete frame"
check "recovered frames read" 0 particle-info recovered.pks
check "a later run names the abandoned temporary" 0 sph-step -i d.pks -o killed.pks --steps 1 --device cpu
expect_text "abandoned temporary named" err ".killed.pks.partikel-tmp-$pid: frames of an earlier run that did not finish"

finish
