#!/usr/bin/env bash
# Output safety shared by every program (core/io + tools/common), shown with particle-convert:
#  - SIGINT while writing: exit 130, nothing under the final name, no temporary left behind;
#  - the reader of our stdout exits early (SIGPIPE): we end quietly with status 141;
#  - binary output to a terminal is refused (exit 2) unless --force.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0

# Frames of 50,000 random particles (incompressible enough to overflow a pipe buffer).
awk 'BEGIN { print "id,position_x,position_y,position_z,density"; srand(7);
             for (i = 0; i < 50000; i++) printf "%d,%.6f,%.6f,%.6f,%.3f\n", i, rand(), rand(), rand(), 1000+rand() }' > block.csv
particle-convert block.csv block.pks || { echo "FAIL making input"; exit 1; }
for i in 1 2 3 4 5 6; do cat block.pks; done > frames.pks

# SIGINT: the input stays open (a FIFO held by this script), so the program waits with a
# partial output.
mkfifo input.fifo
particle-convert -o out.pks < input.fifo &
pid=$!
exec 3>input.fifo
cat frames.pks >&3
for _ in $(seq 50); do ls -A | grep -q 'partikel-tmp' && break; sleep 0.1; done
ls -A | grep -q 'partikel-tmp' || { echo "FAIL no temporary output appeared while writing"; fail=1; }
kill -INT $pid
wait $pid; rc=$?
exec 3>&-
[ $rc -eq 130 ] || { echo "FAIL SIGINT exit status $rc, expected 130"; fail=1; }
if ls -A | grep -E 'out\.pks|partikel-tmp' ; then echo "FAIL partial output left after SIGINT"; fail=1; fi

# SIGPIPE: head exits after a few bytes; we must exit 141 without an error message.
particle-convert frames.pks -t stream 2>err.txt | head -c 100 > /dev/null
rc=${PIPESTATUS[0]}
[ $rc -eq 141 ] || { echo "FAIL broken pipe exit status $rc, expected 141"; fail=1; }
[ -s err.txt ] && { echo "FAIL broken pipe printed: $(cat err.txt)"; fail=1; }

# A terminal on stdout: refused with a usage error, accepted with --force.
out=$(script -qec "particle-convert block.pks" /dev/null </dev/null); rc=$?
grep -q "particle-convert: error: refusing" <<<"$out" || { echo "FAIL terminal not refused: $out"; fail=1; }
[ $rc -eq 2 ] || { echo "FAIL terminal refusal exit status $rc, expected 2"; fail=1; }
script -qec "particle-convert --force block.pks" /dev/null </dev/null >/dev/null; rc=$?
[ $rc -eq 0 ] || { echo "FAIL --force to a terminal: exit $rc"; fail=1; }

[ $fail -eq 0 ] && echo "signals and terminal handling: ok"
exit $fail
