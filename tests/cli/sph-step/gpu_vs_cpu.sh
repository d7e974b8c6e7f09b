#!/usr/bin/env bash
# CPU against CUDA through files: 100 steps of a small dam break (--deterministic on the GPU)
# agree within 1e-3 dx in position, 1e-3 m/s in velocity, 1e-4 relative in density (and the
# 25 Pa of pressure that 1e-4 of density makes at c0 = 15 m/s). The solver slot ("order") may
# differ where round-off moves a particle across a cell face, so it is not compared. The same
# for --boundary mdbc on walls of one layer (the virtual layers behind them), with each of its
# wall velocities.
. "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/lib.sh"

sph-init dam-break --width 0.04 --dx 0.004 -o db.pks 2>/dev/null
check "cpu run" 0 sph-step -q -i db.pks -o cpu.pks --steps 100 --device cpu
check "cuda run" 0 sph-step -q -i db.pks -o gpu.pks --steps 100 --device cuda --deterministic
check "cpu and cuda agree" 0 compare-results --tol position=4e-6:0 --tol velocity=1e-3:0 --tol density=0:1e-4 \
  --tol pressure=25:0 --tol order=4294967295:0 cpu.pks gpu.pks

sph-init dam-break --width 0.04 --dx 0.004 --boundary-layers 1 -o db1.pks 2>/dev/null
for velocity in wall no-slip free-slip; do
  flags=(--boundary mdbc --boundary-velocity "$velocity")
  check "cpu run, mdbc $velocity" 0 sph-step -q -i db1.pks -o cpu-$velocity.pks --steps 100 --device cpu "${flags[@]}"
  check "cuda run, mdbc $velocity" 0 sph-step -q -i db1.pks -o gpu-$velocity.pks --steps 100 --device cuda \
    --deterministic "${flags[@]}"
  check "cpu and cuda agree, mdbc $velocity" 0 compare-results --tol position=4e-6:0 --tol velocity=1e-3:0 \
    --tol density=0:1e-4 --tol pressure=25:0 --tol order=4294967295:0 cpu-$velocity.pks gpu-$velocity.pks
done
finish
