#!/usr/bin/env bash
# No run destroys data it did not create (issue 24, class 1; docs/ARCHITECTURE.md, "How output
# files are written" and "What an interrupt keeps"), for every program and every flag naming a
# file:
#  - an output naming the same file as an input, or as another output, is a usage error (exit 2,
#    one line naming both flags) before anything is written; files are compared by what they
#    are, so "./x", a symbolic link, a hard link and standard output redirected onto a file are
#    caught, and so is a file of a numbered series (frames/%04d.exr, run_%T.csv) or a side file
#    (run.xmf); /dev/null may be named twice;
#  - a program that would fail after its first output checks first: splat-render refuses one
#    file for a pipe of several frames before writing it;
#  - SIGHUP is SIGINT's twin in every program: a simulation keeps its frames (HDF5 readable), a
#    converter leaves nothing; under nohup (SIGHUP ignored) the run goes on;
#  - a second SIGTERM while a run stops never deletes its frames: they stay in the temporary the
#    program names, and particle-convert --recover reads them;
#  - particle-convert with %T keeps the complete per-frame files of an interrupted run, as its
#    man page says, and no temporary.
source "$(dirname "$0")/lib.sh"
mkdir files && cd files || exit 1   # $work holds the logs (out, err): only the runs' files here

sph-init dam-break --dx 0.02 -q -o d.pks || { echo "FAIL making input"; exit 1; }
nbody-init plummer -n 300 --seed 3 -q -o p.pks || { echo "FAIL making input"; exit 1; }
printf '# made by hand\nquiet = true\n' > c.cfg
beam="--distribution waterbag --Z 18 --A 40 --energy 11.4e6 --intensity 2e10 --particles 500 --pipe-radius 0.075"
beam+=" --sc-kicks 2 --sc-grid 16,16"

# refused WHAT PATTERN FILE COMMAND...: exit 2, one line naming PATTERN, FILE unchanged, and no
# file in the directory that was not there before.
refused() {
  local what=$1 pattern=$2 file=$3
  shift 3
  local before sum
  before=$(ls -A | sort)
  sum=$(cat "$file" | md5sum)
  "$@" >"$work/out" 2>"$work/err" </dev/null
  local status=$?
  if [ $status -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q -F -- "$pattern" "$work/err"; then
    echo "FAIL $what: exit $status, expected 2 and one line with '$pattern':"; sed 's/^/  /' "$work/err" | head -3; fail=1
  fi
  [ "$(cat "$file" | md5sum)" = "$sum" ] || { echo "FAIL $what: $file was changed"; fail=1; }
  [ "$(ls -A | sort)" = "$before" ] || { echo "FAIL $what: left $(comm -13 <(echo "$before") <(ls -A | sort) | tr '\n' ' ')"; fail=1; }
}

# Every writer, every output flag, with the input's own name spelt four ways.
cp d.pks in.pks
ln -s in.pks link.pks
ln in.pks hard.pks
for spelling in in.pks ./in.pks link.pks hard.pks; do
  refused "sph-step -o $spelling" "--output must name another file than the input --input" in.pks \
    sph-step -i in.pks -o "$spelling" --steps 1 --device cpu
  refused "sph-step --diag $spelling" "--diag must name another file than the input --input" in.pks \
    sph-step -i in.pks -o x.pks --diag "$spelling" --steps 1 --device cpu
  refused "frnn-build -o $spelling" "--output must name another file than the input --input" in.pks \
    frnn-build -i in.pks -r 0.05 --device cpu -o "$spelling"
  refused "frnn-build --stats -o $spelling" "--output must name another file than the input --input" in.pks \
    frnn-build -i in.pks -r 0.05 --device cpu --stats -o "$spelling"
  refused "particle-convert $spelling" "OUTPUT must name another file than the input INPUT" in.pks \
    particle-convert in.pks "$spelling"
  refused "particle-convert -o $spelling" "--output must name another file than the input --input" in.pks \
    particle-convert -i in.pks -o "$spelling"
  refused "compare-results -o $spelling" "--output must name another file than the input A" in.pks \
    compare-results in.pks d.pks -o "$spelling"
  refused "splat-render -o $spelling" "--output must name another file than the input --input" in.pks \
    splat-render -i in.pks --style points --size 8x8 --device cpu -o "$spelling"
done
cp p.pks pin.pks
refused "nbody-run -o the input" "--output must name another file than the input --input" pin.pks \
  nbody-run -i pin.pks -o ./pin.pks --steps 1 --device cpu
refused "nbody-run --force-error -o the input" "--output must name another file than the input --input" pin.pks \
  nbody-run -i pin.pks --force-error 10 -o pin.pks --device cpu
refused "nbody-run --diag the input" "--diag must name another file than the input --input" pin.pks \
  nbody-run -i pin.pks -o x.pks --diag pin.pks --steps 1 --device cpu
pic-track $beam --steps 1 --device cpu -q -o beam.pks || { echo "FAIL making a beam"; fail=1; }
refused "pic-track -o the input" "--output must name another file than the input --input" beam.pks \
  pic-track -i beam.pks -o beam.pks --steps 1 --device cpu
printf 'drift d 1.0\n' > ring.lat
refused "pic-track -o the lattice" "--output must name another file than the input --lattice" ring.lat \
  pic-track $beam --lattice ring.lat --steps 1 --device cpu -o ring.lat
cp "$PARTIKEL_SOURCE_DIR/examples/avalanche/hillside.png" hill.png
refused "sph-init -o the terrain" "--output must name another file than the input --terrain" hill.png \
  sph-init avalanche --terrain hill.png --terrain-cell 0.5 --terrain-scale 0.01 -o hill.png
refused "sph-init -o the config" "--output must name another file than the input --config" c.cfg \
  sph-init dam-break --config c.cfg -o ./c.cfg
refused "nbody-init -o the config" "--output must name another file than the input --config" c.cfg \
  nbody-init plummer -n 10 --config c.cfg -o c.cfg

# Two outputs of one run naming one file (the issue's `sph-step -o s.pks --diag ./s.pks`), also
# before the file exists, and through an HDF5 output's XDMF side file.
for prog in "sph-step -i d.pks" "nbody-run -i p.pks" "pic-track $beam"; do
  name=${prog%% *}
  refused "$name -o s.pks --diag ./s.pks" "--diag must name another file than --output (./s.pks and s.pks" d.pks \
    $prog -o s.pks --diag ./s.pks --steps 2 --device cpu
  echo old > s.pks; ln -sf s.pks s-link.pks
  refused "$name -o s.pks --diag s-link.pks" "--diag must name another file than --output" s.pks \
    $prog -o s.pks --diag s-link.pks --steps 2 --device cpu
  rm -f s.pks s-link.pks
  refused "$name -o run.h5 --diag run.xmf" "--diag must name another file than --output (run.xmf" d.pks \
    $prog -o run.h5 --diag run.xmf --steps 2 --device cpu
done
# Standard output redirected onto the input (>>, which keeps the file): -o - is that file.
cp d.pks again.pks
sum=$(md5sum <again.pks)
sph-step -i again.pks --steps 1 --device cpu >>again.pks 2>"$work/err"; status=$?
[ $status -eq 2 ] && grep -q -- "--output must name another file than the input --input (standard output and again.pks" "$work/err" ||
  { echo "FAIL sph-step >> its input: exit $status: $(cat "$work/err")"; fail=1; }
[ "$(md5sum <again.pks)" = "$sum" ] || { echo "FAIL sph-step >> its input changed it"; fail=1; }
# Character devices may be named twice.
check "sph-step -o /dev/null --diag /dev/null" 0 sph-step -i d.pks -o /dev/null --diag /dev/null --steps 1 --device cpu -q

# Numbered series: every file of the pattern, for all frames, up front; previews too.
cp d.pks frame_0003.pks
refused "splat-render -o a pattern naming the input" "--output must name another file than the input --input (frame_0003.pks (of frame_%04d.pks)" frame_0003.pks \
  splat-render -i frame_0003.pks --style points --size 8x8 --device cpu -o frame_%04d.pks
printf '0 1 1 1 0 0 0\n' > view_12.png
refused "splat-render --preview naming the camera path" "--output must name another file than the input --camera-path (view_12.png (of view_%d.png)" view_12.png \
  splat-render -i d.pks --style points --size 8x8 --device cpu --preview -o view_%d.exr --camera-path view_12.png
particle-convert d.pks --groups fluid frame_000000.csv -q || { echo "FAIL making a CSV"; fail=1; }
refused "particle-convert %T naming the input" "OUTPUT must name another file than the input INPUT (frame_000000.csv (of frame_%T.csv)" frame_000000.csv \
  particle-convert frame_000000.csv frame_%T.csv
cp c.cfg c.xmf
refused "particle-convert's XDMF side file naming --config" "--output must name another file than the input --config (c.xmf and c.xmf" c.xmf \
  particle-convert --config c.xmf -i d.pks -o c.h5
cp d.pks c.pmd
refused "particle-convert's openPMD series file naming the input" "OUTPUT must name another file than the input INPUT (c.pmd and c.pmd" c.pmd \
  particle-convert c.pmd c.h5
cp d.pks v.vtk.series
refused "particle-convert's .vtk.series naming the input" "OUTPUT must name another file than the input INPUT (v.vtk.series and v.vtk.series" v.vtk.series \
  particle-convert v.vtk.series --groups fluid v_%T.vtk
cp c.cfg c_000000.h5
refused "particle-convert --file-based series naming --config" "--output must name another file than the input --config (c_000000.h5 (of c_%T.h5)" c_000000.h5 \
  particle-convert --config c_000000.h5 -i d.pks --file-based -o c.h5 --no-xdmf

# One file for several frames: refused before the file is written, also from a pipe.
cat d.pks d.pks > two.pks
check "splat-render one file, two frames from a pipe" 2 bash -c "cat two.pks | splat-render --style points --size 8x8 --device cpu -o one.exr"
expect_error "one file, two frames" splat-render "names one file, but the input has more than one frames"
[ -e one.exr ] && { echo "FAIL splat-render wrote one.exr before failing"; fail=1; }

# SIGHUP in every simulating program: as SIGINT (interrupt_run's checks), exit 129.
signal_run() {  # SIGNAL OUTPUT COMMAND...
  local signal=$1 output=$2
  shift 2
  "$@" 2>"$work/int.err" &
  local pid=$!
  for _ in $(seq 100); do ls -A | grep -q "$output.partikel-tmp" && break; sleep 0.1; done
  sleep 0.3
  kill -"$signal" $pid
  wait $pid
}
for prog in "sph-step -i d.pks --until 1000 --every-steps 5" "nbody-run -i p.pks --until 1e9 --every-steps 20" \
            "pic-track $beam --steps 100000000 --every-steps 50"; do
  name=${prog%% *}
  signal_run HUP hup.h5 $prog -o hup.h5 --device cpu
  status=$?
  [ $status -eq 129 ] || { echo "FAIL $name SIGHUP: exit $status, expected 129: $(tail -2 "$work/int.err")"; fail=1; }
  grep -q "interrupted by SIGHUP at step" "$work/int.err" || { echo "FAIL $name SIGHUP: no note: $(tail -2 "$work/int.err")"; fail=1; }
  particle-info hup.h5 >/dev/null 2>&1 || { echo "FAIL $name SIGHUP: hup.h5 unreadable"; fail=1; }
  ls -A | grep -q 'partikel-tmp' && { echo "FAIL $name SIGHUP left a temporary"; fail=1; }
  rm -f hup.h5 hup.xmf
done
# A converter: nothing left (its input still holds everything).
mkfifo feed
particle-convert -o conv.pks < feed 2>/dev/null &
pid=$!
exec 3>feed
cat d.pks d.pks d.pks >&3
for _ in $(seq 50); do ls -A | grep -q 'partikel-tmp' && break; sleep 0.1; done
kill -HUP $pid; wait $pid 2>/dev/null; status=$?
exec 3>&-
[ $status -eq 129 ] || { echo "FAIL particle-convert SIGHUP: exit $status, expected 129"; fail=1; }
ls -A | grep -E 'conv\.pks|partikel-tmp' && { echo "FAIL particle-convert SIGHUP left output"; fail=1; }
# Under nohup SIGHUP stays ignored: the run goes on until SIGINT.
(trap '' HUP; exec sph-step -i d.pks -o nohup.pks --until 1000 --every-steps 5 --device cpu 2>"$work/int.err") &
pid=$!
for _ in $(seq 100); do ls -A | grep -q "nohup.pks.partikel-tmp" && break; sleep 0.1; done
kill -HUP $pid; sleep 0.5
kill -0 $pid 2>/dev/null || { echo "FAIL sph-step under nohup stopped on SIGHUP"; fail=1; }
kill -INT $pid; wait $pid; status=$?
[ $status -eq 130 ] || { echo "FAIL sph-step under nohup, then SIGINT: exit $status"; fail=1; }

# A second signal while the run stops (SIGINT, then SIGTERM: both are delivered, in order, when
# the stopped process goes on): exit 143 at once, the frames stay in the temporary it names,
# and --recover reads them.
sph-step -i d.pks -o twice.pks --until 1000 --every-steps 1 --device cpu 2>"$work/int.err" &
pid=$!
for _ in $(seq 100); do [ -s ".twice.pks.partikel-tmp-$pid" ] && break; sleep 0.1; done
sleep 0.5
kill -STOP $pid; kill -INT $pid; kill -TERM $pid; kill -CONT $pid
wait $pid; status=$?
[ $status -eq 143 ] || { echo "FAIL second signal: exit $status, expected 143"; fail=1; }
kept=".twice.pks.partikel-tmp-$pid"
[ -e twice.pks ] && { echo "FAIL second signal: the run did not stop at once"; fail=1; }
[ -s "$kept" ] || { echo "FAIL second signal deleted the frames: $(cat "$work/int.err")"; fail=1; }
expect_text "second signal names what it kept" "$work/int.err" "second SIGTERM: stopped at once; the unfinished output stays in $kept"
check "the kept frames are recovered" 0 particle-convert --recover "$kept" recovered.pks
check "the recovered frames read" 0 particle-info recovered.pks
rm -f "$kept"

# particle-convert with %T, interrupted: the complete files stay, each readable; no temporary.
mkfifo feed2
particle-convert --groups fluid -t csv - "part_%T.csv" < feed2 2>/dev/null &
pid=$!
exec 3>feed2
sph-step -i d.pks --steps 3 --every-steps 1 --device cpu -q -o - >&3
for _ in $(seq 50); do ls part_*.csv >/dev/null 2>&1 && break; sleep 0.1; done
kill -INT $pid; wait $pid; status=$?
exec 3>&-
[ $status -eq 130 ] || { echo "FAIL particle-convert %T SIGINT: exit $status"; fail=1; }
for f in part_*.csv; do
  [ -e "$f" ] || { echo "FAIL particle-convert %T kept no complete file"; fail=1; break; }
  particle-info "$f" >/dev/null 2>&1 || { echo "FAIL $f (kept after SIGINT) unreadable"; fail=1; }
done
ls -A | grep -q 'partikel-tmp' && { echo "FAIL particle-convert %T left a temporary"; fail=1; }

finish
