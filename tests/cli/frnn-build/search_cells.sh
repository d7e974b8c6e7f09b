#!/usr/bin/env bash
# --search-cells prints Nitta (2019)'s table exactly, for all k and for one k.
. "$PARTIKEL_SOURCE_DIR/tests/cli/frnn-build/lib.sh"

check "search-cells" 0 frnn-build --search-cells
cat >"$work/want" <<'TABLE'
k  cell_edge  full   cube   sphere  (cells searched per particle; Nitta 2019)
0  r/1        27     27     27
1  r/2        216    125    125
2  r/4        1728   729    613
3  r/8        13824  4913   3449
TABLE
if ! diff -u "$work/want" "$work/out"; then echo "FAIL search-cells table"; fail=1; fi

check "search-cells -k 2" 0 frnn-build --search-cells -k 2
expect_text "one k" "$work/out" "k 2: full 1728, cube 729, sphere 613"
check "search-cells -k 4 is a usage error" 2 frnn-build --search-cells -k 4
finish
