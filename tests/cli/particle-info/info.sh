#!/usr/bin/env bash
# particle-info describes streams (files and stdin), HDF5 and CSV, as text and JSON.
. "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/lib.sh"

particle-convert "$data/sample.csv" a.pks
particle-convert a.pks a.h5
check "stream file" 0 particle-info a.pks
expect_text "summary" out "a.pks: stream, 1 frame"
expect_text "frame line" out "frame 0: step 120, time 0.6 s, dt 0.005 s, 3 particles"
expect_text "group line" out "group fluid: 3 particles, 11 columns"
expect_text "velocity unit" out "velocity           f32x3   m/s"
expect_text "density stats" out "min 999.125        max 1001"
expect_text "non-finite count" out "mean -0.75  (1 non-finite)"
check "stdin" 0 sh -c 'cat a.pks | particle-info'
expect_text "stdin name" out "<stdin>: stream"
expect_text "stdin frame count" out "1 frame read"
check "hdf5" 0 particle-info a.h5
expect_text "hdf5 encoding" out "a.h5: hdf5, 1 frame"
check "csv" 0 particle-info "$data/sample.csv"
expect_text "csv types" out "serial             i64"
check "json" 0 particle-info --json a.pks
cp out json.txt
check "json parses" 0 "$py" -c 'import json,sys; d=json.load(open("json.txt")); c=d["frames"][0]["groups"][0]["columns"]; assert c[0]["name"]=="position" and c[0]["stats"][0]["max"]>3e38, c[0]; assert d["frame_count"]==1' 
check "json validates" 0 "$py" -m json.tool json.txt
check "no stats" 0 particle-info --no-stats a.pks
if grep -q "min " out; then echo "FAIL --no-stats still prints statistics"; fail=1; fi
head -c 300 a.pks > cut.pks
check "truncated" 1 particle-info cut.pks
expect_error "truncated" particle-info "cut.pks: .*truncated"
check "one input only" 2 particle-info -i a.pks a.pks
check "terminal input" 2 script -qec "particle-info" /dev/null
if ! grep -q "particle-info: error: refusing to read particle data from a terminal" out; then echo "FAIL terminal input:"; cat out; fail=1; fi
check "help" 0 particle-info --help
expect_text "help" out "--json"
finish
