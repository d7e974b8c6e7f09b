# Helpers for the compare-results CLI cases: the shared tests/cli/lib.sh.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
