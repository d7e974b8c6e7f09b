#!/usr/bin/env bash
# Bad input is a clear error or a documented image, never a crash (docs/RENDER.md, "Bad
# input"): an empty frame renders the background; a frame without positions, a fluid without
# smoothing length, a zero-size image and impossible patterns are errors; particles with
# non-finite positions are left out with a warning; a camera inside the particles renders what
# is not closer than the near distance; an unwritable output leaves no file behind.
. "$PARTIKEL_SOURCE_DIR/tests/cli/splat-render/lib.sh"

printf '# group: fluid\nx,y,z\n' > empty.csv
check "empty frame" 0 splat-render -q -i empty.csv -o empty.exr --style points
expect_file "empty frame: the background" empty.exr
check "empty frame, fluid" 0 splat-render -q -i empty.csv -o empty_fluid.exr --smoothing-length 0.01
expect_file "empty fluid frame: the background" empty_fluid.exr

printf '# group: fluid\ndensity\n1000\n' > no_position.csv
check "no position column" 1 splat-render -q -i no_position.csv -o a.exr --style points
expect_error "no position column" splat-render "no position column"

printf '# group: fluid\nx,y,z\n0,0,0\nnan,0,0\n0.1,inf,0\n0.1,0.1,0\n' > nan.csv
check "NaN positions" 0 splat-render -i nan.csv -o nan.exr --style spheres --radius 0.05
expect_text "NaN positions: a warning" "$work/err" "2 particles with non-finite positions are not drawn"
expect_file "NaN positions: the rest drawn" nan.exr

printf 'x,y,z\n0,0,0\n0.01,0,0\n0,0.01,0\n' > no_h.csv
check "fluid without smoothing length" 2 splat-render -q -i no_h.csv -o a.exr
expect_error "fluid without smoothing length" splat-render "smoothing-length"

check "camera inside the particles" 0 splat-render -q -i no_h.csv -o inside.exr --smoothing-length 0.01 \
  --eye 0,0,0 --target 1,0,0
expect_file "camera inside: an image" inside.exr

check "zero-size image" 2 splat-render -q -i no_h.csv -o a.exr --style points --size 0x100
expect_error "zero-size image" splat-render "image size 0x100"
check "bad pattern" 2 splat-render -q -i no_h.csv -o "a%s.exr" --style points
expect_error "bad pattern" splat-render "--output must be a name with at most one %d"
check "unwritable output" 1 splat-render -q -i no_h.csv -o "no/such/dir/%04d.exr" --style points
expect_error "unwritable output" splat-render "cannot write into no/such/dir"

make_dam_break || { echo "FAIL making the input"; exit 1; }
check "one file for three frames" 2 splat-render -q -i frames.pks -o one.exr --style points
expect_error "one file for three frames" splat-render "names one file"
check "missing group" 2 splat-render -q -i frames.pks -o "g%d.exr" --style points --groups water
expect_error "missing group" splat-render "no group 'water'"
check "missing colour column" 1 splat-render -q -i frames.pks -o "c%d.exr" --style points --colour vorticity
expect_error "missing colour column" splat-render "vorticity"
expect_no_file "nothing half written" "partikel-tmp|^[gc][0-9]"
finish
