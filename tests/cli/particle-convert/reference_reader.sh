#!/usr/bin/env bash
# The Python reader written from SPEC.md alone (the package partikel) decodes what the C++
# writer writes: with every filter and codec combination, and concatenated streams; it seeks
# through the index (check_seek.py) and falls back to its own XXH64 without the xxhash module.
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
check "reference reader CLI, one frame" 0 "$py" "$PARTIKEL_SOURCE_DIR/formats/reference/read_stream.py" a.pks --frame -1
expect_text "frame -1 is frame 0 of one" out "step 120"
check "reference reader CLI, no such frame" 1 "$py" "$PARTIKEL_SOURCE_DIR/formats/reference/read_stream.py" a.pks --frame 1
expect_text "no such frame" err "frame 1 of a stream of 1 frames"

sph-init dam-break --dx 0.05 -q -o init.pks && sph-step -i init.pks --steps 3 --every-steps 1 -q -o four.pks ||
  { echo "FAIL making four frames"; fail=1; }
check "misplaced index" 0 "$py" "$PARTIKEL_SOURCE_DIR/tests/cli/craft_stream.py" four.pks misplaced.pks --misplace-index
check "reference reader CLI, last frame from a pipe" 0 sh -c "cat four.pks | '$py' '$PARTIKEL_SOURCE_DIR/formats/reference/read_stream.py' - --frame -1"
expect_text "the last of four frames" out "frame -1 step 3 "
cat init.pks four.pks > two_streams.pks
check "seek, fallback XXH64" 0 "$py" "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/check_seek.py" four.pks misplaced.pks two_streams.pks
cat out
finish
