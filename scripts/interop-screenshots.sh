#!/usr/bin/env bash
# What a user sees of a run in ParaView and Blender, as screenshots, with numbers checked.
#
#   scripts/interop-screenshots.sh [--docs] [OUT_DIR]   (default out/interop; programs from
#                                                       build/bin, or PARTIKEL_BIN)
#
# A small dam break (sph-init, sph-step to 0.4 s, a frame every 0.2 s) is converted by
# particle-convert to openPMD HDF5 with its XDMF and .pmd side files and to a VTK series of the
# fluid, and its last frame rendered by splat-render to OpenEXR. Then:
#   - ParaView (pvpython, under xvfb-run when there is no display) opens the XDMF file in the
#     reader File > Open picks, the VTK series and, when its module is installed, the openPMD
#     series; point counts, pressure ranges and position bounds must equal particle-info's at
#     every time; the points coloured by pressure are saved at the first and the last time
#     (paraview-xdmf-first.png, paraview-xdmf-last.png, paraview-vtk-*.png);
#   - Blender (optional: skipped, saying so, when `blender` is not installed) loads the EXR
#     into its compositor headless, must offer the passes Depth, N, count and thickness, and
#     renders each to PNG (blender-Depth.png, ...; blender-passes.png puts the four together).
# Every PNG must be readable, non-empty and not one colour (OpenImageIO's Python module).
# --docs also writes docs/images/paraview-xdmf.png and blender-passes.png: the last XDMF
# screenshot and the passes, in 64 colours (python3-pil) to keep them small.
# Exits 1 with "interop-screenshots: error: ..." at the first check that fails.
# Needs: python3-paraview, xvfb (without a display), python3-openimageio, openimageio-tools
# (scripts/install-deps.sh installs them); blender for the Blender part. About a minute on a
# 2-core machine (docs/../formats/README.md, "Opening the files in other tools").
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
docs=0
if [ "${1:-}" = --docs ]; then
  docs=1
  shift
fi
bin=${PARTIKEL_BIN:-$root/build/bin}
out=${1:-$root/out/interop}
py=${PYTHON:-/usr/bin/python3}  # Debian's, with OpenImageIO and numpy
export PATH="$bin:$PATH" PARTIKEL_DEVICE=${PARTIKEL_DEVICE:-cpu}

fail() {
  echo "interop-screenshots: error: $*" >&2
  exit 1
}
note() { echo "interop-screenshots: $*" >&2; }

for prog in sph-init sph-step particle-info particle-convert splat-render; do
  command -v "$prog" > /dev/null || fail "no $prog in $bin (build first, or set PARTIKEL_BIN)"
done
command -v pvpython > /dev/null || fail "no pvpython (ParaView's Python: apt-get install python3-paraview)"
command -v oiiotool > /dev/null || fail "no oiiotool (apt-get install openimageio-tools)"
"$py" -c "import OpenImageIO, numpy" 2> /dev/null || fail "$py has no OpenImageIO or numpy (apt-get install python3-openimageio)"
pvrun=(pvpython)
if [ -z "${DISPLAY:-}" ]; then
  command -v xvfb-run > /dev/null || fail "no display and no xvfb-run for ParaView's rendering (apt-get install xvfb)"
  # A 24-bit screen: ParaView's rendering crashes on Xvfb's default 8-bit one.
  pvrun=(xvfb-run -a -s "-screen 0 1280x1024x24" pvpython)
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$out"
rm -f ./*.png

note "running a small dam break"
sph-init -q dam-break --dx 0.02 -o start.pks
sph-step -q -i start.pks --until 0.4 --every 0.2 -o run.pks
particle-info --json run.pks > info.json
particle-convert -q -f run.pks run.h5
particle-convert -q -f run.pks --groups fluid fluid_%T.vtk
splat-render -q -i run.pks --frames 2 --size 320x180 -o frame.exr

note "ParaView: XDMF, VTK series, openPMD"
"${pvrun[@]}" "$root/scripts/interop/paraview_screenshots.py" info.json "$out" ./run.xmf ./fluid.vtk.series ./run.pmd \
  > paraview.log 2>&1 || { grep -v '^ *[0-9]* *0x' paraview.log | tail -20 >&2; fail "ParaView's checks failed (paraview.log)"; }
grep -E '^(XDMF|VTK|openPMD)' paraview.log >&2

passes=(Depth N count thickness)
if command -v blender > /dev/null; then
  note "Blender: the EXR in the compositor"
  # Blender maps depth from the finite range of Z (+inf where no surface is).
  read -r near far < <("$py" -c '
import sys, numpy as np, OpenImageIO as oiio
image = oiio.ImageBuf(sys.argv[1])
z = image.get_pixels(oiio.FLOAT)[..., list(image.spec().channelnames).index("Z")]
z = z[np.isfinite(z)]
if z.size == 0: sys.exit("no finite depth")
print(z.min(), z.max())' frame.exr) || fail "frame.exr has no surface (no finite Z)"
  blender -b --factory-startup --python-exit-code 1 -P "$root/scripts/interop/blender_exr_passes.py" -- \
    frame.exr "$out" 320x180 "$near" "$far" "${passes[@]}" > blender.log 2>&1 ||
    { grep -E 'FAIL|Error' blender.log >&2; fail "Blender's checks failed (blender.log)"; }
  grep -E '^(Combined|Alpha|Depth|N|count|thickness)	' blender.log | tr '\t\n' ' ;' | sed 's/^/Blender offers: /; s/$/\n/' >&2
  oiiotool blender-Depth.png blender-N.png --mosaic 2x1 blender-count.png blender-thickness.png --mosaic 2x1 \
    --mosaic 1x2 -o blender-passes.png
else
  note "Blender: skipped (no blender; apt-get install blender to check the EXR in its compositor)"
fi

# Every PNG: readable, and not one colour over (nearly) all of it.
"$py" - ./*.png <<'EOF' || fail "a screenshot is empty or one colour"
import sys
import numpy as np
import OpenImageIO as oiio
bad = 0
for path in sys.argv[1:]:
    image = oiio.ImageBuf(path)
    if image.has_error or image.spec().width * image.spec().height == 0:
        print(f"interop-screenshots: {path}: not readable: {image.geterror()}", file=sys.stderr)
        bad += 1
        continue
    pixels = image.get_pixels(oiio.UINT8).reshape(-1, image.spec().nchannels)
    _, counts = np.unique(pixels, axis=0, return_counts=True)
    share = counts.max() / len(pixels)  # of the commonest colour, the background
    print(f"{path}: {image.spec().width}x{image.spec().height}, {len(counts)} colours, "
          f"{100 * (1 - share):.1f}% not background", file=sys.stderr)
    if len(counts) < 8 or share > 0.995:
        print(f"interop-screenshots: {path}: one colour", file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
EOF
note "screenshots in $out"
if [ $docs -eq 1 ]; then
  [ -e blender-passes.png ] || fail "--docs needs the Blender part (apt-get install blender)"
  "$py" - "$root/docs/images" <<'EOF' || fail "--docs: cannot write docs/images (needs python3-pil)"
import os, sys
from PIL import Image
os.makedirs(sys.argv[1], exist_ok=True)
for source, target in [("paraview-xdmf-last.png", "paraview-xdmf.png"), ("blender-passes.png", "blender-passes.png")]:
    Image.open(source).convert("RGB").quantize(colors=64).save(os.path.join(sys.argv[1], target), optimize=True)
EOF
  note "wrote $root/docs/images/paraview-xdmf.png and blender-passes.png"
fi
