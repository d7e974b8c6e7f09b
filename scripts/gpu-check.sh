#!/usr/bin/env bash
# On the GPU machine (see DEVELOPERS.md, "The GPU machine"): build with CUDA for sm_90, run
# the `gpu` tests (CUDA against CPU) and the benchmarks, and leave logs under $OUT.
#
#   scripts/gpu-check.sh [--no-tests] [--no-bench] [--bench NAME]... [--target T]... [--tests REGEX] [--jobs N]
#
# --target builds only those targets (default: all); --tests limits the gpu tests by name.
#
# Carry .deps (OpenEXR packages from ../shared/device/fetch-exr-debs.sh) when the machine
# has no OpenEXR. Prints a short summary last.
set -uo pipefail
cd "$(dirname "$0")/.."

run_tests=1
run_bench=1
benches=()
targets=()
test_regex=
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --no-tests) run_tests=0 ;;
    --no-bench) run_bench=0 ;;
    --bench) benches+=("$2"); shift ;;
    --jobs) jobs=$2; shift ;;
    --target) targets+=(--target "$2"); shift ;;
    --tests) test_regex=$2; shift ;;
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

echo "== configure + build (sm_90, -j$jobs)"
commit_arg=()
[ -f COMMIT ] && commit_arg=(-DPARTIKEL_GIT_COMMIT="$(cat COMMIT)")  # a snapshot without .git
if ! cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPARTIKEL_CUDA=ON "${commit_arg[@]}" \
      -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/configure.log" 2>&1; then
  tail -30 "$OUT/configure.log"; exit 1
fi
if ! cmake --build "$build" -j "$jobs" "${targets[@]}" > "$OUT/build.log" 2>&1; then
  grep -E "error|Error" "$OUT/build.log" | head -40; exit 1
fi

status=0
if [ $run_tests = 1 ]; then
  echo "== gpu tests"
  (cd "$build" && PARTIKEL_REQUIRE_GPU=1 ctest -L gpu ${test_regex:+-R "$test_regex"} --output-on-failure --timeout 600) > "$OUT/gpu-tests.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|\*\*\*Failed|Failed  |Passed" "$OUT/gpu-tests.log" | tail -40
fi

if [ $run_bench = 1 ]; then
  echo "== benchmarks"
  if [ ${#benches[@]} -eq 0 ]; then
    for b in "$build"/bench/bench_*; do [ -x "$b" ] && benches+=("$(basename "$b")"); done
  fi
  for b in "${benches[@]}"; do
    echo "-- $b"
    "$build/bench/$b" --device cuda --json "$OUT/$b.jsonl" > "$OUT/$b.txt" 2>&1 || { status=1; tail -5 "$OUT/$b.txt"; }
    cat "$OUT/$b.txt" | tail -40
  done
fi
exit $status
