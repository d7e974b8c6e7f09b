#!/usr/bin/env bash
# Exit status 2 for trouble (like cmp), with one "compare-results: error:" line.
. "$(dirname "$0")/lib.sh"

printf 'a,b\n1,2\n' >t.csv
printf 'a,b\n1\n' >ragged.csv
printf '\x76\x2f\x31\x01 not an image' >broken.exr
printf '\x89PKS\r\n\x1a\n\x01' >truncated.pks

expect_trouble() {
  local what=$1
  shift
  check "$what" 2 compare-results "$@"
  if [ "$(wc -l <err)" -lt 1 ] || ! head -1 err | grep -q '^compare-results: error: '; then
    echo "FAIL $what: no 'compare-results: error:' line:"; sed 's/^/  /' err; fail=1
  fi
}
expect_trouble "missing file" t.csv missing.csv
expect_trouble "ragged table" t.csv ragged.csv
expect_trouble "broken EXR" broken.exr broken.exr
expect_trouble "truncated stream" truncated.pks truncated.pks
expect_trouble "table against image" t.csv broken.exr
expect_trouble "bad --tol" --tol density t.csv t.csv
expect_trouble "unknown key" --key turn t.csv t.csv
expect_trouble "bad flag" --no-such-flag t.csv t.csv
expect_trouble "one input" t.csv
check "--help" 0 compare-results --help
expect_text "--help" out "Exit status: 0 equal within tolerance, 1 different, 2 trouble."
finish
