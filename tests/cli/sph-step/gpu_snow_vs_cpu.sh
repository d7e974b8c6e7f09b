#!/usr/bin/env bash
# The snow models on CPU against CUDA through files: 100 steps of a block of fluid falling in a
# box of walls, Newtonian (Mueller) and Bingham, --deterministic on the GPU, agree within 1e-4 h
# in position, 1e-3 m/s in velocity and 1e-4 relative in density. The solver slot ("order") may
# differ where round-off moves a particle across a cell face; the yielded flag and |D| may differ
# where a particle sits at the yield stress, so neither is compared.
. "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/lib.sh"

sph-init box --dx 0.02 --hdx 3 --box 0,0,0,0.2,0.2,0.2 --domain 0,0,0,0.4,0.4,0.4 -o box.pks 2>/dev/null
for model in newtonian-muller bingham; do
  snow="--model $model --gas-constant 400 --mu 1 --mu-solid 20 --yield-stress 5"
  # Only the yield-stress models write yielded and strain_rate (naming a column neither file
  # has is a usage error of compare-results).
  yield_tol=()
  [ $model = bingham ] && yield_tol=(--tol yielded=1:0 --tol strain_rate=1e30:0)
  check "$model cpu run" 0 sph-step -q -i box.pks -o cpu_$model.pks --steps 100 --device cpu $snow
  check "$model cuda run" 0 sph-step -q -i box.pks -o gpu_$model.pks --steps 100 --device cuda --deterministic $snow
  check "$model cpu and cuda agree" 0 compare-results --tol position=6e-6:0 --tol velocity=1e-3:0 --tol density=0:1e-4 \
    --tol pressure=40:0 --tol velocity_half=1e-3:0 --tol order=4294967295:0 "${yield_tol[@]}" \
    cpu_$model.pks gpu_$model.pks
done
finish
