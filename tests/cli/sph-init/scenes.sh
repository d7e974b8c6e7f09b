#!/usr/bin/env bash
# sph-init lists its scenes, writes each as one frame that sph-step accepts, reads raw and
# OpenEXR terrain, and refuses unknown scenes, bad values and bad terrain with one error line
# (exit 2 for usage, 1 for unreadable files).
. "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/lib.sh"

check "list" 0 sph-init --list
for scene in dam-break dam-break-obstacle still-tank box sphere column coastal inclined-plane avalanche river; do
  expect_text "list $scene" out "$scene"
done
check "dam-break" 0 sph-init dam-break --dx 0.01 -o db.pks
expect_text "counts logged" err "fluid and"
check "readable by sph-step" 0 sph-step -i db.pks -o /dev/null --force --steps 1
check "still-tank to stdout" 0 sh -c 'sph-init still-tank --periodic --dx 0.01 | sph-step --steps 1 > st.pks'
check "box" 0 sph-init box --dx 0.05 --box 0,0,0,0.2,0.2,0.2 --domain 0,0,0,0.5,0.5,0.5 -o box.pks
check "sphere" 0 sph-init sphere --dx 0.05 --center 0.5,0.5,0.5 --radius 0.2 -o sp.pks
check "column" 0 sph-init column --dx 0.05 --center 0.5,0,0.5 --radius 0.2 --height 0.6 -o col.pks
check "sphere outside domain" 2 sph-init sphere --center 0.1,0.5,0.5 --radius 0.3 -o x.pks
check "obstacle, coarse" 0 sph-init dam-break-obstacle --dx 0.04 -o ob.pks
head -c 32 /dev/zero > flat.raw
check "raw terrain" 0 sph-init inclined-plane --dx 0.2 --terrain flat.raw --terrain-size 4,4 --terrain-cell 3 -o tr.pks
check "short terrain" 1 sph-init inclined-plane --dx 0.2 --terrain flat.raw --terrain-size 8,8 -o tr.pks
expect_error "short terrain" sph-init "fewer than 8 x 8"
check "raw terrain without size" 2 sph-init inclined-plane --terrain flat.raw -o tr.pks
expect_error "raw terrain without size" sph-init "flat.raw is neither PNG nor OpenEXR"
# OpenEXR terrain, written without the OpenEXR library: heights 0, 0.22, 0.44 m on rows 0.5 m
# apart along z. Fluid fills cells above h + dx/2 = 0.44 z + 0.05: 23 of 50 in each x column,
# none at z = 0.95 (rows taken along x would leave z = 0.95 wet).
exr() { "$py" "$PARTIKEL_SOURCE_DIR/tests/cli/sph-init/write_exr.py" "$@"; }
exr slope.exr 3 3 Z 0 0 0 0.22 0.22 0.22 0.44 0.44 0.44
check "exr terrain" 0 sph-init box --dx 0.1 --box 0,0,0,1,0.5,1 --domain 0,0,0,1,1,1 --terrain slope.exr \
  --terrain-cell 0.5 -o slope.pks
check "exr terrain info" 0 particle-info slope.pks
expect_text "exr terrain fluid" out "group fluid: 230 particles"
expect_text "exr terrain along z" out "z   min 0.05           max 0.85"
head -c -10 slope.exr > cut.exr
check "truncated exr" 1 sph-init box --terrain cut.exr -o x.pks
expect_error "truncated exr" sph-init "terrain: cut.exr: cannot read OpenEXR image: .*end of file"
exr nan.exr 2 2 Y 0 nan 0 0
check "nan exr" 1 sph-init box --terrain nan.exr -o x.pks
expect_error "nan exr" sph-init "nan.exr: channel Y at column 1, row 0 gives a non-finite height"
check "exr with a raw size" 2 sph-init box --terrain slope.exr --terrain-size 3,3 -o x.pks
expect_error "exr with a raw size" sph-init "slope.exr is an OpenEXR image with its own size"
check "unknown scene" 2 sph-init volcano -o x.pks
expect_error "unknown scene" sph-init "unknown scene 'volcano'"
check "no scene" 2 sph-init -o x.pks
expect_error "no scene" sph-init "no scene"
check "box outside domain" 2 sph-init box --box 0,0,0,2,2,2 --domain 0,0,0,1,1,1 -o x.pks
check "negative dx" 2 sph-init dam-break --dx -1 -o x.pks
check "help" 0 sph-init --help
expect_text "help lists --dx" out "--dx"
finish
