#!/usr/bin/env bash
# The avalanche's penalty terrain contact with friction, in tiles and bilinear, CPU against
# CUDA: 100 steps of the slab at dx 1.5 m (dt 2.5 ms) agree within 1e-4 m in position, 1e-3 m/s
# in velocity and 1e-4 relative in density (the solver slot "order" not compared, as in
# tests/cli/sph-step/gpu_vs_cpu.sh).
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

terrain="$PARTIKEL_SOURCE_DIR/examples/avalanche/hillside.png"
check "init" 0 sph-init avalanche --terrain "$terrain" --terrain-cell 0.5 --terrain-scale 0.002 --dx 1.5 \
  --thickness 3 -o slab.pks
for tile in 0 2; do
  check "cpu run, tile $tile" 0 sph-step -q -i slab.pks -o cpu$tile.pks --steps 100 --terrain-tile $tile --device cpu
  check "cuda run, tile $tile" 0 sph-step -q -i slab.pks -o gpu$tile.pks --steps 100 --terrain-tile $tile \
    --device cuda --deterministic
  check "cpu and cuda agree, tile $tile" 0 compare-results --tol position=1e-4:0 --tol velocity=1e-3:0 \
    --tol density=0:1e-4 --tol pressure=50:0 --tol order=4294967295:0 cpu$tile.pks gpu$tile.pks
done
finish
