#!/bin/bash
# Standalone build of bench_format, for machines that lack dependencies of other areas
# (OpenEXR, FFTW, ...): bench/format/build_standalone.sh [OUTPUT]. Run from the repository root.
set -e
gen=${GEN:-/tmp/gen}; out=${1:-/tmp/bench_format}
mkdir -p "$gen"
printf '#pragma once\n#define PARTIKEL_VERSION "0.1.0"\n#define PARTIKEL_GIT_COMMIT "bench"\n#define PARTIKEL_HAVE_CUDA 0\n#define PARTIKEL_CUDA_ARCHITECTURES ""\n' > "$gen/partikel_config.hpp"
H5INC=$(ls -d /usr/include/hdf5/serial 2>/dev/null || echo /usr/include)
H5LIB=$(ls /usr/lib/x86_64-linux-gnu/libhdf5_serial.so >/dev/null 2>&1 && echo -lhdf5_serial || echo -lhdf5)
srcs="bench/format/format_bench.cpp bench/common/bench_program.cpp $(ls base/*.cpp formats/*.cpp formats/*/*.cpp) $(ls lib/core/*.cpp)"
mkdir -p /tmp/objs
pids=()
for s in $srcs; do
  o=/tmp/objs/$(echo $s | tr / _).o
  g++ -std=c++20 -O2 -fopenmp -DNDEBUG -Ilib -I. -Ibench/common -I"$gen" -I"$H5INC" -c "$s" -o "$o" &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; done
g++ -fopenmp /tmp/objs/*.o -o "$out" -lzstd $H5LIB
