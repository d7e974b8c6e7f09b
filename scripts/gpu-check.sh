#!/usr/bin/env bash
# On the GPU machine (docs/PERFORMANCE.md): build with CUDA for sm_90, run the `gpu` tests (CUDA
# against CPU; those also labelled mpi need several GPUs: scripts/multi-gpu-check.sh) and the
# benchmarks (bench_dist only when named: it is multi-gpu-check's), and leave logs under $OUT.
# Prints a short summary last.
#
#   scripts/gpu-check.sh [--no-tests] [--no-bench] [--bench NAME]... [--args NAME "ARGS"]...
#                        [--target T]... [--tests REGEX] [--jobs N] [--baseline TARBALL]
#
# --target builds only those targets (default: all); --tests limits the gpu tests by name;
# --bench runs only the named benchmarks (default: all), each with the extra arguments given
# by --args NAME "ARGS". --baseline TARBALL (a `git archive --prefix=base/` of an earlier
# commit, carried in an ignored folder) builds the same benchmarks from that tree and runs
# them with the same arguments, so that before and after are measured on one machine (a later
# call on the same warm machine finds that build in /tmp/baseline and runs it again).
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
baseline=
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
    --baseline) baseline=$2; shift ;;
    *) echo "gpu-check: error: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

OUT=${OUT:-$PWD/out/gpu-check}
mkdir -p "$OUT"
build=build-gpu

if [ -d .deps ] && ls .deps/*.deb >/dev/null 2>&1 && ! { command -v pkg-config >/dev/null && pkg-config --exists OpenEXR; }; then
  mkdir -p /tmp/exr
  for f in .deps/*.deb; do dpkg -x "$f" /tmp/exr; done
  pcdir=/tmp/exr/usr/lib/x86_64-linux-gnu/pkgconfig
  sed -i 's#=/usr#=/tmp/exr/usr#g' "$pcdir"/*.pc  # prefix and the absolute include/lib dirs
  export PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export CMAKE_PREFIX_PATH=/tmp/exr/usr LD_LIBRARY_PATH=/tmp/exr/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

{ nvidia-smi; nvcc --version; git log -1 --format='commit %H %cd' 2>/dev/null; date -u; } > "$OUT/machine.txt" 2>&1

configure() {  # source_dir build_dir
  local commit_arg=()
  if [ -f "$1/COMMIT" ]; then commit_arg=(-DPARTIKEL_GIT_COMMIT="$(cat "$1/COMMIT")")  # a snapshot without .git
  else commit_arg=(-DPARTIKEL_GIT_COMMIT="${PARTIKEL_COMMIT:-}"); fi  # empty: from .git
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARTIKEL_CUDA=ON "${commit_arg[@]}" \
        -DCMAKE_CUDA_ARCHITECTURES=90
}

echo "== configure + build (sm_90, -j$jobs)"
baseline_pid=
if [ -n "$baseline" ]; then
  rm -rf /tmp/baseline && mkdir -p /tmp/baseline && tar -xzf "$baseline" -C /tmp/baseline
  # Built beside the main build with a share of the cores: only the benchmarks asked for.
  ( configure /tmp/baseline/base /tmp/baseline/build > "$OUT/baseline-build.log" 2>&1 &&
    cmake --build /tmp/baseline/build -j $(( jobs / 2 > 1 ? jobs / 2 : 1 )) \
      $(for b in "${benches[@]:-bench_sph}"; do printf -- '--target %s ' "$b"; done) >> "$OUT/baseline-build.log" 2>&1 ) &
  baseline_pid=$!
fi
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

run_bench() {  # binary name output_prefix
  local args=${bench_args[$2]:-}
  echo "-- $3$2 $args"
  # shellcheck disable=SC2086
  "$1" --device cuda --json "$OUT/$3$2.jsonl" $args > "$OUT/$3$2.txt" 2>&1 || { status=1; tail -5 "$OUT/$3$2.txt"; }
  tail -40 "$OUT/$3$2.txt"
}

baseline_built=0
if [ -n "$baseline_pid" ]; then
  if wait "$baseline_pid"; then baseline_built=1; else echo "baseline build failed:"; tail -20 "$OUT/baseline-build.log"; status=1; fi
elif [ -n "$baseline" ] || [ -x /tmp/baseline/build/bench/bench_sph ]; then
  baseline_built=1  # built by an earlier call on this machine
fi

if [ $run_bench = 1 ]; then
  echo "== benchmarks"
  if [ ${#benches[@]} -eq 0 ]; then
    for b in "$build"/bench/bench_*; do
      [ -x "$b" ] && [ "$(basename "$b")" != bench_dist ] && benches+=("$(basename "$b")")
    done
  fi
  for b in "${benches[@]}"; do run_bench "$build/bench/$b" "$b" ""; done
  if [ $baseline_built = 1 ]; then
    for b in "${benches[@]}"; do
      [ -x "/tmp/baseline/build/bench/$b" ] && run_bench "/tmp/baseline/build/bench/$b" "$b" "baseline_"
    done
  fi
fi
exit $status
