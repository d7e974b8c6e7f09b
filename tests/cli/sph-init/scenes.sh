#!/usr/bin/env bash
# sph-init lists its scenes, writes each as one frame that sph-step accepts, and refuses
# unknown scenes and bad values with one error line and exit 2.
. "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/lib.sh"

check "list" 0 sph-init --list
for scene in dam-break dam-break-obstacle still-tank box sphere column coastal inclined-plane; do
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
check "unknown scene" 2 sph-init volcano -o x.pks
expect_error "unknown scene" sph-init "unknown scene 'volcano'"
check "no scene" 2 sph-init -o x.pks
expect_error "no scene" sph-init "no scene"
check "box outside domain" 2 sph-init box --box 0,0,0,2,2,2 --domain 0,0,0,1,1,1 -o x.pks
check "negative dx" 2 sph-init dam-break --dx -1 -o x.pks
check "help" 0 sph-init --help
expect_text "help lists --dx" out "--dx"
finish
