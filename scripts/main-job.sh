#!/usr/bin/env bash
# The main job (README, `make run`): the dam-break example (examples/dam-break) against
# Martin & Moyce (1952), rendered. On a GPU at a/dx = 64 and 1920x1080 images; without one on
# the CPU at a/dx = 16 and 960x540, which takes a few minutes on 2 cores. Leaves under $OUT
# (default out/): init.pks, frames.pks, diag.tsv, front.tsv, compare.tsv, front.png and
# render/NNNN.exr with render/NNNN.png previews.
#
#   scripts/main-job.sh            # BUILD=build OUT=out
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD:-$root/build}
out=${OUT:-$root/out}
bin="$build/bin/"
if [ ! -x "${bin}sph-step" ]; then
  echo "main-job: error: ${bin}sph-step not built (run 'make build' first)" >&2
  exit 1
fi
a=0.05715
if "${bin}sph-step" --version | grep -q '^gpu: cuda:'; then
  device=cuda resolution=64 size=1920x1080
else
  device=cpu resolution=16 size=960x540
fi
dx=$(awk -v a=$a -v r=$resolution 'BEGIN { printf "%.7g", a / r }')
echo "main-job: dam break on $device, a = $a m, dx = $dx m (a/dx = $resolution), output in $out" >&2
example=(make -C "$root/examples/dam-break" --no-print-directory BIN="$bin" OUT="$out" DEVICE=$device WIDTH=$a DX="$dx" SIZE=$size)
"${example[@]}" table
"${example[@]}" render
if command -v gnuplot >/dev/null; then
  "${example[@]}" plot
  echo "main-job: done: $out/front.png, $out/compare.tsv, $out/diag.tsv, $out/frames.pks, $out/render/" >&2
else
  echo "main-job: note: gnuplot not found, no front.png (scripts/install-deps.sh installs it)" >&2
  echo "main-job: done: $out/compare.tsv, $out/diag.tsv, $out/frames.pks, $out/render/" >&2
fi
