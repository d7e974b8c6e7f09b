#!/usr/bin/env bash
# A comparison says what it compared (issue 24, class 3): a name in --columns, --ignore,
# --tol NAME=... or --id-column that neither input has is a usage error (2), for particle files,
# tables and images alike; a comparison that compared no value (every column ignored, groups
# without columns) is trouble (2), and its JSON says nothing_compared; a table header naming a
# column twice is trouble, not DIFFERENT; 64-bit integer vector columns compare exactly.
. "$(dirname "$0")/lib.sh"
export PARTIKEL_DEVICE=cpu

# usage WHAT PATTERN ARGS...: exit 2 and one line "compare-results: error: ...PATTERN".
usage() {
  local what=$1 pattern=$2
  shift 2
  check "$what" 2 compare-results "$@"
  expect_error "$what" compare-results "$pattern"
}

sph-init dam-break --dx 0.05 -q -o a.pks || { echo "FAIL sph-init"; exit 1; }
printf 'turn,energy,note\n0,1.5,x\n1,1.25,y\n' >t.csv
splat-render -i a.pks --style points --size 8x8 -q -o i.exr || { echo "FAIL splat-render"; exit 1; }

# --- names the inputs do not have: usage errors, for every kind ------------------------------
usage "particles --columns typo" "--columns postion: no column of that name in A or B (they have" a.pks a.pks --columns postion
expect_text "the names it has" err "position"
usage "particles --ignore typo" "--ignore postion: no column" a.pks a.pks --ignore postion
usage "particles --tol typo" "--tol postion: no column" a.pks a.pks --tol postion=1e-3
usage "particles --tol GROUP/typo" "--tol fluid/postion: no column" a.pks a.pks --tol fluid/postion=1e-3
check "particles --tol GROUP/NAME" 0 compare-results a.pks a.pks --tol fluid/position=1e-3
usage "particles --id-column typo" "--id-column ID: no column" a.pks a.pks --id-column ID
check "particles --id-column present" 0 compare-results a.pks a.pks --id-column id
usage "table --columns typo" "--columns enrgy: no column" t.csv t.csv --columns enrgy
usage "table --tol typo" "--tol enrgy: no column" t.csv t.csv --tol enrgy=1
usage "table --id-column" "--id-column pairs particles" t.csv t.csv --id-column turn
usage "image --columns typo" "--columns Q: no channel of that name in A or B" i.exr i.exr --columns Q
usage "image --ignore typo" "--ignore Q: no channel" i.exr i.exr --ignore Q

# --- nothing compared is trouble, and the JSON says so -------------------------------------------
columns=$(particle-info a.pks | awk '$1 ~ /^[a-z_]+$/ && ($2 ~ /^[fiu][0-9]/) { print $1 }' | sort -u | paste -sd,)
[ -n "$columns" ] || { echo "FAIL no column names from particle-info"; fail=1; }
check "particles, every column ignored" 2 compare-results a.pks a.pks --ignore "$columns"
expect_error "particles, every column ignored" compare-results "nothing in common to compare"
check "particles, every column ignored, JSON" 2 compare-results a.pks a.pks --ignore "$columns" --json
expect_text "JSON nothing_compared" out '"nothing_compared":true'
check "particles, every column ignored, --stats" 2 compare-results a.pks a.pks --ignore "$columns" --stats
check "table, every column ignored" 2 compare-results t.csv t.csv --ignore turn,energy,note
check "table, keys only" 2 compare-results t.csv t.csv --key turn --ignore energy,note
channels=$(compare-results i.exr i.exr --json | "${PYTHON:-/usr/bin/python3}" -c \
  'import json, sys; print(",".join(c["name"] for c in json.load(sys.stdin)["sections"][0]["columns"]))')
check "image, every channel ignored" 2 compare-results i.exr i.exr --ignore "$channels"
# Groups of particles without columns: rows paired, no value compared.
particle-convert a.pks --groups fluid --columns position -q -o fluid.pks
"${PYTHON:-/usr/bin/python3}" "$PARTIKEL_SOURCE_DIR/tests/cli/craft_stream.py" fluid.pks ghost.pks --empty-group ghost:5
particle-convert ghost.pks --groups ghost -q -o only-ghost.pks
check "groups without columns" 2 compare-results only-ghost.pks only-ghost.pks
expect_error "groups without columns" compare-results "but no column of them"
check "a column-less group beside compared ones" 0 compare-results ghost.pks ghost.pks
check "the same, JSON" 0 compare-results ghost.pks ghost.pks --json
expect_text "JSON nothing_compared false" out '"nothing_compared":false'

# --- duplicate column names in one input ------------------------------------------------------
printf 'a,a\n1,2\n' >dup.csv
check "a header naming a column twice" 2 compare-results dup.csv dup.csv
expect_error "a header naming a column twice" compare-results "dup.csv: line 1: the header names column 'a' twice"

# --- 64-bit integer vector columns compare exactly ----------------------------------------------
printf 'cell_x:u64,cell_y:u64,cell_z:u64\n1152921504606846976,7,9\n' >k1.csv
printf 'cell_x:u64,cell_y:u64,cell_z:u64\n1152921504606846977,7,9\n' >k2.csv
particle-convert k1.csv -q -o k1.pks && particle-convert k2.csv -q -o k2.pks
check "u64 x 3 differing in the lowest bit" 1 compare-results k1.pks k2.pks
expect_text "u64 x 3 difference" out "DIFFERENT"
check "u64 x 3 equal" 0 compare-results k1.pks k1.pks
finish
