# Helpers for the frnn-build CLI cases: tests/cli/lib.sh plus inputs made with particle-convert
# from CSV text.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

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

