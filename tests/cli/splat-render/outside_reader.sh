#!/usr/bin/env bash
# A reader that is not ours (OpenImageIO's oiiotool, Debian/Ubuntu package openimageio-tools)
# reads splat-render's OpenEXR layers: channel names (OpenEXR's R G B A Z, the others as
# layer.channel, which Blender, Nuke and OIIO split alike) and types, size, header attributes
# with their types (OIIO's Python module, python3-openimageio), provenance, and the depth of a
# known pixel: a sphere of radius 1 at the origin seen from z = 5 has Z = 4 at the image centre.
# Skipped (exit 77) without oiiotool.
. "$PARTIKEL_SOURCE_DIR/tests/cli/splat-render/lib.sh"
command -v oiiotool >/dev/null || { echo "oiiotool not installed (openimageio-tools): skipped"; exit 77; }

printf 'x,y,z,density\n0,0,0,1000\n' > sphere.csv
check "sphere" 0 splat-render -q -i sphere.csv -o sphere.exr --style spheres --radius 1 --eye 0,0,5 --target 0,0,0 \
  --size 65x49
check "oiiotool info" 0 oiiotool --info -v sphere.exr
expect_text "size" "$work/out" "65 x   49"
expect_text "channels" "$work/out" "R (half), G (half), B (half), A (half), Z (float)"
expect_text "normals" "$work/out" "N.X (float), N.Y (float), N.Z (float)"
expect_text "count" "$work/out" "count.X (float)"
expect_text "camera matrix" "$work/out" "worldToCamera:"
expect_text "NDC matrix" "$work/out" "worldToNDC:"
expect_text "source frame" "$work/out" "partikel.step: 0"
check "cut the centre pixel" 0 oiiotool sphere.exr --ch Z --cut 1x1+32+24 -o centre.exr
check "read its depth" 0 oiiotool --dumpdata centre.exr
expect_text "depth at the centre" "$work/out" "Pixel (0, 0): 4.000000"

make_dam_break || { echo "FAIL making the input"; exit 1; }
check "fluid" 0 splat-render -q -i frames.pks -o "f%d.exr" --size 64x40 --frames 2
check "oiiotool reads the fluid layers" 0 oiiotool --info -v f2.exr
expect_text "fluid channels" "$work/out" \
  "R (half), G (half), B (half), A (half), Z (float), N.X (float), N.Y (float), N.Z (float), count.X (float), thickness.X (float)"
expect_text "fluid source" "$work/out" "partikel.frame: 2"
expect_text "renderer's command line" "$work/out" 'partikel.command_line: "splat-render -q -i frames.pks -o f%d.exr'
expect_text "source's command line" "$work/out" 'partikel.source.command_line: "sph-step -q -i init.pks -o frames.pks'
expect_text "source's program" "$work/out" 'partikel.source.program: "sph-step"'
expect_text "commit" "$work/out" "partikel.commit: "
# The attributes' types as a reader sees them: integers stay integers.
check "OIIO's Python module reads the header" 0 "${PYTHON:-/usr/bin/python3}" -c '
import sys, OpenImageIO as oiio
spec = oiio.ImageInput.open(sys.argv[1]).spec()
types = {a.name: str(a.type) for a in spec.extra_attribs}
want = {"partikel.frame": "int", "partikel.step": "int", "partikel.time_s": "double",
        "partikel.commit": "string", "partikel.command_line": "string", "partikel.source.commit": "string",
        "worldToCamera": "matrix", "worldToNDC": "matrix"}
wrong = {k: (types.get(k), t) for k, t in want.items() if types.get(k) != t}
assert not wrong, wrong
assert spec.getattribute("partikel.step") == 2, spec.getattribute("partikel.step")
print(" ".join(spec.channelnames))' f2.exr
expect_text "channel names in OIIO's order" "$work/out" "R G B A Z N.X N.Y N.Z count.X thickness.X"
check "oiiotool statistics" 0 oiiotool --stats f2.exr
finish
