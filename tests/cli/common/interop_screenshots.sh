#!/usr/bin/env bash
# scripts/interop-screenshots.sh as a test (label slow, about a minute): a dam break opened in
# ParaView's readers (counts, pressure ranges and bounds equal particle-info's, points drawn)
# and its EXR in Blender's compositor (the named passes), every screenshot not one colour.
# Skipped (77) without pvpython; the Blender part is skipped by the script without blender.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
if ! command -v pvpython > /dev/null; then
  echo "SKIP: no pvpython (ParaView's Python; scripts/install-deps.sh installs python3-paraview)"
  exit 77
fi
check "interop-screenshots.sh" 0 env PARTIKEL_BIN="$PARTIKEL_BUILD_DIR/bin" "$PARTIKEL_SOURCE_DIR/scripts/interop-screenshots.sh" shots
cat "$work/err"
for png in paraview-xdmf-first paraview-xdmf-last paraview-vtk-first paraview-vtk-last; do
  [ -s "shots/$png.png" ] || { echo "FAIL no $png.png"; fail=1; }
done
if command -v blender > /dev/null; then
  for png in blender-Depth blender-N blender-count blender-thickness blender-passes; do
    [ -s "shots/$png.png" ] || { echo "FAIL no $png.png"; fail=1; }
  done
  expect_text "Blender offers the passes" "$work/err" "Blender offers: Combined RGBA;Alpha VALUE;Depth VALUE;N RGBA;count VALUE;thickness VALUE;"
fi
finish
