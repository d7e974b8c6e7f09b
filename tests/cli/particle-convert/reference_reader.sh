#!/usr/bin/env bash
# The Python reader written from SPEC.md alone decodes what the C++ writer writes: with every
# filter and codec combination, and concatenated streams.
. "$(dirname "$0")/lib.sh"
check "default" 0 particle-convert "$data/sample.csv" a.pks
check "no shuffle" 0 particle-convert --no-shuffle "$data/sample.csv" b.pks
check "no compression" 0 particle-convert --no-compress "$data/sample.csv" c.pks
check "level 19, no index" 0 particle-convert -l 19 --no-index "$data/sample.csv" d.pks
cat a.pks c.pks > cat.pks
check "reference reader" 0 "$py" "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/check_reference.py" "$data/sample.csv" a.pks b.pks c.pks d.pks cat.pks
cat out
check "reference reader CLI" 0 "$py" "$PARTIKEL_SOURCE_DIR/formats/reference/read_stream.py" a.pks --dump
expect_text "dump shows ids" out "18446744073709551615"
finish
