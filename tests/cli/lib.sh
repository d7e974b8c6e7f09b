# Shared helpers for the CLI tests: each case sources this (through its area's lib.sh or
# directly), runs in a fresh directory, calls `check` per expectation and ends with `finish`.
set -u
fail=0
work=$(mktemp -d "${TMPDIR:-/tmp}/partikel-cli.XXXXXX")
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
    # compare-results: the rows that differ, wherever they are in a long report.
    awk 'NR > 20 && (/ DIFF$/ || /^step / || /^(DIFFERENT|NOTHING)/)' "$work/out" | head -30 | sed 's/^/  stdout: /'
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

# expect_error DESCRIPTION PROGRAM PATTERN: stderr starts with one line "PROGRAM: error: ..."
# matching PATTERN (usage errors may add a "Run ... --help" hint line).
expect_error() {
  local what=$1 prog=$2 pattern=$3
  if [ "$(wc -l <"$work/err")" -gt 2 ] || ! head -1 "$work/err" | grep -q "^$prog: error: .*$pattern"; then
    echo "FAIL $what: expected one '$prog: error: ...$pattern' line, got:"; sed 's/^/  /' "$work/err"; fail=1
  fi
}

# interrupt_run OUTPUT COMMAND...: starts a simulating COMMAND that writes OUTPUT, sends SIGINT
# once its temporary output exists, and expects the graceful stop: exit 130, the note
# "interrupted by SIGINT at step" in $work/int.err, no temporary left behind.
interrupt_run() {
  local output=$1
  shift
  "$@" 2>"$work/int.err" &
  local pid=$!
  for _ in $(seq 100); do ls -A | grep -q "$output.partikel-tmp" && break; sleep 0.1; done
  sleep 0.5
  kill -INT $pid
  wait $pid
  local rc=$?
  [ $rc -eq 130 ] || { echo "FAIL SIGINT exit status $rc, expected 130: $(cat "$work/int.err")"; fail=1; }
  grep -q "interrupted by SIGINT at step" "$work/int.err" || { echo "FAIL no interrupt note: $(cat "$work/int.err")"; fail=1; }
  if ls -A | grep -q "$output.partikel-tmp"; then echo "FAIL a temporary is left after SIGINT"; fail=1; fi
}

finish() {
  [ $fail -eq 0 ] && echo "ok"
  exit $fail
}

# For the programs under mpirun: `mpi ARGS...` runs mpirun oversubscribed (the test machines
# have 2 cores) under a timeout, without mpirun's own notes on a rank's non-zero exit, so that
# our one line is all of stderr; expect_last_error DESCRIPTION PATTERN: rank 0's log ($prog's,
# set by the caller) ends with one error line holding PATTERN, after its info lines, and no
# other rank printed anything.
mpi() { timeout 300 mpirun --quiet --oversubscribe --allow-run-as-root "$@"; }
expect_last_error() {
  # OpenMPI 4.1's libevent may warn about a closed descriptor while the job ends ("[warn] Epoll
  # MOD(1) on fd 26 failed"): launcher noise, not ours.
  sed -i '/^\[warn\] Epoll /d' "$work/err"
  if [ "$(grep -c "^$prog: error: " "$work/err")" -ne 1 ] || [ "$(grep -vc "^$prog: " "$work/err")" -ne 0 ] ||
     ! tail -1 "$work/err" | grep -qF -- "$2"; then
    echo "FAIL $1: expected one last '$prog: error: ...$2' line, got:"; sed 's/^/  /' "$work/err"; fail=1
  fi
}
