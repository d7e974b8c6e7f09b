#!/usr/bin/env bash
# CPU against CUDA through files, for the direct sum, the tree and the hybrid walk: 10 steps of
# a 20,000-body Plummer sphere with a frame at steps 0 and 10 holding the accelerations.
#
# Tolerances. The same keys and the same kernels give the same tree and the same sums on both
# processors up to their roundings (the GPU's approximate reciprocal square root, fused
# multiply-adds), but a cell at the edge of the opening test can be opened on one and not on
# the other; such a body's acceleration then differs by about its own tree error. So the bound
# for the tree and the hybrid walk is twice the tree's largest error on every body of the start
# frame (nbody-run --force-error 20000: each side is within that of the exact sum), and for the
# direct sum 1e-4 relative. Over the 10 steps the tree's entire error (the tree against the
# direct sum on one backend, measured on the CPU: largest error 7.5e-3) moves bodies by at most
# 3.5e-6 and changes their speeds by at most 8.3e-5; two such errors, one per side, with a
# factor 2 to spare: 1.4e-5 in position, 3.5e-4 in velocity. The diagnostics (energies, the
# half-mass radius) after 10 steps agree to 1e-5 and 1e-4 relative. On the CPU, 1 and 2 threads
# give bit-identical frames.
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"

nbody-init plummer -n 20000 --seed 51 -o p.pks 2>/dev/null
check "tree error on every body" 0 nbody-run -q -i p.pks --force-error 20000 --device cuda
worst=$(awk -F'\t' 'NR == 2 { print $9 }' out)
bound=$(awk -v w="$worst" 'BEGIN { printf "%.3g", 2 * w }')
echo "the tree's largest relative error: $worst; bound for CPU against CUDA: $bound"
for method in direct tree hybrid; do
  for device in cpu cuda; do
    check "$method on $device" 0 nbody-run -q -i p.pks -o "$method-$device.pks" --method $method --steps 10 \
      --every-steps 10 --acceleration --diag "$method-$device.tsv" --device $device
  done
  rtol=$bound
  [ $method = direct ] && rtol=1e-4
  check "$method: CPU and CUDA agree" 0 compare-results --tol acceleration=0:$rtol --tol position=1.4e-5:0 \
    --tol velocity=3.5e-4:0 "$method-cpu.pks" "$method-cuda.pks"
  [ $fail -eq 0 ] || cat out
  check "$method: CPU and CUDA diagnostics agree" 0 compare-results --columns total_energy,kinetic_energy,lagrangian_radius_50 \
    --tol total_energy=0:1e-5 --tol kinetic_energy=0:1e-5 --tol lagrangian_radius_50=0:1e-4 \
    "$method-cpu.tsv" "$method-cuda.tsv"
done
# The hybrid walk on the GPU machine against the GPU alone: the same bound.
check "hybrid equals the GPU-only tree" 0 compare-results --tol acceleration=0:$bound --tol position=1.4e-5:0 \
  --tol velocity=3.5e-4:0 hybrid-cuda.pks tree-cuda.pks
finish
