#!/usr/bin/env bash
# On the 4-GPU machine (nvidia-h100-x4 or nvidia-h200-x4; docs/PERFORMANCE.md, "Several GPUs"):
# build for sm_90 with MPI and NCCL, run (part gpu) the tests labelled gpu on one GPU each and
# (part tests) the tests labelled mpi (CPU ranks, and the gpu+mpi
# comparisons of 2 GPUs with 1), then bench_dist under mpirun: strong scaling 1 -> 2 -> 4 GPUs
# at 16M and 64M particles, weak scaling at 16M per GPU, and the dam break's imbalance without
# and with balancing; (part nbody) bench_nbody's N-body across 1, 2, 4 GPUs: the tree at
# 16.8M and 64M bodies (theta 0.5, quadrupoles) and the direct sum at 1M (docs/NBODY.md,
# "Across GPUs"); (part pic) bench_pic's space-charge turn at 10M macroparticles on a
# 128 x 128 x 64 grid with 16 kicks across 1, 2, 4 GPUs (docs/PIC.md, "Running across ranks");
# (part render) bench_render's 64M-particle 1920 x 1080 fluid frame sort-last across 1, 2, 4
# GPUs and a 100-frame sequence rendered by splat-render frame-parallel on 1 and 4 GPUs, once
# per EXR codec (--sequence-compression: zip, the default, is the host's zlib work; none shows
# the GPUs' pace) and per set of planes (--sequence-passes: all, or rgba, splat-render --passes);
# the sort-last frame once per host memory of the shares (--render-host-memory: pinned, the
# default of bench_render and splat-render, and pageable for comparison), and the sequence once
# more on 4 GPUs with --profile (every rank's phases, host ones included, in render.txt)
# (docs/RENDER.md, "Across GPUs"). Logs under $OUT (machine.txt, configure/build logs,
# gpu-tests.log, mpi-tests.log, bench.txt, dist.jsonl, table.txt, nbody.txt, nbody.jsonl, nbody-table.txt,
# pic.txt, pic.jsonl, pic-table.txt, render.txt, render.jsonl, render-table.txt); the tables
# come last on stdout.
#
#   scripts/multi-gpu-check.sh [--parts tests,gpu,strong,weak,balance,nbody,pic,render] [--steps N]
#                              [--sizes 16e6,64e6] [--per-rank 16e6] [--nbody-sizes 16777216,67108864]
#                              [--nbody-direct 1048576] [--nbody-steps N] [--pic-sizes 1e7]
#                              [--pic-turns 20] [--render-sizes 64e6] [--sequence-dx 0.002]
#                              [--sequence-compression zip,none] [--sequence-passes all,rgba]
#                              [--render-host-memory pinned,pageable]
#                              [--tests-regex R] [--jobs N] [--no-build]
#                              [--ranks 1,2,4] [--halo-overlap on,off]
#
# Each part fits one 10-minute call on a warm machine (the build stays between calls): e.g.
# `--parts tests`, then `--parts strong --no-build`, `--parts weak,balance --no-build`,
# `--parts nbody --no-build`, `--parts pic,render --no-build`; the tables are made from every
# line the .jsonl files hold so far (delete them to start afresh).
# --ranks: the rank counts of the strong and weak scaling runs; --halo-overlap: bench_dist's runs
# with the halo overlapping the interior rows (on, the default), without it, or both.
# NCCL_NVLS_ENABLE=0 stays set (no NVLink multicast). PARTIKEL_NCCL=0 in the environment
# measures the staged path (device -> pinned host -> MPI) instead of NCCL.
set -uo pipefail
cd "$(dirname "$0")/.."

parts=tests,gpu,strong,weak,balance,nbody,pic,render
steps=50
sizes=16e6,64e6
per_rank=16e6
nbody_sizes=16777216,67108864
nbody_direct=1048576
nbody_steps=5
pic_sizes=1e7
pic_turns=20
render_sizes=64e6
sequence_dx=0.002
sequence_compression=zip,none
sequence_passes=all
render_host_memory=pinned,pageable
jobs=$(nproc)
tests_regex=.
build_it=1
ranks=1,2,4
halo_overlap=on
while [ $# -gt 0 ]; do
  case "$1" in
    --parts) parts=$2; shift ;;
    --steps) steps=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --per-rank) per_rank=$2; shift ;;
    --nbody-sizes) nbody_sizes=$2; shift ;;
    --nbody-direct) nbody_direct=$2; shift ;;
    --nbody-steps) nbody_steps=$2; shift ;;
    --pic-sizes) pic_sizes=$2; shift ;;
    --pic-turns) pic_turns=$2; shift ;;
    --render-sizes) render_sizes=$2; shift ;;
    --sequence-dx) sequence_dx=$2; shift ;;
    --sequence-compression) sequence_compression=$2; shift ;;
    --sequence-passes) sequence_passes=$2; shift ;;
    --render-host-memory) render_host_memory=$2; shift ;;
    --tests-regex) tests_regex=$2; shift ;;  # the mpi tests (ctest -R) part tests runs
    --ranks) ranks=$2; shift ;;
    --halo-overlap) halo_overlap=$2; shift ;;
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
. scripts/use-deps.sh  # OpenEXR from .deps where the machine has none
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
if has gpu; then
  echo "== gpu tests (CUDA against the CPU, one GPU each; the slow ones left out)"
  (cd "$build" && PARTIKEL_REQUIRE_GPU=1 ctest -L gpu -LE 'mpi|slow' --output-on-failure --timeout 600 -j4) > "$OUT/gpu-tests.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|\*\*\*Failed|Failed  |Passed" "$OUT/gpu-tests.log" | tail -30
fi
if has tests; then
  echo "== mpi tests (CPU ranks; gpu+mpi: 2 GPUs against 1)"
  (cd "$build" && PARTIKEL_REQUIRE_GPU=1 ctest -L mpi -R "$tests_regex" --output-on-failure --timeout 900) > "$OUT/mpi-tests.log" 2>&1 || status=1
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
overlap_for() { if [ "$1" = 1 ]; then echo on; else echo "$halo_overlap"; fi; }  # one rank has no halo
if has strong; then
  echo "== strong scaling: inclined plane at $sizes particles, 1, 2, 4 GPUs"
  for np in ${ranks//,/ }; do
    bench $np --case inclined-plane --sizes "$sizes" --steps "$steps" --output-every 20 --halo-overlap "$(overlap_for $np)"
  done
fi
if has weak; then
  echo "== weak scaling: inclined plane at $per_rank particles per GPU"
  for np in ${ranks//,/ }; do
    bench $np --case inclined-plane --per-rank "$per_rank" --steps "$steps" --halo-overlap "$(overlap_for $np)"
  done
fi
if has balance; then
  echo "== load balancing: the dam break from slabs of equal width, fixed and balanced borders"
  bench 4 --case dam-break-obstacle --sizes 16e6 --start-slabs even --rank-capacity 4 --balance-every 0,10 --steps 300 --warmup 100
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
print("case            kind    particles ranks transport  ms/step  eff   compute    halo migrate imbal  output  MB/step bound_ms imbalance bal  coll waits overlap")
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
          f"{r['bytes_per_step']/1e6:9.1f}{ms(r['bound_seconds'])} {r['imbalance']:9.3f} {r['balance_every']:3d}"
          # Per step (commits since 84459fb): collectives of rank 0, host waits of the busiest rank.
          f"{r.get('collectives_per_step', float('nan')):6.2f}{r.get('host_waits_per_step', float('nan')):6.2f}"
          f" {'on' if r.get('halo_overlap') else 'off' if 'halo_overlap' in r else '-'}")
EOF
cat "$OUT/table.txt"

# N-body: per method, bodies and rank count, the step and its efficiency against one GPU.
if has nbody; then
  echo "== N-body: tree at $nbody_sizes bodies (theta 0.5, quadrupoles), direct at $nbody_direct; 1, 2, 4 GPUs"
  for np in 1 2 4; do
    echo "-- $np ranks: bench_nbody --sections ranks" >> "$OUT/nbody.txt"
    mpi "$np" "$build/bench/bench_nbody" --device cuda --sections ranks --rank-tree-sizes "$nbody_sizes" \
      --rank-direct-sizes "$nbody_direct" --thetas 0.5 --warmup 6 --steps "$nbody_steps" \
      --json "$OUT/nbody.jsonl" >> "$OUT/nbody.txt" 2>&1 || { status=1; tail -5 "$OUT/nbody.txt"; }
  done
  python3 - "$OUT/nbody.jsonl" > "$OUT/nbody-table.txt" <<'EOF'
import json, sys
rows = []
try:
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip() and '"kind":"ranks_' in l]
except FileNotFoundError:
    pass
one = {(r["kind"], r["n"]): r["step_s"] for r in rows if r["ranks"] == 1}
print("method  bodies ranks transport   ms/step   eff Ginter/s imbalance migrated/step MB/rank bound_ms target")
for r in rows:
    t1 = one.get((r["kind"], r["n"]))
    eff = f"{100 * t1 / (r['ranks'] * r['step_s']):4.0f}%" if t1 else "    -"
    kind = r["kind"][len("ranks_"):]
    target = (">= 80%" if r["n"] >= 6e7 else "") if kind == "tree" else ">= 90%"
    print(f"{kind:6s} {r['n']/1e6:6.1f}M {int(r['ranks']):5d} {r['transport']:10s}{1e3 * r['step_s']:9.2f} {eff:>5s}"
          f"{r['interactions_per_s']/1e9:9.1f} {r['imbalance']:9.3f} {r['migrated']:13.0f}"
          f"{r['received_bytes']/1e6:8.1f}{1e3 * r['bound_s']:9.2f} {target}")
EOF
  cat "$OUT/nbody-table.txt"
fi

# PIC: the space-charge turn across 1, 2, 4 GPUs, shared map and a map per kick.
if has pic; then
  echo "== pic: space charge at $pic_sizes macroparticles, 128 x 128 x 64, 16 kicks; 1, 2, 4 GPUs"
  for np in 1 2 4; do
    echo "-- $np ranks: bench_pic --ranks" >> "$OUT/pic.txt"
    mpi "$np" "$build/bench/bench_pic" --device cuda --ranks --sizes "$pic_sizes" --turns "$pic_turns" \
      --json "$OUT/pic.jsonl" >> "$OUT/pic.txt" 2>&1 || { status=1; tail -5 "$OUT/pic.txt"; }
  done
  python3 - "$OUT/pic.jsonl" > "$OUT/pic-table.txt" <<'EOF'
import json, sys
rows = []
try:
    rows = [json.loads(l) for l in open(sys.argv[1]) if '"bench":"pic_ranks"' in l]
except FileNotFoundError:
    pass
one = {(r["variant"], r["particles"]): r["turn_seconds"] for r in rows if r["ranks"] == 1}
print("variant        particles ranks transport  ms/turn   eff  solve+grid_ms allreduce_ms  MB/turn/rank  target")
for r in rows:
    t1 = one.get((r["variant"], r["particles"]))
    eff = f"{100 * t1 / (r['ranks'] * r['turn_seconds']):4.0f}%" if t1 else "    -"
    solves = 1 if r["variant"] == "shared map" else r["kicks"]
    nx, ny, nz = r["grid"]
    mb = 2 * (r["ranks"] - 1) / r["ranks"] * solves * nx * ny * nz * 4 / 1e6  # ring all-reduce, each rank
    print(f"{r['variant']:14s} {r['particles']/1e6:8.1f}M {r['ranks']:5d} {r['transport']:10s}{1e3 * r['turn_seconds']:8.3f} {eff:>5s}"
          f"{1e3 * r['solve_seconds']:14.3f}{1e3 * r['allreduce_seconds']:13.3f}{mb:14.1f}  >= 80% at 4")
EOF
  cat "$OUT/pic-table.txt"
fi

# Rendering: one 64M-particle 1080p frame sort-last per GPU count, and a 100-frame sequence
# frame-parallel on 1 and 4 GPUs (splat-render under mpirun, encoding included).
if has render; then
  echo "== render: $render_sizes particles at 1920 x 1080 sort-last on 1, 2, 4 GPUs"
  for memory in ${render_host_memory//,/ }; do
  for np in 1 2 4; do
    echo "-- $np ranks: bench_render --ranks --host-memory $memory" >> "$OUT/render.txt"
    mpi "$np" "$build/bench/bench_render" --device cuda --ranks --sizes "$render_sizes" --repeats 3 \
      --host-memory "$memory" --json "$OUT/render.jsonl" >> "$OUT/render.txt" 2>&1 || { status=1; tail -5 "$OUT/render.txt"; }
  done
  done
  seq=$build/render-sequence
  rm -rf "$seq" && mkdir -p "$seq"
  echo "== render: a 100-frame dam break (dx $sequence_dx) frame-parallel on 1 and 4 GPUs ($sequence_compression; passes $sequence_passes)"
  if "$build/bin/sph-init" dam-break --dx "$sequence_dx" -o "$seq/init.pks" >> "$OUT/render.txt" 2>&1 &&
     "$build/bin/sph-step" -q --device cuda -i "$seq/init.pks" -o "$seq/frames.pks" --steps 99 --every-steps 1 \
       >> "$OUT/render.txt" 2>&1; then
    for passes in ${sequence_passes//,/ }; do
    for codec in ${sequence_compression//,/ }; do
      for np in 1 4; do
        # One frame per rank first: the fixed costs (start-up, first read), subtracted from the
        # whole sequence's time for the steady rate.
        times=()
        for selection in "0:$np" "0:"; do
          rm -rf "$seq/r$np" && mkdir -p "$seq/r$np"
          start=$(date +%s.%N)
          mpi "$np" "$build/bin/splat-render" --device cuda -q -i "$seq/frames.pks" --split frames --frames "$selection" \
            -o "$seq/r$np/%04d.exr" --size 1920x1080 --compression "$codec" --passes "$passes" >> "$OUT/render.txt" 2>&1 ||
            { status=1; tail -5 "$OUT/render.txt"; continue 2; }
          times+=("$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")")
        done
        frames=$(ls "$seq/r$np" | grep -c '\.exr$')
        python3 -c 'import json, sys; n, f, short, full, c, p = sys.argv[1:]; n, f, short, full = int(n), int(f), float(short), float(full); print(json.dumps({"bench": "render_sequence", "ranks": n, "frames": f, "compression": c, "passes": p, "seconds": full, "fps": f / full, "fixed_seconds": short, "steady_fps": (f - n) / (full - short) if full > short else None}))' \
          "$np" "$frames" "${times[0]}" "${times[1]}" "$codec" "$passes" >> "$OUT/render.jsonl"
      done
    done
    done
    # Where a rank's frame time goes on 4 GPUs: every rank's phase table (upload, download, the
    # wait for a free encoder slot, the overlapped encoding).
    echo "-- 4 ranks, frame-parallel, zip, --profile" >> "$OUT/render.txt"
    rm -rf "$seq/p4" && mkdir -p "$seq/p4"
    mpi 4 "$build/bin/splat-render" --device cuda -q --profile -i "$seq/frames.pks" --split frames -o "$seq/p4/%04d.exr" \
      --size 1920x1080 --compression zip >> "$OUT/render.txt" 2>&1 || { status=1; tail -5 "$OUT/render.txt"; }
  else
    status=1; tail -5 "$OUT/render.txt"
  fi
  rm -rf "$seq"
  python3 - "$OUT/render.jsonl" > "$OUT/render-table.txt" <<'EOF'
import json, sys
rows = []
try:
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
except FileNotFoundError:
    pass
frames = [r for r in rows if r.get("bench") == "render_ranks"]
def memory(r):  # the shares' host memory (older lines: pageable)
    return r.get("host_memory", "pageable")
one = {(r["fluid"], memory(r)): r["frame_seconds"] for r in frames if r["ranks"] == 1}
print("one frame sort-last:  fluid  walls ranks transport memory    ms/frame speed-up composite_ms upload_ms  halo%")
for r in frames:
    t1 = one.get((r["fluid"], memory(r)))
    up = f"{t1 / r['frame_seconds']:6.2f}x" if t1 else "      -"
    upload = r.get("phases", {}).get("upload", {}).get("seconds")
    upload = f"{1e3 * upload:10.1f}" if upload is not None else "         -"
    print(f"{r['fluid']/1e6:26.1f}M {r['walls']/1e6:5.1f}M {r['ranks']:5d} {r['transport']:10s}{memory(r):9s}"
          f"{1e3 * r['frame_seconds']:9.1f}  {up}{1e3 * r['composite_seconds']:13.1f}{upload} {100 * r['halo'] / max(r['fluid'], 1):6.1f}")
seqs = [r for r in rows if r.get("bench") == "render_sequence"]
def rate(r):  # frames per second without the fixed costs where measured, else wall clock
    return r.get("steady_fps") or r["fps"]
def key(r):  # frames, codec, passes (older lines: zip, all)
    return r["frames"], r.get("compression", "zip"), r.get("passes", "all")
one = {key(r): rate(r) for r in seqs if r["ranks"] == 1}
print("sequence frame-parallel: frames codec passes ranks  wall fps  fixed_s  steady fps  speed-up (steady; target 4x on 4 GPUs)")
for r in seqs:
    codec, passes = key(r)[1:]
    f1 = one.get(key(r))
    up = f"{rate(r) / f1:5.2f}x" if f1 else "    -"
    fixed = f"{r['fixed_seconds']:8.2f}" if "fixed_seconds" in r else "       -"
    steady = f"{r['steady_fps']:11.2f}" if r.get("steady_fps") else "          -"
    print(f"{r['frames']:30d} {codec:>5s} {passes:>6s} {r['ranks']:5d} {r['fps']:9.2f} {fixed} {steady}  {up}")
EOF
  cat "$OUT/render-table.txt"
fi
exit $status

