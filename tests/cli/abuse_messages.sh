#!/usr/bin/env bash
# Messages a user can act on (issue 24, class 4), for every program:
#  - every flag, given without its value or twice (a flag: with a value), fails with one line
#    "PROG: error: ..." in the README's "--flag must ..." form naming that flag, never CLI11's
#    own text ("At Most 1 required but received 2", "Could not convert", "not in {...}");
#  - a number beyond float's range says the bound ("must be between -3.4e+38 and ..."), not
#    "must be a finite number (got 1.7e308)";
#  - no advice to use flags the program does not have (frnn's grid limits reached from
#    sph-step and splat-render), no "camera up vector is parallel" without a camera flag;
#  - a missing $TMPDIR is named as such; an echoed 10 MB CSV field or config line is cut short;
#  - "-o -" is standard output wherever "-" is an input (splat-render's images, CSV and HDF5);
#  - particle-convert's man page example, a hand-written CSV piped into nbody-run, works.
source "$(dirname "$0")/lib.sh"

sph-init dam-break --dx 0.02 -q -o d.pks || { echo "FAIL making input"; exit 1; }
raw='At Most|At least|required but received|Could not convert|not in \{|was not readable|The following argument|is required|excludes|required [A-Z]+.* missing|not in range|Value '

# one_line WHAT PROG [PATTERN]: the last run's stderr is one "PROG: error: " line, containing
# PATTERN (grep -E) and none of CLI11's phrases.
one_line() {
  local what=$1 prog=$2 pattern=${3:-}
  if [ "$(wc -l <"$work/err")" -ne 1 ] || ! head -1 "$work/err" | grep -q "^$prog: error: " ||
     grep -q -E "$raw" "$work/err" || { [ -n "$pattern" ] && ! grep -q -E -- "$pattern" "$work/err"; }; then
    echo "FAIL $what: expected one '$prog: error: ...${pattern}' line in our words, got:"; sed 's/^/  /' "$work/err" | head -3
    fail=1
  fi
}

runs=0
for path in "$PARTIKEL_BUILD_DIR"/bin/*; do
  prog=$(basename "$path")
  # Every option of --help (value-taking ones: "--name TYPE").
  options=$("$prog" --help | awk 'match($0, /^  (-[A-Za-z0-9],)?--[A-Za-z0-9-]+(,--[A-Za-z0-9-]+)*( [A-Z]|$)/) {
      n = split(substr($0, 3, RLENGTH - 2), w, /[ ,]/); for (i = 1; i <= n; ++i) if (w[i] ~ /^--/) { print w[i], ($0 ~ "^  [^ ]+ [A-Z]") ? "value" : "flag"; break } }')
  while read -r flag kind; do
    case $flag in --help|--version|--list|--search-cells|--print-lattice|"") continue ;; esac
    [ "$prog $flag" = "frnn-build --check" ] && kind=flag   # its value is optional
    if [ "$kind" = value ]; then
      runs=$((runs + 2))
      "$prog" "$flag" </dev/null >/dev/null 2>"$work/err"
      [ $? -eq 2 ] || { echo "FAIL $prog $flag without a value: not a usage error"; fail=1; }
      one_line "$prog $flag without a value" "$prog" "$flag must be followed by"
      "$prog" "$flag" 1 "$flag" 1 </dev/null >/dev/null 2>"$work/err"
      # Repeatable and list options accept it (then something else is missing); a scalar says once.
      [ $? -eq 2 ] && one_line "$prog $flag given twice" "$prog"
    else
      runs=$((runs + 1))
      "$prog" "$flag=maybe" </dev/null >/dev/null 2>"$work/err"
      [ $? -eq 2 ] || { echo "FAIL $prog $flag=maybe: not a usage error"; fail=1; }
      one_line "$prog $flag=maybe" "$prog" "$flag"
    fi
  done <<<"$options"
  "$prog" --config "$work/missing.cfg" </dev/null >/dev/null 2>"$work/err"
  one_line "$prog --config missing" "$prog" "--config .*missing.cfg: cannot read: No such file"
done
echo "$runs flag runs"
# CLI11's errors, each in our words.
check "a scalar given twice" 2 nbody-init plummer -n 10 -n 20 -o x.pks
one_line "a scalar given twice" nbody-init "--bodies must be given once \(got 2 values\)"
check "a flag with a value" 2 sph-init dam-break --quiet=abc -o x.pks
one_line "a flag with a value" sph-init "--quiet takes no value \(got 'abc'\)"
check "a word not in the list" 2 nbody-run --units foo
one_line "a word not in the list" nbody-run "--units must be nbody or astro \(got 'foo'\)"
check "two flags that exclude each other" 2 frnn-build -r 1 --radius-column x
one_line "two flags that exclude each other" frnn-build "give --radius or --radius-column, not both"
check "a stray argument" 2 particle-convert a b c
one_line "a stray argument" particle-convert "unexpected argument 'c'"
check "too few values" 2 splat-render --eye 1,2 -o x.exr
one_line "too few values" splat-render "--eye must be 3 comma-separated values \(got 2\)"
check "a bad device" 2 sph-step --device gpu7
one_line "a bad device" sph-step "--device must be auto, cpu, cuda or cuda:N \(got 'gpu7'\)"

# Beyond float's range: the bound is said.
check "--dx 1.7e308" 2 sph-init dam-break --dx 1.7e308 -o x.pks
one_line "--dx 1.7e308" sph-init "--dx must be between -3.402823466e\+38 and 3.402823466e\+38 \(got 1.7e308\)"

# frnn's grid limits, reached from programs that chose the radius for the user: their own words.
check "sph-step, a domain too large for h" 2 bash -c "sph-init box --box 0,0,0,0.1,0.1,0.1 --domain 0,0,0,1e7,1e7,1e7 --dx 0.05 -q | sph-step --steps 1 --device cpu -o x.pks"
one_line "sph-step grid" sph-step "sph\.domain_min.*--dx.*grid-subdivision"
grep -q -- "lower k\|--radius" "$work/err" && { echo "FAIL sph-step relays frnn-build's advice: $(cat "$work/err")"; fail=1; }
printf '# group: fluid\nx,y,z\n0,0,0\n1e9,0,0\n0.001,0,0\n' | particle-convert - far.pks -q
check "splat-render, a fluid spread too far" 2 splat-render -i far.pks --smoothing-length 0.001 --size 16x16 --device cpu -q -o x.exr
one_line "splat-render grid" splat-render "--smoothing-length"
grep -q -- "lower k\|--radius\|--domain" "$work/err" && { echo "FAIL splat-render relays frnn-build's advice: $(cat "$work/err")"; fail=1; }
# No camera flag: a fitted camera never blames the up vector.
for coords in "1e38 -1e38" "1e30 1.000001e30" "0 1e-30" "0 1e20"; do
  set -- $coords
  printf 'x,y,z\n%s,0,0\n%s,0,0\n' "$1" "$2" | particle-convert - span.pks -q
  splat-render -i span.pks --style points --size 16x16 --device cpu -q -o span.exr 2>"$work/err"
  case $? in
    0) ;;
    2) one_line "camera fitted to $coords" splat-render "cannot fit the camera to its particles.*--eye and --target"
       grep -q "parallel" "$work/err" && { echo "FAIL camera fitted to $coords blames the up vector"; fail=1; } ;;
    # Beyond +-1e18 m every reader refuses the particle itself (bad data), naming it.
    1) one_line "coordinates $coords" splat-render "span.pks: frame 0, group 'particles': particle . at .* lies beyond \+-1e18 m" ;;
    *) echo "FAIL splat-render fitted to $coords: $(cat "$work/err")"; fail=1 ;;
  esac
done

# A missing $TMPDIR, where a program stages HDF5 for standard output, is named.
check "TMPDIR missing" 1 env TMPDIR=/nonexistent/tmp particle-convert d.pks -t h5 -o - -f
one_line "TMPDIR missing" particle-convert '\$TMPDIR \(/nonexistent/tmp\): No such file or directory'

# Echoes of huge fields are cut.
awk 'BEGIN { printf "x,y,z\n1,2,"; for (i = 0; i < 1000000; ++i) printf "A"; printf "\n" }' > huge.csv
check "a 1 MB CSV field" 1 particle-convert huge.csv x.pks
one_line "a 1 MB CSV field" particle-convert '"AAAA.*\.\.\." \(1000000 bytes\)'
[ "$(wc -c <"$work/err")" -lt 1000 ] || { echo "FAIL the CSV field is echoed whole ($(wc -c <"$work/err") bytes)"; fail=1; }
awk 'BEGIN { printf "quiet = true\n"; for (i = 0; i < 1000000; ++i) printf "B"; printf "\n" }' > huge.cfg
check "a 1 MB config line" 2 sph-init dam-break --config huge.cfg -o x.pks
[ "$(wc -c <"$work/err")" -lt 1000 ] || { echo "FAIL the config line is echoed whole ($(wc -c <"$work/err") bytes)"; fail=1; }

# -o - is standard output: images, CSV, HDF5.
check "splat-render -o -" 0 bash -c "splat-render -i d.pks --style points --size 16x16 --device cpu -q -o - > img.exr"
[ "$(head -c 4 img.exr | od -An -tx1 | tr -d ' ')" = "762f3101" ] || { echo "FAIL splat-render -o - wrote no EXR to stdout"; fail=1; }
[ -e ./- ] && { echo "FAIL splat-render -o - made a file named '-'"; fail=1; }
check "splat-render -o - --preview" 2 bash -c "splat-render -i d.pks --style points --size 16x16 --device cpu -q --preview -o - > img.exr"
check "particle-convert -t csv -o -" 0 bash -c "particle-convert d.pks --groups fluid -t csv -o - > fluid.csv"
check "the CSV from stdout reads back" 0 particle-info fluid.csv
check "particle-convert -t h5 -o -" 0 bash -c "particle-convert d.pks -t h5 -o - > all.h5"
check "the HDF5 from stdout reads back" 0 particle-info all.h5

# particle-convert(1)'s example, as written there.
example=$(sed -n '/hand-written table/,/^\.fi/p' "$PARTIKEL_SOURCE_DIR/man/man1/particle-convert.1" | sed -n '/^\.nf/,/^\.fi/p' |
          sed '1d;$d' | sed 's/\\-/-/g; s/\\\\/\\/g')
[ -n "$example" ] || { echo "FAIL the man page example was not found"; fail=1; }
check "particle-convert(1)'s CSV example" 0 bash -c "set -o pipefail; $example"

finish
