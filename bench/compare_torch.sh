#!/usr/bin/env bash
# Speed of one training step, C++ trainer (bench/train_step.cpp) against PyTorch CPU
# (bench/torch_train_step.py), on the same model and minibatch: acds three-layer form (8), d = 5, n = 20,
# batch 4000, Adam, per-matrix gradient clipping; both on ONE thread, float64, run alternately REPS times.
# Prints the median time per step of each and the ratios. Also times PyTorch with the acds authors' own
# attention formula (N x N scores) and in float32, for reference.
#
# Installs Debian's python3-torch if missing (benchmark only: ./verify and ./test never need it).
# A benchmark, not a test: nothing here asserts a speed.
#
# Usage: bench/compare_torch.sh            (env: BUILD_DIR=build, REPS=5, STEPS=20)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
REPS=${REPS:-5}
STEPS=${STEPS:-20}
PY=/usr/bin/python3

if ! "$PY" -c "import torch" 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "installing python3-torch (Debian) for the baseline..." >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-torch >/dev/null
  else
    echo "PyTorch missing; run as root: apt-get install -y python3-torch" >&2
    exit 2
  fi
fi
if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$BUILD_DIR/CMakeCache.txt")
if [[ "$build_type" != "Release" ]]; then
  echo "error: $BUILD_DIR is a '$build_type' build; use BUILD_DIR=<a Release build directory>" >&2
  exit 2
fi
cmake --build "$BUILD_DIR" -j2 --target bench-train-step >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
  OMP_NUM_THREADS=1 "$BUILD_DIR/bench-train-step" --steps "$STEPS" --threads 1 >>"$tmp/cpp.txt"
  OMP_NUM_THREADS=1 "$PY" bench/torch_train_step.py --steps "$STEPS" --threads 1 >>"$tmp/torch.txt"
done
OMP_NUM_THREADS=1 "$PY" bench/torch_train_step.py --steps 3 --threads 1 --formula authors >"$tmp/torch_authors.txt"
OMP_NUM_THREADS=1 "$PY" bench/torch_train_step.py --steps "$STEPS" --threads 1 --dtype float32 >"$tmp/torch_f32.txt"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
"$PY" - "$tmp" <<'PYEOF'
import statistics, sys
d = sys.argv[1]
def col(path, key):
    return [float(l.split(":")[1]) for l in open(f"{d}/{path}") if l.startswith(key + ":")]
c, t = col("cpp.txt", "per_step_ms"), col("torch.txt", "per_step_ms")
cc, tc = col("cpp.txt", "per_step_cpu_ms"), col("torch.txt", "per_step_cpu_ms")
ta, tf = col("torch_authors.txt", "per_step_ms")[0], col("torch_f32.txt", "per_step_ms")[0]
m = statistics.median
print()
print(f"{'one training step (batch 4000, 1 thread)':44s}{'wall ms':>10s}{'CPU ms':>10s}")
print(f"{'C++ (icl::learn)':44s}{m(c):10.1f}{m(cc):10.1f}   runs: {' '.join(f'{x:.1f}' for x in c)}")
print(f"{'PyTorch float64, same association':44s}{m(t):10.1f}{m(tc):10.1f}   runs: {' '.join(f'{x:.1f}' for x in t)}")
print(f"{'PyTorch float32, same association':44s}{tf:10.1f}")
print(f"{'PyTorch float64, authors N x N formula':44s}{ta:10.1f}")
print()
print(f"ratio PyTorch / C++ (float64, same association): {m(t) / m(c):5.2f}x wall, {m(tc) / m(cc):5.2f}x CPU   (goal >= 3x)")
print(f"ratio PyTorch float32 / C++:                     {tf / m(c):5.2f}x wall")
print(f"ratio PyTorch authors' formula / C++:            {ta / m(c):5.2f}x wall")
PYEOF
