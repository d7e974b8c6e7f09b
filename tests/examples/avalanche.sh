#!/usr/bin/env bash
# examples/avalanche at a tiny size (dx 1.5 m, 0.06 s; about a second): every output is made;
# terrain.py makes exactly the shipped hillside.png and valley.png; the frames store the
# terrain once (only the first frame's directory holds the group) and every frame read back has
# it; the avalanche scene carries the penalty contact, sph-step's terrain flags replace it; the
# river scene runs down the shipped valley; bad terrain contact values are usage errors (2).
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

example="$PARTIKEL_SOURCE_DIR/examples/avalanche"
out="$work/avalanche"
check "make" 0 make -C "$example" BIN="$PARTIKEL_BUILD_DIR/bin/" OUT="$out" DX=1.5 THICKNESS=3 UNTIL=0.06 \
  EVERY=0.02 SIZE=160x90 DEVICE=cpu
for f in hillside.png init.pks frames.pks diag.tsv runout.tsv render/0000.exr render/0003.png; do
  [ -s "$out/$f" ] || { echo "FAIL no $f"; fail=1; }
done
check "the shipped hillside is terrain.py's" 0 cmp "$out/hillside.png" "$example/hillside.png"
check "valley" 0 python3 "$example/terrain.py" valley valley.png
check "the shipped valley is terrain.py's" 0 cmp valley.png "$example/valley.png"
[ "$(wc -l < "$out/runout.tsv")" -eq 5 ] || { echo "FAIL runout rows: $(wc -l < "$out/runout.tsv"), expected 5"; fail=1; }

# Stored once: the group name "terrain" (u32 length 7, then the name) is in one frame directory.
stored=$(grep -c -a -P '\x07\x00\x00\x00terrain' "$out/frames.pks")
[ "$stored" -eq 1 ] || { echo "FAIL the terrain's column is named in $stored places of frames.pks, expected 1"; fail=1; }
check "frames" 0 particle-info "$out/frames.pks"
[ "$(grep -c 'group terrain: 38841 particles' out)" -eq 4 ] || { echo "FAIL not every frame has the terrain"; cat out; fail=1; }
expect_text "penalty contact" out 'sph.terrain.law = "penalty"'
expect_text "friction" out 'sph.terrain.friction = 1'

# sph-step's terrain flags, restarting from the last frame (which does not store the terrain).
check "restart with other contact" 0 sph-step -i "$out/frames.pks" -o r.pks --steps 2 --device cpu \
  --terrain-law repulsive --terrain-friction 0 --terrain-tile 2
check "restart frames" 0 particle-info r.pks
expect_text "repulsive" out 'sph.terrain.law = "repulsive"'
expect_text "tile" out 'sph.terrain.tile = 2'
expect_text "restart has the terrain" out "group terrain: 38841 particles"

check "river" 0 sph-init river --terrain valley.png --terrain-cell 0.5 --terrain-scale 0.002 --dx 1 -o river.pks
check "river runs" 0 sph-step -i river.pks -o river_frames.pks --steps 3 --device cpu
check "avalanche needs a terrain" 2 sph-init avalanche --dx 1
expect_error "avalanche needs a terrain" sph-init "needs a terrain"
check "unknown law" 2 sph-init avalanche --terrain valley.png --terrain-cell 0.5 --terrain-scale 0.002 \
  --terrain-law sticky -o x.pks
expect_error "unknown law" sph-init "--terrain-law must be repulsive or penalty (got 'sticky')"
check "negative stiffness" 2 sph-step -i river.pks -o x.pks --steps 1 --terrain-stiffness -5
check "release outside" 2 sph-init river --terrain valley.png --terrain-cell 0.5 --release 0,0,500,10 -o x.pks
expect_error "release outside" sph-init "release zone"
finish
