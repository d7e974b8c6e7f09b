#!/usr/bin/env bash
# nbody-run on 2 and 4 GPUs (mpirun: NCCL when built with it, then the staged path through
# pinned host memory, PARTIKEL_NCCL=0) against 1 GPU, on gpu_vs_cpu.sh's 20,000-body Plummer
# sphere: after 10 steps the tree's frames agree within that script's bounds (accelerations
# within twice the tree's largest error on every body, positions within 1.4e-5, velocities
# within 3.5e-4: the same tree, other groups of 32 per rank; ranks.sh argues them), the direct
# sum's within 1e-4 (the ring's order of sums), with exactly the same ids and masses. Needs 2
# GPUs, and 4 for the 4-rank runs (labels gpu, mpi; the 4-GPU machine runs it from
# scripts/multi-gpu-check.sh).
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export PARTIKEL_FAULT_TIMEOUT_S=60
mpi() { timeout 600 mpirun --quiet --allow-run-as-root --bind-to none "$@"; }
exact="--columns id,mass --atol 0 --rtol 0"
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -ge 2 ] || { echo "FAIL needs 2 GPUs, found $gpus"; exit 1; }

nbody-init plummer -n 20000 --seed 51 -o p.pks 2>/dev/null
check "tree error on every body" 0 nbody-run -q -i p.pks --force-error 20000 --device cuda
bound=$(awk -F'\t' 'NR == 2 { printf "%.3g", 2 * $9 }' out)
ranks="2"
[ "$gpus" -ge 4 ] && ranks="2 4"
for method in tree direct; do
  rtol=$bound
  [ $method = direct ] && rtol=1e-4
  check "$method: one GPU" 0 nbody-run -i p.pks -o $method-1.pks --method $method --steps 10 --every-steps 10 \
    --acceleration --diag $method-1.tsv --device cuda
  for np in $ranks; do
    check "$method: $np GPUs" 0 mpi -np $np nbody-run -i p.pks -o $method-$np.pks --method $method --steps 10 \
      --every-steps 10 --acceleration --diag $method-$np.tsv --device cuda
    expect_text "$method: $np GPUs: the log names the ranks" err "$np ranks ("
    check "$method: $np GPUs equal one" 0 compare-results --tol acceleration=0:$rtol --tol position=1.4e-5:0 \
      --tol velocity=3.5e-4:0 $method-$np.pks $method-1.pks
    [ $fail -eq 0 ] || cat out
    check "$method: $np GPUs: the same bodies" 0 compare-results $exact $method-$np.pks $method-1.pks
    check "$method: $np GPUs: diagnostics" 0 compare-results --columns total_energy,kinetic_energy,lagrangian_radius_50 \
      --tol total_energy=0:1e-5 --tol kinetic_energy=0:1e-5 --tol lagrangian_radius_50=0:1e-4 $method-$np.tsv $method-1.tsv
    check "$method: $np GPUs: provenance" 0 particle-info $method-$np.pks
    expect_text "$method: $np GPUs: provenance" out "ranks = $np"
  done
done
export PARTIKEL_NCCL=0
check "tree: 2 GPUs, staged" 0 mpi -np 2 nbody-run -i p.pks -o staged.pks --steps 10 --every-steps 10 --acceleration \
  --device cuda
unset PARTIKEL_NCCL
expect_text "tree: 2 GPUs, staged: the log says so" err "2 ranks (mpi+staged)"
check "tree: 2 GPUs, staged, equal one" 0 compare-results --tol acceleration=0:$bound --tol position=1.4e-5:0 \
  --tol velocity=3.5e-4:0 staged.pks tree-1.pks
check "tree: 2 GPUs, staged: the same bodies" 0 compare-results $exact staged.pks tree-1.pks
finish
