#!/usr/bin/env bash
# `make install` gives programs, man pages, headers, a CMake package that another project
# can find_package(Partikel) and link (examples/00_find_package), and the Python package
# partikel that reads what the installed programs write into numpy arrays.
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$PARTIKEL_BUILD_DIR" --prefix "$work/prefix" >/dev/null
for f in include/partikel/core/backend.hpp include/partikel/formats/frame.hpp include/partikel/partikel_config.hpp \
         lib/cmake/Partikel/PartikelConfig.cmake; do
  [ -e "$work/prefix/$f" ] || { echo "FAIL missing $f"; exit 1; }
done
ls "$work/prefix/bin" | grep -q . || { echo "FAIL no programs installed"; exit 1; }
for prog in "$work/prefix/bin"/*; do
  name=$(basename "$prog")
  [ -e "$work/prefix/share/man/man1/$name.1" ] || { echo "FAIL no man page for $name"; exit 1; }
done
if find "$work/prefix/include" -name '*.cuh' | grep -q .; then echo "FAIL CUDA headers installed"; exit 1; fi
# A sanitizer build's libraries (make sanitize sets ASAN_OPTIONS) need the sanitizer runtimes
# in the program that links them.
sanitize=()
[ -n "${ASAN_OPTIONS:-}" ] && sanitize=(-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined)
cmake -S "$PARTIKEL_SOURCE_DIR/examples/00_find_package" -B "$work/consumer" -G Ninja \
      -DCMAKE_PREFIX_PATH="$work/prefix" "${sanitize[@]}" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
out=$("$work/consumer/consumer")
[ "$out" = "500500" ] || { echo "FAIL consumer printed '$out'"; exit 1; }
# The Python package, where Python looks under the prefix (PARTIKEL_PYTHON_DIR): imported with
# Debian's python3 (numpy) from any directory, it reads the last frame the programs wrote.
package=$(find "$work/prefix" -path '*-packages/partikel/__init__.py')
[ -n "$package" ] || { echo "FAIL no Python package partikel installed"; exit 1; }
"$work/prefix/bin/particle-convert" "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/data/sample.csv" "$work/sample.pks"
out=$(cd "$work" && PYTHONPATH=$(dirname "$(dirname "$package")") "${PYTHON:-/usr/bin/python3}" -c '
import partikel
frame = partikel.read_frame("sample.pks", -1)
print(partikel.__file__.startswith("'"$work/prefix/"'"), frame["step"], frame["groups"]["fluid"]["position"].values.shape)')
[ "$out" = "True 120 (3, 3)" ] || { echo "FAIL import partikel printed '$out'"; exit 1; }
echo "installed and consumed: ok"
