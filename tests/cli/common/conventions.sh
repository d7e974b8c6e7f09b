#!/usr/bin/env bash
# Every program in build/bin follows the shared conventions (tools/common):
#   --help exits 0 with usage on stdout (terminal.sh checks its width); --version names
#   Partikel, the commit and backends;
#   an unknown flag exits 2 with one "prog: error: ..." line first on stderr;
#   a bad --device value exits 2; --log-format accepts only text and json; no positional is
#   named like a long option.
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
  # No positional is named like a long option: CLI11 2.4 refuses that at start-up
  # (particle-convert once named its positional "input" next to --input; Debian 12's CLI11 2.3
  # accepts it, so this checks the names instead).
  clash=$(awk '/^Positionals:/ { p = 1; next } /^[A-Z][a-z]*:/ { p = 0 }
               p && NF { print "pos " $1 }
               { for (i = 1; i <= NF; ++i) { n = split($i, f, ","); for (j = 1; j <= n; ++j)
                   if (f[j] ~ /^--[a-z]/) { o = f[j]; sub(/^--/, "", o); sub(/[^a-z0-9-].*$/, "", o); print "opt " o } } }' <<<"$out" |
          awk '$1 == "pos" { pos[$2] = 1 } $1 == "opt" { opt[$2] = 1 } END { for (n in pos) if (n in opt) print n }')
  if [ -n "$clash" ]; then echo "FAIL $name: positional named like an option: $clash"; fail=1; fi
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
    # PARTIKEL_DEVICE is --device's default, validated the same way; the flag wins.
    err=$(PARTIKEL_DEVICE=gpu7 "$prog" </dev/null 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 2 ] || ! grep -q "^$name: error: PARTIKEL_DEVICE: " <<<"$err"; then echo "FAIL $name PARTIKEL_DEVICE=gpu7: rc=$rc: $err"; fail=1; fi
  fi
done
if [ $count -eq 0 ]; then echo "FAIL no programs found in $bin"; exit 1; fi
echo "checked $count programs"
exit $fail
