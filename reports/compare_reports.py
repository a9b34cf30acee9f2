#!/usr/bin/env python3
"""Compares two report folders claim by claim, results only: what describes the run rather than its results is
ignored, namely the report's `threads` and `elapsed_s`, its `provenance` block (build, commit, backend, `ranks`,
start time, command line; a `ranks` outside it too), a training run's wall-clock `seconds` and the `ranks`
that shared its minibatches (at any depth), and the `backend` and `precision` of a `training` block (where its
minibatches ran). The numbers are bitwise the same at any thread or rank count, so a 1-thread and a 2-thread run compare
equal; every other field (numbers, verdicts, words, seed, budget, run mode) must match.

    reports/compare_reports.py reports/latest /tmp/new

Prints one line per report that differs (and the first differing path inside it) and exits 1 if any does;
0 when every JSON report of the first folder is in the second with the same content. Used to show that a
refactor changes no number, verdict or word of any report.
"""
import json
import pathlib
import sys


RUN_FIELDS = ("threads", "ranks", "elapsed_s", "provenance")  # a report's own fields that describe the run
WALL_CLOCK = ("seconds", "ranks")  # a training run's wall-clock time and its ranks, wherever they are
TRAINING_RUN = ("backend", "precision")  # where a `training` block's minibatches ran
IGNORED = RUN_FIELDS + WALL_CLOCK + tuple(f"training.{k}" for k in TRAINING_RUN)


def strip(j, top=True, parent=None):
    """The report without the fields that describe the run."""
    if isinstance(j, dict):
        return {k: strip(v, False, k) for k, v in j.items()
                if k not in WALL_CLOCK and not (top and k in RUN_FIELDS)
                and not (parent == "training" and k in TRAINING_RUN)}
    if isinstance(j, list):
        return [strip(v, False) for v in j]
    return j


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        if list(a) != list(b):
            return path + " (keys)"
        for k in a:
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return path + " (length)"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else path


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new = map(pathlib.Path, sys.argv[1:])
    bad = 0
    files = sorted(old.glob("*.json"))
    for f in files:
        g = new / f.name
        if not g.exists():
            print(f"missing: {g}")
            bad += 1
            continue
        a, b = strip(json.loads(f.read_text())), strip(json.loads(g.read_text()))
        d = first_difference(a, b)
        if d:
            print(f"differs: {f.name} at {d}")
            bad += 1
    print(f"{len(files) - bad} of {len(files)} reports identical ({', '.join(IGNORED)} ignored)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
