#!/usr/bin/env bash
# splat-render follows the conventions every Partikel program shares: --help on stdout,
# --version, usage errors exit 2 with one line, the output pattern is required.
. "$PARTIKEL_SOURCE_DIR/tests/cli/splat-render/lib.sh"

check "help" 0 splat-render --help
expect_text "help names the styles" "$work/out" "fluid, points or spheres"
expect_text "help names the output pattern" "$work/out" "%04d"
check "version" 0 splat-render --version
expect_text "version" "$work/out" "splat-render (Partikel)"
check "bad flag" 2 splat-render --no-such-flag -o a.exr
check "no output" 2 splat-render -i x.pks
check "bad style" 2 splat-render -q -i x.pks -o a.exr --style voxels
expect_error "bad style" splat-render "--style must be fluid, points or spheres (got 'voxels')"
check "bad size" 2 splat-render -q -i x.pks -o a.exr --size 1920
expect_error "bad size" splat-render "WIDTHxHEIGHT"
check "bad colour map" 2 splat-render -i x.pks -o a.exr --colormap jet
check "bad compression" 2 splat-render -i x.pks -o a.exr --compression dwaa
check "missing input" 1 splat-render -q -i no-such-file.pks -o a.exr
expect_error "missing input" splat-render "no-such-file.pks"
finish
