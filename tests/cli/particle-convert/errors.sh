#!/usr/bin/env bash
# particle-convert failures: one "particle-convert: error:" line, exit 1 for bad input, 2 for
# bad usage; no partial output is left behind; binary data is not written to a terminal.
. "$(dirname "$0")/lib.sh"

particle-convert "$data/sample.csv" good.pks
head -c 200 good.pks > truncated.pks
check "truncated stream" 1 particle-convert truncated.pks out.pks
expect_error "truncated stream" particle-convert "truncated.pks: .*truncated"
[ -e out.pks ] && { echo "FAIL partial output left behind"; fail=1; }
check "truncated stream on stdin" 1 sh -c 'particle-convert < truncated.pks > /dev/null'
expect_error "truncated stream on stdin" particle-convert "<stdin>: .*truncated"
printf 'not particles at all\0\1' > junk.bin
check "unknown magic" 1 particle-convert junk.bin out.pks
expect_error "unknown magic" particle-convert "unknown magic"
check "missing file" 1 particle-convert missing.pks out.pks
expect_error "missing file" particle-convert "missing.pks"
check "bad flag" 2 particle-convert --no-such-flag
expect_error "bad flag" particle-convert ""
check "bad frames" 2 particle-convert --frames 1:x good.pks out.pks
expect_error "bad frames" particle-convert "--frames must be frame indices"
check "missing column" 2 particle-convert --columns nope good.pks out.pks
expect_error "missing column" particle-convert 'no column "nope"'
check "unknown extension" 2 particle-convert good.pks out.xyz
expect_error "unknown extension" particle-convert 'unknown output extension ".xyz"'
# Standard output carries the format --to names, as standard input carries CSV.
check "csv to stdout" 0 particle-convert --to csv good.pks -
expect_text "csv to stdout" "$work/out" "position_x,position_y,position_z,velocity_x"
check "bad level" 2 particle-convert -l 40 good.pks out.pks
expect_error "bad level" particle-convert "--level must be in -7..22 (got 40)"
check "terminal" 2 script -qec "particle-convert $data/sample.csv" /dev/null
if ! grep -q "particle-convert: error: refusing to write binary" out; then echo "FAIL terminal refusal:"; cat out; fail=1; fi
check "--force writes to a terminal" 0 script -qec "particle-convert --force --no-compress $data/sample.csv > /dev/null" /dev/null
check "help" 0 particle-convert --help
expect_text "help lists --frames" out "--frames"
check "version" 0 particle-convert --version
expect_text "version" out "Partikel"
finish
