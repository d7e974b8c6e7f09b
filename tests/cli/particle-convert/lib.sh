# Helpers for the particle-convert and particle-info CLI tests: tests/cli/lib.sh plus the
# sample data and the Python with numpy and h5py.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
data="$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/data"
py=/usr/bin/python3   # Debian's, with numpy and h5py

