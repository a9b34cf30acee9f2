#!/usr/bin/env python3
"""The training curves of a report's models as CSV (bench/deciding_pilots.md): one row per curve point and trial.

  deciding_curves.py REPORT.json OUT.csv

Columns: model, trial (1-based), seed, step, train_loss, test_loss (held-out minibatch loss; empty where the claim's
curve has none, as xlssc.fig2's). Python 3 standard library only.
"""
import csv
import json
import sys


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        report = json.load(f)
    with open(argv[2], "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["model", "trial", "seed", "step", "train_loss", "test_loss"])
        for m in report.get("models", []):
            for k, run in enumerate(m.get("runs", [])):
                c = run.get("curve") or {}
                steps = c.get("step", [])
                train = c.get("train_loss", [])
                test = c.get("test_loss", [None] * len(steps))
                for i, s in enumerate(steps):
                    def v(xs):
                        return "" if i >= len(xs) or xs[i] is None else f"{xs[i]:.6g}"
                    w.writerow([m.get("model"), k + 1, run.get("seed"), s, v(train), v(test)])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
