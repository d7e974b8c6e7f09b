#!/usr/bin/env bash
# examples/galaxy-collision at 4,096 bodies and 600 steps (past the pericentre at step 560):
# every output is made (the table, the plot, 13 rendered frames as OpenEXR and PNG), the
# galaxies come closest (the smallest radius holding 10 % of the mass) within 150 Myr of the
# orbit's pericentre at 1,369 Myr (a frame every 122 Myr; 1,344 Myr measured), and the energy
# drift stays below 5e-3 (7e-4 measured). About 15 s on 2 cores (CPU); the default size,
# 16,384 bodies and 800 steps, takes 1.5 minutes.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

out="$work/galaxy-collision"
check "make" 0 make -C "$PARTIKEL_SOURCE_DIR/examples/galaxy-collision" BIN="$PARTIKEL_BUILD_DIR/bin/" OUT="$out" \
  N=4096 STEPS=600 EVERY=50 SIZE=320x180 DEVICE=cpu
for f in init.pks frames.pks diag.tsv evolution.tsv evolution.png render/0000.exr render/0012.png; do
  [ -s "$out/$f" ] || { echo "FAIL no $f"; fail=1; }
done
[ -e "$out/render/0013.png" ] && { echo "FAIL more frames than 13"; fail=1; }
[ "$(head -c 4 "$out/evolution.png" | od -An -c | tr -d ' ')" = "211PNG" ] || { echo "FAIL evolution.png is no PNG"; fail=1; }
check "closest approach and energy" 0 awk -F'\t' '
  NR == 1 { next }
  { rows++; d = $2 < 0 ? -$2 : $2; if (d > worst) worst = d; if (NR == 2 || $4 < r) { r = $4; t = $1 } }
  END { printf "%d rows; closest at %.0f Myr (r10 %.1f kpc); largest energy drift %.2g\n", rows, t, r, worst
        exit !(rows == 13 && t > 1219 && t < 1519 && worst < 5e-3) }' "$out/evolution.tsv"
cat out
finish
