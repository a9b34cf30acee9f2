#!/usr/bin/env python3
"""Checks reports/compare_reports.py on made-up report folders (run by tests/cli/test_cli_usability.cpp, ctest
unit_cli): what describes the run (threads, ranks, elapsed_s, provenance, a training run's wall-clock seconds) is
ignored; any result (a number, a verdict, a word, a report missing) makes the folders differ.

    python3 tests/cli/compare_reports_check.py SOURCE_DIR
"""
import copy
import json
import pathlib
import subprocess
import sys
import tempfile

src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
script = src / "reports" / "compare_reports.py"

BASE = {
    "schema": "icl-verify/report/v1",
    "claim": "x.thm1",
    "verdict": "confirmed",
    "summary": "confirmed: within +/- 0.01.",
    "seed": 1,
    "threads": 1,
    "elapsed_s": 0.25,
    "run_mode": "quick",
    "sample_budget_per_case": 4096,
    "provenance": {"version": "0.1", "commit": "abc", "backend": "cpu", "ranks": 1,
                   "started_at": "2025-01-01T00:00:00Z", "command": "icl-verify run x.thm1 --threads 1"},
    "models": [{"runs": [{"final_test_loss": 0.5, "seconds": 3.5, "ranks": 1}]}],
    "cases": [{"params": {"d": 2, "threads": 4}, "quantities": {"mc": {"mean": 1.25, "stderr": 0.01}},
               "verdict": "confirmed"}],
}


def compare(a, b, extra_in_a=None):
    with tempfile.TemporaryDirectory() as tmp:
        one, two = pathlib.Path(tmp, "one"), pathlib.Path(tmp, "two")
        one.mkdir()
        two.mkdir()
        (one / "x.thm1.json").write_text(json.dumps(a))
        if b is not None:
            (two / "x.thm1.json").write_text(json.dumps(b))
        if extra_in_a is not None:
            (one / "y.thm2.json").write_text(json.dumps(extra_in_a))
        p = subprocess.run([sys.executable, str(script), str(one), str(two)], capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr


failures = []


def expect(what, status, want):
    code, out = status
    if code != want:
        failures.append(f"{what}: exit {code}, expected {want}; output: {out.strip()}")


def changed(edit):
    b = copy.deepcopy(BASE)
    edit(b)
    return b


# The run's description differs, the results are bitwise the same: equal.
run_only = changed(lambda b: (b.update(threads=2, elapsed_s=9.75),
                              b["provenance"].update(ranks=2, started_at="2025-02-02T00:00:00Z",
                                                     command="icl-verify run x.thm1 --threads 2"),
                              b["models"][0]["runs"][0].update(seconds=1.25, ranks=2)))
expect("1 thread against 2 threads, 2 ranks, other timings", compare(BASE, run_only), 0)
expect("a report against itself", compare(BASE, BASE), 0)
# Any result differs: not equal.
expect("a Monte Carlo mean", compare(BASE, changed(lambda b: b["cases"][0]["quantities"]["mc"].update(mean=1.2500000001))), 1)
expect("a verdict", compare(BASE, changed(lambda b: b.update(verdict="inconclusive"))), 1)
expect("a summary's words", compare(BASE, changed(lambda b: b.update(summary="confirmed: within +/- 0.02."))), 1)
expect("the seed", compare(BASE, changed(lambda b: b.update(seed=2))), 1)
expect("the budget", compare(BASE, changed(lambda b: b.update(sample_budget_per_case=8192))), 1)
expect("a training result", compare(BASE, changed(lambda b: b["models"][0]["runs"][0].update(final_test_loss=0.4))), 1)
# Only the report's own `threads` describes the run: a case parameter of that name is a result.
expect("a case parameter named threads", compare(BASE, changed(lambda b: b["cases"][0]["params"].update(threads=8))), 1)
expect("a report missing from the second folder", compare(BASE, BASE, extra_in_a=BASE), 1)

out = compare(BASE, run_only)[1]
if "1 of 1 reports identical" not in out:
    failures.append(f"the summary line: {out.strip()}")

for f in failures:
    print("compare_reports_check:", f, file=sys.stderr)
print(f"compare_reports_check: {'FAILED' if failures else 'ok'}")
sys.exit(1 if failures else 0)
