#!/usr/bin/env bash
# Speed of the sja.thm2 Monte Carlo estimator (d = 4, n = 200): the C++ engine (Google Benchmark,
# bench/bench_sja_thm2.cpp, 1 and 2 threads) against vectorised NumPy (bench/numpy_sja_thm2.py: the
# sufficient-statistics estimator, the forward pass re-associated, the paper's N x N formula; single-
# threaded) and a batched PyTorch CPU forward pass (bench/torch_sja_thm2.py, 1 thread and all threads),
# on this machine, alternating (one of each per repetition). Prints prompts per second for each, the
# ratios per core and per machine (median of the per-repetition ratios; bench/compare_summary.py), and
# every Monte Carlo estimate beside the exact loss 874/200 = 4.37. Installs Debian's python3-torch if
# missing (benchmark only: ./verify and ./test never need it).
#
# A benchmark, not a test: nothing here asserts a speed. The fair ratio is C++ 1 thread against
# NumPy (single-threaded). Wall-clock rates depend on how busy the machine is; the rates by CPU time
# (C++ 1 thread: the benchmark's cpu_time; NumPy: process CPU time) are also printed, and are the
# steadier numbers on a shared machine.
#
# Usage: bench/compare_numpy.sh            (env: BUILD_DIR=build, REPS=3, NUMPY_PROMPTS=16384)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
REPS=${REPS:-3}
NUMPY_PROMPTS=${NUMPY_PROMPTS:-16384}
PY=/usr/bin/python3  # Debian python3-numpy; the pyenv python3 on PATH has no NumPy

# Build (Release) if needed: configure a fresh directory as Release; refuse to time another build type.
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
if [[ "$build_type" != "Release" ]]; then
  echo "error: $BUILD_DIR is a '$build_type' build; use BUILD_DIR=<a Release build directory>" >&2
  exit 2
fi
cmake --build "$BUILD_DIR" -j2 --target bench-sja-thm2 >/dev/null

if ! "$PY" -c "import torch" 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "installing python3-torch (Debian) for the PyTorch baseline..." >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-torch >/dev/null
  else
    echo "PyTorch missing; run as root: apt-get install -y python3-torch" >&2
    exit 2
  fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Side by side: every repetition runs the C++ estimator and then each baseline once, so that the ratios are
# taken pair by pair (a machine whose speed drifts moves both members of a pair).
for r in $(seq 1 "$REPS"); do
  echo "repetition $r of $REPS..."
  "$BUILD_DIR/bench-sja-thm2" --benchmark_filter=BM_sja_thm2_estimator --benchmark_format=json >"$tmp/cpp.$r.json" 2>/dev/null
  "$PY" bench/numpy_sja_thm2.py --sufficient --repeat 1 --prompts "$NUMPY_PROMPTS" >"$tmp/suff.$r.txt"
  "$PY" bench/numpy_sja_thm2.py --repeat 1 --prompts "$NUMPY_PROMPTS" >"$tmp/numpy.$r.txt"
  "$PY" bench/numpy_sja_thm2.py --plain --repeat 1 --prompts "$((NUMPY_PROMPTS / 4))" >"$tmp/plain.$r.txt"
  "$PY" bench/torch_sja_thm2.py --threads 1 --repeat 1 --prompts "$((NUMPY_PROMPTS / 2))" >"$tmp/torch1.$r.txt"
  "$PY" bench/torch_sja_thm2.py --threads 0 --repeat 1 --prompts "$((NUMPY_PROMPTS / 2))" >"$tmp/torchall.$r.txt"
done
"$BUILD_DIR/bench-sja-thm2" --benchmark_filter='draw_prompt|forward' --benchmark_format=json >"$tmp/parts.json" 2>/dev/null
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$PY" bench/compare_summary.py "$tmp" "$REPS" "$(nproc)"
