#!/usr/bin/env bash
# Every program through one abuse list (issue 12): missing, empty, truncated, bit-flipped and
# wrong-kind input files; NaN, infinite, negative and huge values for every numeric flag (read
# from each program's --help, so a new flag is covered without touching this script); a bad
# --config; a terminal on stdin. Each run must end with the documented status (2: usage,
# 1: bad data; compare-results: 2 for both, "trouble"), exactly one stderr line
# "PROG: error: ...", and no output or .partikel-tmp-* file left behind.
# Then, through tests/cli/abuse_outputs.sh: output kinds, a full disk and SIGINT.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export PATH="$PARTIKEL_BUILD_DIR/bin:$PATH"
runs=0

# --- inputs -----------------------------------------------------------------------------
in="$work/in"
mkdir "$in"
sph-init dam-break --dx 0.05 -q -o "$in/good.pks" || { echo "FAIL sph-init"; exit 1; }
size=$(stat -c %s "$in/good.pks")
: >"$in/empty.pks"
head -c $((size / 2)) "$in/good.pks" >"$in/truncated.pks"
cp "$in/good.pks" "$in/flipped.pks"
printf '\x5a' | dd of="$in/flipped.pks" bs=1 seek=$((size * 3 / 5)) conv=notrunc status=none
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR' >"$in/wrong-kind.pks"   # a PNG's first bytes
mkdir "$in/directory.pks"
# Configuration files: random bytes (fixed seed), an unknown flag, a line that is no assignment.
awk 'BEGIN { srand(12); for (i = 0; i < 512; ++i) printf "%c", int(rand() * 256) }' >"$in/random.cfg"
printf 'quiet = true\nno-such-flag = 1\n' >"$in/unknown.cfg"
printf '# a comment\n\nquiet\n' >"$in/no-value.cfg"

# --- one run ------------------------------------------------------------------------------
# attempt WHAT ALLOWED PATTERN PROG ARGS...: runs PROG in an empty directory with stdin from
# /dev/null; its status must be one of ALLOWED (space-separated). A failing run must print
# exactly one line "PROG: error: ...PATTERN" on stderr and leave the directory empty.
attempt() {
  local what=$1 allowed=$2 pattern=$3 prog=$4
  shift 4
  runs=$((runs + 1))
  rm -rf "$work/run"
  mkdir "$work/run"
  (cd "$work/run" && exec timeout 60 "$prog" "$@" </dev/null >"$work/out" 2>"$work/err")
  local status=$?
  case " $allowed " in
    *" $status "*) ;;
    *) echo "FAIL $prog $what: exit $status, expected one of {$allowed}"; sed 's/^/  stderr: /' "$work/err" | head -5
       fail=1; return ;;
  esac
  [ "$status" -eq 0 ] && return
  if [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q -F -- "$prog: error: " "$work/err" ||
     [ "$(cut -c1-$((${#prog} + 9)) "$work/err")" != "$prog: error: " ] ||
     ! grep -q -F -- "$pattern" "$work/err"; then
    echo "FAIL $prog $what: expected one line '$prog: error: ...$pattern', got:"; sed 's/^/  /' "$work/err" | head -5
    fail=1
  fi
  if [ -n "$(ls -A "$work/run")" ]; then
    echo "FAIL $prog $what: left behind: $(ls -A "$work/run" | tr '\n' ' ')"; fail=1
  fi
}

# --- the programs ---------------------------------------------------------------------------
# How each reads a particle file named INPUT (and writes into the run directory).
readers=(
  "particle-info INPUT"
  "particle-convert INPUT out.pks"
  "particle-convert INPUT out.h5"
  "frnn-build -i INPUT -r 0.1 --device cpu -o out.pks"
  "sph-step -i INPUT --steps 1 --device cpu -o out.pks"
  "nbody-run -i INPUT --steps 1 --device cpu -o out.pks"
  "pic-track -i INPUT --steps 1 --device cpu -o out.pks"
  "splat-render -i INPUT --size 16x16 --device cpu -o out_%04d.exr"
  "compare-results INPUT $in/good.pks"
)
# How each fails after parsing when every flag is accepted: a missing input or an unknown name.
declare -A base=(
  [particle-info]="$in/missing.pks"
  [particle-convert]="$in/missing.pks out.pks"
  [frnn-build]="--device cpu -i $in/missing.pks -o out.pks"
  [sph-step]="--device cpu -i $in/missing.pks -o out.pks"
  [nbody-run]="--device cpu -i $in/missing.pks -o out.pks"
  [pic-track]="--device cpu -i $in/missing.pks -o out.pks"
  [splat-render]="--device cpu -i $in/missing.pks -o out_%04d.exr"
  [compare-results]="$in/missing.pks $in/missing.pks"
  [sph-init]="no-such-scene -o out.pks"
  [nbody-init]="no-such-model -o out.pks"
)
data_error() { [ "$1" = compare-results ] && echo 2 || echo 1; }

programs=()
for prog in "$PARTIKEL_BUILD_DIR"/bin/*; do
  [ -x "$prog" ] && programs+=("$(basename "$prog")")
done
for name in "${programs[@]}"; do
  [ -n "${base[$name]+set}" ] || { echo "FAIL $name: not in this script's list of programs (add it)"; fail=1; }
done

# Bad input files.
for reader in "${readers[@]}"; do
  prog=${reader%% *}
  bad=$(data_error "$prog")
  for kind in missing empty truncated wrong-kind directory flipped; do
    args=${reader#* }
    args=${args//INPUT/$in/$kind.pks}
    allowed=$bad
    # A flip may land where nothing checks it (a value); it must never crash.
    [ $kind = flipped ] && allowed="0 $bad"
    # shellcheck disable=SC2086
    attempt "$kind input" "$allowed" "" $prog $args
  done
done

# Bad configuration files, every program.
for prog in "${programs[@]}"; do
  attempt "--config random bytes" 2 "random.cfg:1: " "$prog" --config "$in/random.cfg"
  attempt "--config unknown flag" 2 "unknown.cfg:2: unknown flag 'no-such-flag'" "$prog" --config "$in/unknown.cfg"
  attempt "--config line without value" 2 "no-value.cfg:3: expected 'flag = value'" "$prog" --config "$in/no-value.cfg"
  attempt "--config missing" 2 "missing.cfg" "$prog" --config "$in/missing.cfg"
done

# Every numeric flag: NaN, infinity and numbers beyond the type are usage errors naming the flag;
# negative and huge values are either refused (one line) or accepted (then the base arguments
# fail).
for prog in "${programs[@]}"; do
  flags=$("$prog" --help | awk '
    match($0, /^  (-[A-Za-z0-9],)?--[A-Za-z0-9-]+(,--[A-Za-z0-9-]+)* (FLOAT|INT|UINT)/) {
      spec = substr($0, 3, RLENGTH - 2)
      split(spec, parts, " "); n = split(parts[1], names, ",")
      long = ""; for (i = 1; i <= n; ++i) if (names[i] ~ /^--/ && long == "") long = names[i]
      count = 1; if (match($0, / x [0-9]+/)) count = substr($0, RSTART + 3, RLENGTH - 3)
      print long, parts[2], count
    }')
  [ -n "$flags" ] || [ "$prog" = particle-info ] || { echo "FAIL $prog: no numeric flag found in --help"; fail=1; }
  while read -r flag type count; do
    [ -n "$flag" ] || continue
    # COUNT values "V,0,0": the bad one first.
    value() { local v=$1; for ((k = 1; k < count; ++k)); do v+=",0"; done; echo "$v"; }
    if [ "$type" = FLOAT ]; then
      for v in nan inf; do
        # shellcheck disable=SC2086
        attempt "$flag $v" 2 "$flag must be a finite number (got $v)" "$prog" ${base[$prog]} "$flag=$(value $v)"
      done
      # shellcheck disable=SC2086
      attempt "$flag 1e39" 2 "$flag must be between -3.402823466e+38 and 3.402823466e+38 (got 1e39)" "$prog" \
        ${base[$prog]} "$flag=$(value 1e39)"
      for v in -1 1e30; do
        # shellcheck disable=SC2086
        attempt "$flag $v" "1 2" "" "$prog" ${base[$prog]} "$flag=$(value $v)"
      done
    else
      for v in nan 99999999999999999999999; do
        # shellcheck disable=SC2086
        attempt "$flag $v" 2 "$flag" "$prog" ${base[$prog]} "$flag=$(value $v)"
      done
      for v in -1 2147483648; do
        # shellcheck disable=SC2086
        attempt "$flag $v" "1 2" "" "$prog" ${base[$prog]} "$flag=$(value $v)"
      done
    fi
  done <<<"$flags"
done

# A terminal on stdin: every reader of particles refuses it with a hint instead of waiting.
# `script` gives the program a pseudo-terminal (as CI has none); its output is the terminal's.
terminal=(
  "particle-info"
  "particle-convert -o out.pks"
  "frnn-build -r 0.1 --device cpu -o out.pks"
  "sph-step --steps 1 --device cpu -o out.pks"
  "nbody-run --steps 1 --device cpu -o out.pks"
  "pic-track --steps 1 --device cpu -o out.pks"
  "splat-render --device cpu -o out_%04d.exr"
  "compare-results - $in/good.pks"
)
for command in "${terminal[@]}"; do
  prog=${command%% *}
  runs=$((runs + 1))
  rm -rf "$work/run"
  mkdir "$work/run"
  (cd "$work/run" && timeout 20 script -qec "$command" /dev/null >"$work/out" 2>&1)
  status=$?
  tr -d '\r' <"$work/out" >"$work/err"
  if [ $status -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] ||
     ! grep -q "^$prog: error: refusing to read particle data from a terminal" "$work/err"; then
    echo "FAIL $prog on a terminal: exit $status (124: it waited), expected 2 and one line:"
    sed 's/^/  /' "$work/err" | head -5
    fail=1
  fi
  [ -z "$(ls -A "$work/run")" ] || { echo "FAIL $prog on a terminal left $(ls -A "$work/run")"; fail=1; }
done

echo "$runs runs of ${#programs[@]} programs"

# --- outputs ------------------------------------------------------------------------------
# The second half of the list, for every program that writes: a FIFO, a symlink and character
# devices as outputs, a full disk, SIGINT in the middle of a run (its own script, run from here
# so that this one script goes through the whole list).
bash "$PARTIKEL_SOURCE_DIR/tests/cli/abuse_outputs.sh" || fail=1
finish
