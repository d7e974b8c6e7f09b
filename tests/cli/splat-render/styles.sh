#!/usr/bin/env bash
# The three styles on a small dam break: one OpenEXR (and PNG) per frame, named by the
# pattern, the channels each style writes, the source frame in the header; frame selection,
# orbits and camera paths.
. "$PARTIKEL_SOURCE_DIR/tests/cli/splat-render/lib.sh"
make_dam_break || { echo "FAIL making the input"; exit 1; }

check "fluid: the folder must exist" 1 splat-render -q -i frames.pks -o "fluid/%04d.exr" --size 96x64 --preview
mkdir -p fluid && check "fluid into a folder" 0 splat-render -q -i frames.pks -o "fluid/%04d.exr" --size 96x64 --preview
for f in 0000 0001 0002; do
  expect_file "fluid frame $f" "fluid/$f.exr"
  expect_file "fluid preview $f" "fluid/$f.png"
done
expect_no_file "no fourth frame" "0003"
# compare-results reads the images back: each equals itself, frames of one run differ little.
check "EXR reads back" 0 compare-results -q fluid/0001.exr fluid/0001.exr
check "fluid channels" 0 compare-results fluid/0000.exr fluid/0000.exr
for channel in "'R'" "'A'" "'Z'" "'thickness.X'" "'N.X'" "'count.X'"; do expect_text "fluid channel $channel" "$work/out" "${channel//\'/}"; done
# --passes rgba: the colour alone, equal to the full image's, in a smaller file.
check "fluid, colour only" 0 splat-render -q -i frames.pks -o "rgba%04d.exr" --size 96x64 --frames 0 --passes rgba
check "colour only: R, G, B, A equal the full image's" 0 compare-results --columns R,G,B,A --atol 0 --rtol 0 \
  rgba0000.exr fluid/0000.exr
check "colour only: its channels" 0 compare-results rgba0000.exr rgba0000.exr
for channel in Z N.X thickness.X count.X; do
  if grep -q -F "$channel" "$work/out"; then echo "FAIL --passes rgba wrote $channel"; fail=1; fi
done
[ "$(stat -c %s rgba0000.exr)" -lt "$(stat -c %s fluid/0000.exr)" ] || { echo "FAIL --passes rgba: not smaller"; fail=1; }
check "bad --passes" 2 splat-render -q -i frames.pks -o x.exr --passes normals

check "points by speed" 0 splat-render -q -i frames.pks -o "points_%d.exr" --style points --colour velocity \
  --colormap magma --size 64x48 --frames 1:3 --preview
expect_file "points frame 1" points_1.exr
expect_file "points frame 2" points_2.exr
expect_no_file "points: frame 0 not selected" "points_0"
check "points by height" 0 splat-render -q -i frames.pks -o "height.exr" --style points --colour position.y \
  --range 0,0.08 --frames 0 --size 64x48
expect_file "one frame, one file" height.exr

check "spheres by density" 0 splat-render -q -i frames.pks -o "spheres%02d.exr" --style spheres --colour density \
  --colormap coolwarm --groups fluid --radius 0.002 --size 64x48 --compression piz
expect_file "spheres" spheres00.exr
check "spheres channels" 0 compare-results spheres00.exr spheres00.exr
expect_text "spheres write normals" "$work/out" "N.Z"

# Camera: an orbit turns the view per frame; a camera path from a file.
check "orbit" 0 splat-render -q -i frames.pks -o "orbit%d.exr" --orbit 30 --size 48x32
check "orbit frames differ" 1 compare-results -q orbit0.exr orbit2.exr
printf '# frame eye target fov\n0  0.1 0.05 0.3  0.05 0.02 0.01  40\n2  -0.1 0.05 0.3  0.05 0.02 0.01\n' > path.txt
check "camera path" 0 splat-render -q -i frames.pks -o "path%d.exr" --camera-path path.txt --size 48x32
check "bad camera path" 1 splat-render -q -i frames.pks -o "bad%d.exr" --camera-path no-such-path.txt
finish
