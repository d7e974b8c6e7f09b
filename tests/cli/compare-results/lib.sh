# Helpers for the compare-results CLI cases: each case sources this, calls `check` per
# expectation and ends with `finish`.
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

finish() { exit $fail; }
