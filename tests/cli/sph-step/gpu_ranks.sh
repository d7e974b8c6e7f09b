#!/usr/bin/env bash
# sph-step on 2 GPUs (mpirun -np 2: NCCL when built with it, then the staged path through
# pinned host memory, PARTIKEL_NCCL=0) against 1 GPU, on DualSPHysics's 3D dam break: after 20
# steps the frames agree within the tolerances of tests/cli/sph-step/ranks.sh (1e-4 relative,
# 1e-7 absolute, 2 Pa for the pressure: the order of neighbour sums; a missing neighbour changes
# densities by about 1%), with exactly the same particles, kinds and masses. Needs two GPUs (labels gpu, mpi; the
# 4-GPU machine runs it from scripts/multi-gpu-check.sh).
. "$PARTIKEL_SOURCE_DIR/tests/cli/lib.sh"
export PARTIKEL_FAULT_TIMEOUT_S=60
mpi() { timeout 600 mpirun --quiet --allow-run-as-root --bind-to none "$@"; }
close="--ignore order --rtol 1e-4 --atol 1e-7 --tol pressure=2:1e-4"
exact="--atol 0 --rtol 0 --columns id,kind,mass"

sph-init dam-break-obstacle --dx 0.008 -o db.pks 2>/dev/null
check "one GPU" 0 sph-step -i db.pks -o one.pks --steps 20 --every-steps 10 --device cuda --deterministic
check "two GPUs" 0 mpi -np 2 sph-step -i db.pks -o two.pks --steps 20 --every-steps 10 --device cuda --deterministic
expect_text "two GPUs: the log names the ranks" err "2 ranks ("
check "two GPUs equal one" 0 compare-results $close two.pks one.pks
check "two GPUs: the same particles" 0 compare-results $exact two.pks one.pks
check "two GPUs: provenance" 0 particle-info two.pks
expect_text "two GPUs: provenance" out "ranks = 2"
export PARTIKEL_NCCL=0
check "two GPUs, staged" 0 mpi -np 2 sph-step -i db.pks -o staged.pks --steps 20 --every-steps 10 --device cuda --deterministic
unset PARTIKEL_NCCL
expect_text "two GPUs, staged: the log says so" err "2 ranks (mpi+staged)"
check "two GPUs, staged, equal one" 0 compare-results $close staged.pks one.pks
check "two GPUs, staged: the same particles" 0 compare-results $exact staged.pks one.pks
finish
