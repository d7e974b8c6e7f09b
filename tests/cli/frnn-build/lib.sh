# Helpers for the frnn-build CLI cases: each case sources this, calls `check` per expectation
# and ends with `finish`. Inputs are made with particle-convert from CSV text.
set -u
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# check DESCRIPTION EXPECTED_STATUS COMMAND...: runs COMMAND, keeps stdout/stderr in
# $work/out and $work/err, and records a failure when the status differs.
check() {
  local what=$1 expected=$2
  shift 2
  "$@" >"$work/out" 2>"$work/err"
  local status=$?
  if [ "$status" -ne "$expected" ]; then
    echo "FAIL $what: exit $status, expected $expected"
    sed 's/^/  stdout: /' "$work/out" | head -20
    sed 's/^/  stderr: /' "$work/err" | head -5
    fail=1
  fi
}

# expect_text DESCRIPTION FILE PATTERN: FILE must contain the fixed string PATTERN.
expect_text() {
  if ! grep -q -F -- "$3" "$2"; then
    echo "FAIL $1: '$3' not in $2:"
    sed 's/^/  /' "$2" | head -20
    fail=1
  fi
}

# expect_lines DESCRIPTION FILE N: FILE has exactly N lines.
expect_lines() {
  local got
  got=$(wc -l <"$2")
  if [ "$got" -ne "$3" ]; then
    echo "FAIL $1: $2 has $got lines, expected $3"
    sed 's/^/  /' "$2" | head -10
    fail=1
  fi
}

# particles FILE N SEED [SCALE]: N random particles in [0, SCALE)^3 as a stream file.
particles() {
  awk -v n="$2" -v seed="$3" -v s="${4:-1}" 'BEGIN { srand(seed); print "position_x,position_y,position_z";
    for (i = 0; i < n; i++) printf "%.6f,%.6f,%.6f\n", s * rand(), s * rand(), s * rand() }' >"$work/in.csv"
  particle-convert "$work/in.csv" -o "$1" || { echo "FAIL: particle-convert could not make $1"; exit 1; }
}

finish() { exit $fail; }
