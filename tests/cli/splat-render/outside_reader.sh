#!/usr/bin/env bash
# A reader that is not ours (OpenImageIO's oiiotool, Debian/Ubuntu package openimageio-tools)
# reads splat-render's OpenEXR layers: channel names and types, size, header attributes, and
# the depth of a known pixel: a sphere of radius 1 at the origin seen from z = 5 has Z = 4 at
# the image centre. Skipped (exit 77) without oiiotool.
. "$PARTIKEL_SOURCE_DIR/tests/cli/splat-render/lib.sh"
command -v oiiotool >/dev/null || { echo "oiiotool not installed (openimageio-tools): skipped"; exit 77; }

printf 'x,y,z,density\n0,0,0,1000\n' > sphere.csv
check "sphere" 0 splat-render -q -i sphere.csv -o sphere.exr --style spheres --radius 1 --eye 0,0,5 --target 0,0,0 \
  --size 65x49
check "oiiotool info" 0 oiiotool --info -v sphere.exr
expect_text "size" "$work/out" "65 x   49"
expect_text "channels" "$work/out" "R (half), G (half), B (half), A (half), Z (float)"
expect_text "normals" "$work/out" "N.x (float), N.y (float), N.z (float)"
expect_text "count" "$work/out" "count (float)"
expect_text "camera matrix" "$work/out" "worldToCamera:"
expect_text "NDC matrix" "$work/out" "worldToNDC:"
expect_text "source frame" "$work/out" "partikel.step: 0"
check "cut the centre pixel" 0 oiiotool sphere.exr --ch Z --cut 1x1+32+24 -o centre.exr
check "read its depth" 0 oiiotool --dumpdata centre.exr
expect_text "depth at the centre" "$work/out" "Pixel (0, 0): 4.000000"

make_dam_break || { echo "FAIL making the input"; exit 1; }
check "fluid" 0 splat-render -q -i frames.pks -o "f%d.exr" --size 64x40 --frames 2
check "oiiotool reads the fluid layers" 0 oiiotool --info -v f2.exr
expect_text "fluid channels" "$work/out" "thickness (float)"
expect_text "fluid source" "$work/out" "partikel.frame: 2"
check "oiiotool statistics" 0 oiiotool --stats f2.exr
finish
