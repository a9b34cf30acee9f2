#!/usr/bin/env bash
# The GPU check of issue 27 (first part): on a machine with an NVIDIA GPU, nvcc and CMake but none of this project's
# Debian packages and no network, build the cuda backend from Debian packages carried along, run the CPU-vs-GPU
# equality test (tests/gpu/cuda_equality.cpp: the kernel's per-prompt losses against the portable path's, the same
# seeds) and time losses() of sja.thm2-sized LSA stacks on the GPU against one CPU core of the same machine.
# Not yet here (issue 27 item 4): the training step (minibatch() is not on the GPU yet) and the PyTorch baselines.
# Status: the download, unpacking and configuring against the unpacked packages were run on the 2-core development
# machine (every package found in the prefix); the build and the run on a GPU machine have not been run yet.
#
#   bench/gpu/check.sh --download   here (Debian 12 with apt): the -dev packages into bench/gpu/debs/ (git-ignored)
#   bench/gpu/check.sh              there: unpack them (dpkg -x) into build-gpu/prefix, configure, build, run
# Env: BUILD_DIR (default build-gpu), CUDA_ARCH (default 90, the H200).
set -euo pipefail
cd "$(dirname "$0")/../.."
DEBS=bench/gpu/debs
# What configuring and building icl-cuda-equality needs (the library's headers and libraries, doctest for the
# test configuration); no Python, no benchmarks.
# libzip4's own dependencies (libbz2, libssl3, zlib) come along in case the GPU machine's image lacks them.
PACKAGES="libeigen3-dev libboost1.74-dev libfmt-dev libfmt9 libcli11-dev nlohmann-json3-dev libzip-dev libzip4
          librandom123-dev doctest-dev libbz2-1.0 libssl3 zlib1g"

if [[ "${1:-}" == "--download" ]]; then
  mkdir -p "$DEBS"
  (cd "$DEBS" && apt-get download $PACKAGES)
  du -sh "$DEBS"
  exit 0
fi

BUILD_DIR=${BUILD_DIR:-build-gpu}
ls "$DEBS"/*.deb >/dev/null 2>&1 || { echo "no packages in $DEBS: run bench/gpu/check.sh --download on a Debian machine" >&2; exit 2; }
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null || { echo "nvcc not found" >&2; exit 2; }
prefix=$PWD/$BUILD_DIR/prefix
mkdir -p "$prefix"
for deb in "$DEBS"/*.deb; do dpkg -x "$deb" "$prefix"; done
libs="$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu"
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix/usr" \
      -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$libs" \
      -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DICL_BUILD_PYTHON=OFF -DICL_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target icl-cuda-equality
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); CPU: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
"$BUILD_DIR"/icl-cuda-equality --time
