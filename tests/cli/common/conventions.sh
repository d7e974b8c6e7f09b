#!/usr/bin/env bash
# Every program in build/bin follows the shared conventions (tools/common):
#   --help exits 0 with usage on stdout; --version names Partikel, the commit and backends;
#   an unknown flag exits 2 with one "prog: error: ..." line first on stderr;
#   a bad --device value exits 2; --log-format accepts only text and json.
set -u
bin="$PARTIKEL_BUILD_DIR/bin"
fail=0
count=0
for prog in "$bin"/*; do
  [ -x "$prog" ] || continue
  name=$(basename "$prog")
  count=$((count + 1))
  out=$("$prog" --help 2>/dev/null); rc=$?
  if [ $rc -ne 0 ] || ! grep -q -i "usage" <<<"$out"; then echo "FAIL $name --help: rc=$rc"; fail=1; fi
  widest=$(awk '{ print length }' <<<"$out" | sort -n | tail -1)
  if [ "${widest:-0}" -gt 100 ]; then echo "FAIL $name --help has a ${widest}-column line"; fail=1; fi
  out=$("$prog" --version 2>/dev/null); rc=$?
  if [ $rc -ne 0 ] || ! grep -q "(Partikel)" <<<"$out" || ! grep -q "^commit: " <<<"$out" || ! grep -q "^backends: cpu" <<<"$out" || ! grep -q "^gpu: " <<<"$out"; then
    echo "FAIL $name --version: rc=$rc: $out"; fail=1
  fi
  err=$("$prog" --no-such-flag 2>&1 >/dev/null); rc=$?
  if [ $rc -ne 2 ] || ! grep -q "^$name: error: " <<<"$(head -1 <<<"$err")"; then echo "FAIL $name bad flag: rc=$rc: $err"; fail=1; fi
  err=$("$prog" --log-format xml 2>&1 >/dev/null); rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL $name --log-format xml: rc=$rc"; fail=1; fi
  if "$prog" --help | grep -q -- "--device"; then
    err=$("$prog" --device gpu7 </dev/null 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 2 ] || ! grep -q "^$name: error: " <<<"$err"; then echo "FAIL $name --device gpu7: rc=$rc: $err"; fail=1; fi
  fi
done
if [ $count -eq 0 ]; then echo "FAIL no programs found in $bin"; exit 1; fi
echo "checked $count programs"
exit $fail
