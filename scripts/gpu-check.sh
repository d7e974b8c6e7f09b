#!/usr/bin/env bash
# On the GPU machine (docs/PERFORMANCE.md): build with CUDA for sm_90, run the `gpu` tests (CUDA
# against CPU; those also labelled mpi need several GPUs: scripts/multi-gpu-check.sh) and the
# benchmarks (bench_dist only when named: it is multi-gpu-check's), and leave logs under $OUT.
# Prints a short summary last.
#
#   scripts/gpu-check.sh [--no-tests] [--no-bench] [--bench NAME]... [--args NAME "ARGS"]...
#                        [--target T]... [--tests REGEX] [--jobs N] [--baseline TARBALL]...
#                        [--cpu-rounds N] [--no-cpu]
#
# --target builds only those targets (default: all); --tests limits the gpu tests by name;
# --bench runs only the named benchmarks (default: all), each with the extra arguments given
# by --args NAME "ARGS". --baseline TARBALL (a `git archive --prefix=base/` of an earlier
# commit, carried in an ignored folder; repeatable) builds the same benchmarks from that tree
# and runs them with the same arguments, so that before and after are measured on one machine
# (a later call on the same warm machine finds those builds in /tmp/baseline-N and runs them
# again).
#
# The CPU backend is benchmarked too (docs/PERFORMANCE.md, "The CPU backend"), with every host
# core: bench_sph's DualSPHysics case at dp 4.5 mm (1.04M particles), alternated with each
# baseline's --cpu-rounds times (default 2), then the snow step, the N-body tree and direct sum
# and the PIC turn at sizes a CPU runs in seconds (cpu.txt, cpu_*.jsonl), each followed by the
# baselines' where --bench built them. --no-cpu skips it.
#
# PARTIKEL_COMMIT=<commit> names the commit the build reports (the device machine's copy of the
# tree may carry a stale .git). Carry .deps (Debian's libopenexr and libimath .deb packages,
# fetched beforehand) when the machine has no OpenEXR.
set -uo pipefail
cd "$(dirname "$0")/.."

run_tests=1
run_bench=1
benches=()
targets=()
declare -A bench_args=()
test_regex=
baselines=()
cpu_rounds=2
run_cpu=1
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tests) run_tests=0 ;;
    --no-bench) run_bench=0 ;;
    --bench) benches+=("$2"); shift ;;
    --args) bench_args[$2]=$3; shift 2 ;;
    --jobs) jobs=$2; shift ;;
    --target) targets+=(--target "$2"); shift ;;
    --tests) test_regex=$2; shift ;;
    --baseline) baselines+=("$2"); shift ;;
    --cpu-rounds) cpu_rounds=$2; shift ;;
    --no-cpu) run_cpu=0 ;;
    *) echo "gpu-check: error: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

OUT=${OUT:-$PWD/out/gpu-check}
mkdir -p "$OUT"
build=build-gpu

. scripts/use-deps.sh  # OpenEXR from .deps where the machine has none

{ nvidia-smi; nvcc --version; git log -1 --format='commit %H %cd' 2>/dev/null; date -u; } > "$OUT/machine.txt" 2>&1

configure() {  # source_dir build_dir
  local commit_arg=()
  if [ -f "$1/COMMIT" ]; then commit_arg=(-DPARTIKEL_GIT_COMMIT="$(cat "$1/COMMIT")")  # a snapshot without .git
  else commit_arg=(-DPARTIKEL_GIT_COMMIT="${PARTIKEL_COMMIT:-}"); fi  # empty: from .git
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARTIKEL_CUDA=ON "${commit_arg[@]}" \
        -DCMAKE_CUDA_ARCHITECTURES=90
}

echo "== configure + build (sm_90, -j$jobs)"
baseline_pids=()
for i in "${!baselines[@]}"; do
  dir=/tmp/baseline-$i
  rm -rf "$dir" && mkdir -p "$dir" && tar -xzf "${baselines[$i]}" -C "$dir"
  # Built beside the main build with a share of the cores: only the benchmarks asked for.
  ( configure "$dir/base" "$dir/build" > "$OUT/baseline-$i-build.log" 2>&1 &&
    cmake --build "$dir/build" -j $(( jobs / 2 > 1 ? jobs / 2 : 1 )) \
      $(for b in "${benches[@]:-bench_sph}" bench_sph; do printf -- '--target %s ' "$b"; done) >> "$OUT/baseline-$i-build.log" 2>&1 ) &
  baseline_pids+=($!)
done
if ! configure . "$build" > "$OUT/configure.log" 2>&1; then
  tail -30 "$OUT/configure.log"; exit 1
fi
if ! cmake --build "$build" -j "$jobs" "${targets[@]}" > "$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -40; exit 1
fi

status=0
if [ $run_tests = 1 ]; then
  echo "== gpu tests"
  # Without the gpu+mpi tests: they need several GPUs (scripts/multi-gpu-check.sh).
  (cd "$build" && PARTIKEL_REQUIRE_GPU=1 ctest -L gpu -LE mpi ${test_regex:+-R "$test_regex"} --output-on-failure --timeout 600) > "$OUT/gpu-tests.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|\*\*\*Failed|Failed  |Passed" "$OUT/gpu-tests.log" | tail -40
fi

run_bench() {  # binary name output_prefix [device]
  local args=${bench_args[$2]:-} device=${4:-cuda}
  echo "-- $3$2 --device $device $args"
  # shellcheck disable=SC2086
  "$1" --device "$device" --json "$OUT/$3$2.jsonl" $args > "$OUT/$3$2.txt" 2>&1 || { status=1; tail -5 "$OUT/$3$2.txt"; }
  tail -40 "$OUT/$3$2.txt"
}

baseline_dirs=()
for i in "${!baseline_pids[@]}"; do
  if wait "${baseline_pids[$i]}"; then baseline_dirs+=("/tmp/baseline-$i");
  else echo "baseline $i build failed:"; tail -20 "$OUT/baseline-$i-build.log"; status=1; fi
done
if [ ${#baselines[@]} -eq 0 ]; then  # built by an earlier call on this machine
  for d in /tmp/baseline-*; do [ -x "$d/build/bench/bench_sph" ] && baseline_dirs+=("$d"); done
fi

if [ $run_bench = 1 ]; then
  echo "== benchmarks"
  if [ ${#benches[@]} -eq 0 ]; then
    for b in "$build"/bench/bench_*; do
      [ -x "$b" ] && [ "$(basename "$b")" != bench_dist ] && benches+=("$(basename "$b")")
    done
  fi
  for b in "${benches[@]}"; do run_bench "$build/bench/$b" "$b" ""; done
  for d in "${baseline_dirs[@]}"; do
    for b in "${benches[@]}"; do
      [ -x "$d/build/bench/$b" ] && run_bench "$d/build/bench/$b" "$b" "$(basename "$d")_"
    done
  done
fi

if [ $run_cpu = 1 ]; then
  echo "== CPU backend ($(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'))" | tee "$OUT/cpu.txt"
  cpu_sph() {  # build_dir label
    echo "-- $2: bench_sph --device cpu --configs dualsphysics --dx 0.0045 --steps 20 --warmup 3" >> "$OUT/cpu.txt"
    "$1/bench/bench_sph" --device cpu --configs dualsphysics --dx 0.0045 --steps 20 --warmup 3 \
      --json "$OUT/cpu_sph.jsonl" >> "$OUT/cpu.txt" 2>&1 || { status=1; tail -5 "$OUT/cpu.txt"; }
  }
  for _ in $(seq "$cpu_rounds"); do
    cpu_sph "$build" "this commit"
    for d in "${baseline_dirs[@]}"; do cpu_sph "$d/build" "$(cat "$d/base/COMMIT" 2>/dev/null || basename "$d")"; done
  done
  cpu_run() {  # bench args...: this commit's, then each baseline's where --bench built it there
    local builds=("$build") labels=("this commit") d
    for d in "${baseline_dirs[@]}"; do
      [ -x "$d/build/bench/$1" ] && builds+=("$d/build") && labels+=("$(cat "$d/base/COMMIT" 2>/dev/null || basename "$d")")
    done
    for i in "${!builds[@]}"; do
      echo "-- ${labels[$i]}: $*" >> "$OUT/cpu.txt"
      timeout 150 "${builds[$i]}/bench/$1" --device cpu --json "$OUT/cpu_$1.jsonl" "${@:2}" >> "$OUT/cpu.txt" 2>&1 ||
        { status=1; tail -5 "$OUT/cpu.txt"; }
    done
  }
  cpu_run bench_snow --sizes 1000000 --steps 10 --warmup 3
  cpu_run bench_nbody --sections tree,direct --tree-sizes 1048576 --direct-sizes 65536 --thetas 0.5 --steps 3 --warmup 1
  cpu_run bench_pic --sizes 1000000 --turns 3
  grep -E "^--|ms|step|turn" "$OUT/cpu.txt" | tail -60
fi
exit $status
