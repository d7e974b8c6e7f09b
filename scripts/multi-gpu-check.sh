#!/usr/bin/env bash
# On the 4-GPU machine (nvidia-h100-x4 or nvidia-h200-x4; docs/PERFORMANCE.md, "Several GPUs"):
# build for sm_90 with MPI and NCCL, run the tests labelled mpi (CPU ranks, and the gpu+mpi
# comparisons of 2 GPUs with 1), then bench_dist under mpirun: strong scaling 1 -> 2 -> 4 GPUs
# at 16M and 64M particles, weak scaling at 16M per GPU, and the dam break's imbalance without
# and with balancing. Logs under $OUT (at most 8 files: machine.txt, configure/build logs,
# mpi-tests.log, bench.txt, dist.jsonl, table.txt); the table comes last on stdout.
#
#   scripts/multi-gpu-check.sh [--parts tests,strong,weak,balance] [--steps N] [--sizes 16e6,64e6]
#                              [--per-rank 16e6] [--jobs N] [--no-build]
#
# Each part fits one 10-minute call on a warm machine (the build stays between calls): e.g.
# `--parts tests`, then `--parts strong --no-build`, `--parts weak,balance --no-build`; the
# table is made from every line dist.jsonl holds so far (delete it to start afresh).
# NCCL_NVLS_ENABLE=0 stays set (no NVLink multicast). PARTIKEL_NCCL=0 in the environment
# measures the staged path (device -> pinned host -> MPI) instead of NCCL.
set -uo pipefail
cd "$(dirname "$0")/.."

parts=tests,strong,weak,balance
steps=50
sizes=16e6,64e6
per_rank=16e6
jobs=$(nproc)
build_it=1
while [ $# -gt 0 ]; do
  case "$1" in
    --parts) parts=$2; shift ;;
    --steps) steps=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --per-rank) per_rank=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --no-build) build_it=0 ;;
    *) echo "multi-gpu-check: error: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
has() { [[ ",$parts," == *",$1,"* ]]; }

OUT=${OUT:-$PWD/out/multi-gpu-check}
mkdir -p "$OUT"
build=build-gpu
export NCCL_NVLS_ENABLE=0
{ nvidia-smi; nvidia-smi topo -m; nvcc --version; mpirun --version; git log -1 --format='commit %H %cd' 2>/dev/null; date -u; } \
  > "$OUT/machine.txt" 2>&1

if [ $build_it = 1 ]; then
  echo "== configure + build (sm_90, MPI, NCCL, -j$jobs)"
  if ! cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARTIKEL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
       -DPARTIKEL_MPI=ON -DPARTIKEL_NCCL=ON -DPARTIKEL_GIT_COMMIT="${PARTIKEL_COMMIT:-}" > "$OUT/configure.log" 2>&1; then
    tail -30 "$OUT/configure.log"; exit 1
  fi
  if ! cmake --build "$build" -j "$jobs" >> "$OUT/configure.log" 2>&1; then
    grep -E "error|Error" "$OUT/configure.log" | head -40; exit 1
  fi
fi

status=0
if has tests; then
  echo "== mpi tests (CPU ranks; gpu+mpi: 2 GPUs against 1)"
  (cd "$build" && PARTIKEL_REQUIRE_GPU=1 ctest -L mpi --output-on-failure --timeout 900) > "$OUT/mpi-tests.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|\*\*\*Failed|Failed  |Passed" "$OUT/mpi-tests.log" | tail -20
fi

mpi() { mpirun --allow-run-as-root --bind-to none -np "$@"; }
bench() {  # ranks args...
  local np=$1
  shift
  echo "-- $np ranks: bench_dist $*" | tee -a "$OUT/bench.txt"
  mpi "$np" "$build/bench/bench_dist" --device cuda --json "$OUT/dist.jsonl" "$@" >> "$OUT/bench.txt" 2>&1 || {
    status=1; tail -5 "$OUT/bench.txt"; }
}
if has strong; then
  echo "== strong scaling: inclined plane at $sizes particles, 1, 2, 4 GPUs"
  for np in 1 2 4; do bench $np --case inclined-plane --sizes "$sizes" --steps "$steps" --output-every 20; done
fi
if has weak; then
  echo "== weak scaling: inclined plane at $per_rank particles per GPU"
  for np in 1 2 4; do bench $np --case inclined-plane --per-rank "$per_rank" --steps "$steps"; done
fi
if has balance; then
  echo "== load balancing: the dam break from slabs of equal width, fixed and balanced borders"
  bench 4 --case dam-break-obstacle --sizes 16e6 --start-slabs even --balance-every 0,10 --steps 300 --warmup 100
fi

# The table: per case and size, each rank count's step and split, efficiency against 1 GPU.
python3 - "$OUT/dist.jsonl" > "$OUT/table.txt" <<'EOF'
import json, sys
rows = []
try:
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
except FileNotFoundError:
    pass
one = {}
for r in rows:
    if r["ranks"] == 1 and r["balance_every"] != 0:
        key = (r["case"], r["per_rank"], r["particles"] if not r["per_rank"] else 0)
        one[key] = r["step_seconds"]
def ms(s): return f"{1e3 * s:8.2f}"
print("case            kind    particles ranks transport  ms/step  eff   compute    halo migrate imbal  output  MB/step bound_ms imbalance bal")
for r in rows:
    kind = "weak" if r["per_rank"] else "strong"
    key = (r["case"], r["per_rank"], r["particles"] if not r["per_rank"] else 0)
    t1 = one.get(key)
    eff = ""
    if t1:
        eff = t1 / (r["ranks"] * r["step_seconds"]) if kind == "strong" else t1 / r["step_seconds"]
        eff = f"{100 * eff:4.0f}%"
    print(f"{r['case'][:15]:15s} {kind:6s} {r['particles']/1e6:8.1f}M {r['ranks']:5d} {r['transport']:10s}"
          f"{ms(r['step_seconds'])} {eff:>5s}{ms(r['compute_seconds'])}{ms(r['halo_seconds'])}"
          f"{ms(r['migration_seconds'])}{ms(r['imbalance_seconds'])}{ms(r['output_seconds'])}"
          f"{r['bytes_per_step']/1e6:9.1f}{ms(r['bound_seconds'])} {r['imbalance']:9.3f} {r['balance_every']:3d}")
EOF
cat "$OUT/table.txt"
exit $status
