#!/usr/bin/env bash
# An independent reader (h5py) reads our openPMD file and sees the values of the source CSV.
. "$(dirname "$0")/lib.sh"
check "csv to h5" 0 particle-convert "$data/sample.csv" s.h5
check "h5py" 0 "$py" "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/check_h5py.py" s.h5 "$data/sample.csv"
cat out
finish
