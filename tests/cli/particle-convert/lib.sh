# Helpers for the particle-convert and particle-info CLI tests: each script runs in a fresh
# directory, `check` records the exit status and stdout/stderr in ./out and ./err.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/partikel-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
data="$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/data"
py=/usr/bin/python3   # Debian's, with numpy and h5py

# check WHAT EXPECTED_STATUS command...
check() {
  local what=$1 want=$2
  shift 2
  "$@" >out 2>err
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL $what: exit $rc, expected $want"; sed 's/^/  stderr: /' err | head -5; fail=1
  fi
}

# expect_error WHAT PROGRAM PATTERN: stderr starts with one line "PROGRAM: error: ..." matching
# PATTERN (usage errors may add a "Run ... --help" hint line).
expect_error() {
  local what=$1 prog=$2 pattern=$3
  if [ "$(wc -l <err)" -gt 2 ] || ! head -1 err | grep -q "^$prog: error: .*$pattern"; then
    echo "FAIL $what: expected one '$prog: error: ...$pattern' line, got:"; sed 's/^/  /' err; fail=1
  fi
}

# expect_text WHAT FILE TEXT: FILE contains the fixed string TEXT.
expect_text() {
  if ! grep -qF -- "$3" "$2"; then echo "FAIL $1: '$3' not in $2:"; sed 's/^/  /' "$2" | head -20; fail=1; fi
}

finish() {
  [ $fail -eq 0 ] && echo "ok"
  exit $fail
}
