#!/usr/bin/env bash
# Speed of the sja.thm2 Monte Carlo estimator (d = 4, n = 200): the C++ engine (Google Benchmark,
# bench/bench_sja_thm2.cpp, 1 and 2 threads) against plain vectorised NumPy (bench/numpy_sja_thm2.py,
# single-threaded), on this machine, one after the other. Prints prompts per second for each, the
# ratios, and both Monte Carlo estimates beside the exact loss 874/200 = 4.37.
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
if [[ ! -x "$BUILD_DIR/bench-sja-thm2" ]]; then
  echo "error: $BUILD_DIR/bench-sja-thm2 was not built (is Google Benchmark installed?)" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "running C++ (Google Benchmark, $REPS repetitions)..."
"$BUILD_DIR/bench-sja-thm2" --benchmark_filter=BM_sja_thm2_estimator --benchmark_repetitions="$REPS" --benchmark_format=json >"$tmp/cpp.json" 2>/dev/null
"$BUILD_DIR/bench-sja-thm2" --benchmark_filter='draw_prompt|forward' --benchmark_format=json >"$tmp/parts.json" 2>/dev/null
echo "running NumPy ($REPS x $NUMPY_PROMPTS prompts)..."
"$PY" bench/numpy_sja_thm2.py --repeat "$REPS" --prompts "$NUMPY_PROMPTS" >"$tmp/numpy.txt"
echo "running NumPy with the paper's formula as written (N x N scores; $REPS x $((NUMPY_PROMPTS / 4)) prompts)..."
"$PY" bench/numpy_sja_thm2.py --plain --repeat "$REPS" --prompts "$((NUMPY_PROMPTS / 4))" >"$tmp/numpy_plain.txt"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

"$PY" - "$tmp/cpp.json" "$tmp/numpy.txt" "$tmp/parts.json" "$tmp/numpy_plain.txt" <<'EOF'
import json, math, statistics, sys

cpp = json.load(open(sys.argv[1]))
runs = {}
for b in cpp["benchmarks"]:
    if b.get("run_type", "iteration") != "iteration":
        continue
    threads = int(b["name"].split("/")[1])
    runs.setdefault(threads, []).append(b)
def read_numpy(path):
    out = {}
    for line in open(path):
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.split()[0] if v.split() else ""
    return out

npy = read_numpy(sys.argv[2])
plain = read_numpy(sys.argv[4])

def med(xs):
    return statistics.median(xs)

PROMPTS_PER_ITER = 16384  # bench/bench_sja_thm2.cpp
c1 = med([b["prompts_per_s"] for b in runs[1]])
c2 = med([b["prompts_per_s"] for b in runs[2]])
# cpu_time: per iteration, in the benchmark's unit; the main thread's only, so used for 1 thread only.
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
c1_cpu = med([PROMPTS_PER_ITER / (b["cpu_time"] * UNIT[b["time_unit"]]) for b in runs[1]])
n_wall = float(npy["prompts_per_s"])
n_cpu = float(npy["prompts_per_cpu_s"])

print()
print(f"{'':34s}{'prompts/s (wall)':>18s}{'prompts/CPU-s':>16s}")
print(f"{'C++ 1 thread':34s}{c1:18.0f}{c1_cpu:16.0f}")
print(f"{'C++ 2 threads':34s}{c2:18.0f}{'':>16s}")
p_wall, p_cpu = float(plain["prompts_per_s"]), float(plain["prompts_per_cpu_s"])
print(f"{'NumPy, same association':34s}{n_wall:18.0f}{n_cpu:16.0f}")
print(f"{'NumPy, paper formula (N x N)':34s}{p_wall:18.0f}{p_cpu:16.0f}")
print()
print(f"ratio C++ 1 thread / NumPy : {c1 / n_wall:6.2f}x wall, {c1_cpu / n_cpu:6.2f}x CPU time   (target >= 10x)")
print(f"ratio C++ 1 thread / NumPy paper formula: {c1 / p_wall:6.2f}x wall, {c1_cpu / p_cpu:6.2f}x CPU time "
      "(the C++ engine's re-association is part of the difference)")
print(f"ratio C++ 2 threads / NumPy: {c2 / n_wall:6.2f}x wall")
print(f"2-thread speed-up of C++   : {c2 / c1:6.2f}x")
parts = {b["name"]: b for b in json.load(open(sys.argv[3]))["benchmarks"]}
draw = parts["BM_sja_thm2_draw_prompt"]["cpu_time"] * UNIT[parts["BM_sja_thm2_draw_prompt"]["time_unit"]] * 1e6
fwd = parts["BM_sja_thm2_forward"]["cpu_time"] * UNIT[parts["BM_sja_thm2_forward"]["time_unit"]] * 1e6
print(f"C++ per prompt (CPU): draw the prompt {draw:.1f} us + forward pass {fwd:.1f} us; "
      f"whole estimator {1e6 / c1_cpu:.1f} us; NumPy {1e6 / n_cpu:.1f} us")
print()
b = runs[1][0]
cm, cs, cn = b["estimate_mean"], b["estimate_stderr"], int(b["samples"])
nm, ns, nn = float(npy["estimate_mean"]), float(npy["estimate_stderr"]), int(npy["samples"])
exact = 874 / 200
same = all(r["estimate_mean"] == cm for t in runs for r in runs[t])
print(f"estimate C++  : {cm:.4f} +- {cs:.3f} ({cn} prompts; identical for 1 and 2 threads: {same})")
print(f"estimate NumPy: {nm:.4f} +- {ns:.3f} ({nn} prompts)")
print(f"exact         : {exact:.4f}")
print(f"z(C++ - NumPy) = {(cm - nm) / math.hypot(cs, ns):+.2f}, z(C++ - exact) = {(cm - exact) / cs:+.2f}, "
      f"z(NumPy - exact) = {(nm - exact) / ns:+.2f}")
EOF
