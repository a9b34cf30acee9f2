#!/usr/bin/python3
"""Summary of bench/compare_numpy.sh: reads the per-repetition outputs in TMP and prints prompts per second,
the ratios per core (C++ 1 thread against each baseline, CPU time) and per machine (C++ on every thread
against the baseline using the whole machine, wall clock), each the median of the per-repetition ratios.
Usage: bench/compare_summary.py TMP REPS CORES
"""
import json
import statistics
import sys

tmp, reps, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
PROMPTS_PER_ITER = 16384  # bench/bench_sja_thm2.cpp
med = statistics.median


def read_txt(path):
    out = {}
    for line in open(path):
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.split()[0] if v.split() else ""
    return out


cpp = []  # per repetition: {threads: benchmark}
for r in range(1, reps + 1):
    runs = {}
    for b in json.load(open(f"{tmp}/cpp.{r}.json"))["benchmarks"]:
        if b.get("run_type", "iteration") == "iteration":
            runs[int(b["name"].split("/")[1])] = b
    cpp.append(runs)
top = max(cpp[0])
c1_cpu = [PROMPTS_PER_ITER / (x[1]["cpu_time"] * UNIT[x[1]["time_unit"]]) for x in cpp]  # 1 thread: per core
c1 = [x[1]["prompts_per_s"] for x in cpp]
call = [x[top]["prompts_per_s"] for x in cpp]  # every thread of the machine (wall)
keys = ("suff", "numpy", "plain", "torch1", "torchall")
base = {k: [read_txt(f"{tmp}/{k}.{r}.txt") for r in range(1, reps + 1)] for k in keys}
names = {"suff": "NumPy, sufficient statistics", "numpy": "NumPy, forward pass (re-associated)",
         "plain": "NumPy, paper formula (N x N)", "torch1": "PyTorch CPU batched, 1 thread",
         "torchall": "PyTorch CPU batched, all threads"}
print()
print(f"{'':40s}{'prompts/CPU-s':>15s}{'prompts/s wall':>16s}")
print(f"{'C++ 1 thread':40s}{med(c1_cpu):15.0f}{med(c1):16.0f}")
print(f"{f'C++ {top} threads':40s}{'':>15s}{med(call):16.0f}")
for k, rows in base.items():
    cpu = med(float(x["prompts_per_cpu_s"]) for x in rows)
    wall = med(float(x["prompts_per_s"]) for x in rows)
    print(f"{names[k]:40s}{cpu:15.0f}{wall:16.0f}")
print()
print("per core (C++ 1 thread / baseline, prompts per CPU-second, median of the per-repetition ratios):")
for k, rows in base.items():
    if k == "torchall":
        continue
    ratios = [c / float(x["prompts_per_cpu_s"]) for c, x in zip(c1_cpu, rows)]
    print(f"  vs {names[k]:44s}{med(ratios):7.2f}x   (each: {' '.join(f'{q:.2f}' for q in ratios)})")
print(f"per machine ({cores} cores; C++ on {top} threads / the baseline using the machine, wall, median of pairs):")
for k, rows in base.items():
    # NumPy and 1-thread PyTorch use one core: the machine runs `cores` such processes (ideal scaling assumed).
    scale = 1 if k == "torchall" else cores
    ratios = [c / (scale * float(x["prompts_per_s"])) for c, x in zip(call, rows)]
    label = names[k] + ("" if k == "torchall" else f" x {cores} procs")
    print(f"  vs {label:44s}{med(ratios):7.2f}x   (each: {' '.join(f'{q:.2f}' for q in ratios)})")
parts = {b["name"]: b for b in json.load(open(f"{tmp}/parts.json"))["benchmarks"]}
draw = parts["BM_sja_thm2_draw_prompt"]["cpu_time"] * UNIT[parts["BM_sja_thm2_draw_prompt"]["time_unit"]] * 1e6
fwd = parts["BM_sja_thm2_forward"]["cpu_time"] * UNIT[parts["BM_sja_thm2_forward"]["time_unit"]] * 1e6
print(f"C++ per prompt (CPU): draw the prompt {draw:.1f} us + forward pass {fwd:.1f} us; whole estimator "
      f"{1e6 / med(c1_cpu):.1f} us")
print()
b = cpp[0][1]
cm, cs, cn = b["estimate_mean"], b["estimate_stderr"], int(b["samples"])
exact = 874 / 200
# Runs with the same number of iterations saw the same prompts: their estimates must be identical.
pairs = [(x[t], y[u]) for x in cpp for y in cpp for t in x for u in y if x[t]["samples"] == y[u]["samples"]]
same = all(p["estimate_mean"] == q["estimate_mean"] for p, q in pairs)
print(f"exact {exact:.4f}; C++ {cm:.4f} +- {cs:.3f} ({cn} prompts; runs over the same prompts identical at any "
      f"thread count: {same}), "
      f"z = {(cm - exact) / cs:+.2f}")
for k, rows in base.items():
    m, se = float(rows[0]["estimate_mean"]), float(rows[0]["estimate_stderr"])
    print(f"{names[k]}: {m:.4f} +- {se:.3f}, z = {(m - exact) / se:+.2f}")
