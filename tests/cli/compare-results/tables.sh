#!/usr/bin/env bash
# Diagnostic tables: identical, perturbed just below/above tolerance, keyed rows, TSV, stdin.
. "$(dirname "$0")/lib.sh"

printf 'turn,alive,x_rms,eps_x\n0,1000,1.0e-3,12.5e-6\n1,1000,1.1e-3,12.5e-6\n2,998,1.2e-3,12.6e-6\n' >a.csv
printf 'turn,alive,x_rms,eps_x\n0,1000,1.0e-3,12.5e-6\n1,1000,1.1009e-3,12.5e-6\n2,998,1.2e-3,12.6e-6\n' >below.csv
printf 'turn,alive,x_rms,eps_x\n0,1000,1.0e-3,12.5e-6\n1,1000,1.1011e-3,12.5e-6\n2,998,1.2e-3,12.6e-6\n' >above.csv
printf 'turn,eps_x,alive,x_rms\n2,12.6e-6,998,1.2e-3\n0,12.5e-6,1000,1.0e-3\n1,12.5e-6,1000,1.1e-3\n' >shuffled.csv
printf 'turn\talive\tx_rms\teps_x\n0\t1000\t1.0e-3\t12.5e-6\n1\t1000\t1.1e-3\t12.5e-6\n2\t998\t1.2e-3\t12.6e-6\n' >a.tsv

check "identical tables" 0 compare-results a.csv a.csv
expect_text "identical tables" out "EQUAL within tolerance"
check "below tolerance" 0 compare-results --tol x_rms=1e-6 a.csv below.csv
check "above tolerance" 1 compare-results --tol x_rms=1e-6 a.csv above.csv
expect_text "above tolerance" out "DIFFERENT"
expect_text "above tolerance names the row" out "row 2"
check "exact by default" 1 compare-results a.csv below.csv
check "shuffled rows by index" 1 compare-results a.csv shuffled.csv
check "shuffled rows by key" 0 compare-results --key turn a.csv shuffled.csv
check "TSV against CSV" 0 compare-results a.tsv a.csv
check "table on stdin" 0 compare-results --kind table - a.csv <a.tsv
check "quiet prints nothing" 1 compare-results -q a.csv above.csv
[ -s out ] && { echo "FAIL --quiet wrote a report"; fail=1; }
finish
