#!/usr/bin/env python3
"""Calibration of icl-verify's Monte Carlo decisions: observed false-fail and false-pass rates beside the declared ones.

    bench/calibrate.py                 # 200 seeds, 2 threads, build/ (Release); prints Markdown tables
    bench/calibrate.py --seeds 500 --threads 4 --json /tmp/calibration.json

A measurement, not a test (it takes minutes). Two parts, each with --seeds independent seeds:

A. True claims, end to end. Each claim below runs through the real command line (`icl-verify run CLAIM --seed S`,
   the real forward pass, the claim's own decisions) on a reduced grid. Their statements are true (the project's
   exact values agree with them), so every `refuted` is a false fail. Reported per claim: the claim verdicts,
   the case verdicts, and the Monte Carlo decisions against the stated value (`mc_vs_stated`) where a case has one,
   beside the false-fail rate the report declares (`error_rates.false_fail_rate`).

B. Statements posed just inside and just beyond the tolerance (build/calibrate-decisions, bench/calibrate_decisions.cpp):
   two real estimators (a light-tailed linear one, a heavy-tailed quadratic one) with exact values, judged by
   `sequential_equality` itself on the Monte Carlo alone, at a production error rate (alpha 0.01 per case) and a
   stress level (alpha 0.2) where the declared rates are large enough to be seen in a few hundred runs. A true
   statement that is refuted is a false fail; a false statement that is confirmed is a false pass.

Intervals: Clopper-Pearson, two-sided 95%, on the observed rate.
"""
import argparse
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

# Part A: (claim, options). Reduced grids and budgets, chosen so that 200 seeds of all three take about ten
# minutes on 2 shared cores; each case below is decided (confirmed) at these budgets on most seeds.
CLAIMS = [
    # Lemma 12, quadratic-feature setting 6 (10% relative band) at d = 1, n = 32.
    ("sja.lemma12", ["--set", "d=1", "--set", "n=32", "--set", "setting=6", "--samples", "65536"]),
    # Theorem 1 at d = 2, isotropic covariance, n = 20 (5% relative band), the --quick random starts.
    ("acds.thm1", ["--quick", "--set", "d=2", "--set", "cov=0", "--set", "n=20", "--samples", "65536"]),
    # Lemma 3 at d = 1: the Gram matrix against the identity (0.03 absolute band).
    ("sja.lemma3", ["--quick", "--set", "d=1", "--samples", "1000000"]),
]


def log_binom_pmf(k, n, p):
    if p <= 0:
        return 0.0 if k == 0 else -math.inf
    if p >= 1:
        return 0.0 if k == n else -math.inf
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(p)
            + (n - k) * math.log1p(-p))


def binom_cdf(k, n, p):
    return min(1.0, sum(math.exp(log_binom_pmf(i, n, p)) for i in range(0, k + 1)))


def clopper_pearson(k, n, level=0.95):
    """Exact two-sided binomial interval for k successes in n trials."""
    if n == 0:
        return (0.0, 1.0)
    a = (1 - level) / 2

    def solve(f, target):  # f increasing in p on [0, 1]
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if f(mid) < target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lower = 0.0 if k == 0 else solve(lambda p: 1 - binom_cdf(k - 1, n, p), a)
    upper = 1.0 if k == n else solve(lambda p: 1 - binom_cdf(k, n, p), 1 - a)
    return (lower, upper)


def rate(k, n):
    lo, hi = clopper_pearson(k, n)
    return f"{k}/{n} = {k / n:.3g} [{lo:.2g}, {hi:.2g}]" if n else "-"


def build(build_dir):
    if not (build_dir / "CMakeCache.txt").exists():
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release"], check=True,
                       stdout=subprocess.DEVNULL)
    cache = (build_dir / "CMakeCache.txt").read_text()
    if "CMAKE_BUILD_TYPE:STRING=Release" not in cache:
        sys.exit(f"error: {build_dir} is not a Release build; pass --build <a Release build folder>")
    subprocess.run(["cmake", "--build", str(build_dir), "-j2", "--target", "icl-verify", "calibrate-decisions"],
                   check=True, stdout=subprocess.DEVNULL)


def part_a(binary, seeds, first_seed, threads):
    results = {}
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="icl-calibrate-"))
    try:
        for claim, options in CLAIMS:
            r = {"options": " ".join(options), "runs": 0, "claim": {"confirmed": 0, "refuted": 0, "inconclusive": 0},
                 "cases": {"confirmed": 0, "refuted": 0, "inconclusive": 0},
                 "mc_vs_stated": {"confirmed": 0, "refuted": 0, "inconclusive": 0}, "declared": None, "seconds": 0.0}
            t0 = time.monotonic()
            for seed in range(first_seed, first_seed + seeds):
                out = tmp / claim
                cmd = [str(binary), "run", claim, *options, "--seed", str(seed), "--threads", str(threads),
                       "--out", str(out)]
                p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                if p.returncode != 0:
                    sys.exit(f"error: {' '.join(cmd)} exited {p.returncode}: {p.stderr.strip()}")
                j = json.loads((out / f"{claim}.json").read_text())
                r["runs"] += 1
                r["claim"][j["verdict"]] += 1
                er = j.get("error_rates", {})
                r["declared"] = {"false_fail_rate": er.get("false_fail_rate"),
                                 "false_pass_rate_per_case": er.get("false_pass_rate_per_case"),
                                 "tolerance": er.get("tolerance"), "split": er.get("split")}
                for c in j["cases"]:
                    r["cases"][c["verdict"]] += 1
                    d = c.get("decisions", {}).get("mc_vs_stated")
                    if isinstance(d, dict) and d.get("verdict") in r["mc_vs_stated"]:
                        r["mc_vs_stated"][d["verdict"]] += 1
            r["seconds"] = time.monotonic() - t0
            results[claim] = r
            print(f"  {claim}: {r['runs']} seeds in {r['seconds']:.0f} s", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return results


def part_b(binary, seeds, first_seed, threads):
    t0 = time.monotonic()
    p = subprocess.run([str(binary), "--seeds", str(seeds), "--first-seed", str(first_seed), "--threads", str(threads)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    print(f"  decisions: {seeds} seeds in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    return rows, time.monotonic() - t0


def report(a, b, seeds, threads, seconds, seconds_a, seconds_b):
    lines = [f"# Calibration of the Monte Carlo decisions ({seeds} seeds, {threads} threads, {seconds / 60:.1f} min: "
             f"true claims {seconds_a / 60:.1f} min, posed statements {seconds_b / 60:.1f} min)", ""]
    lines += ["## A. True claims, end to end (every `refuted` is a false fail)", "",
              "| claim (reduced grid) | claim verdicts: refuted (false fail) | declared false-fail | confirmed | "
              "case verdicts refuted | Monte Carlo decisions refuted | seconds |", "|---|---|---|---|---|---|---|"]
    for claim, r in a.items():
        n = r["runs"]
        cases = sum(r["cases"].values())
        mcs = sum(r["mc_vs_stated"].values())
        lines.append(f"| `{claim}` {r['options']} | {rate(r['claim']['refuted'], n)} | "
                     f"{r['declared']['false_fail_rate']} | {r['claim']['confirmed']}/{n} | "
                     f"{rate(r['cases']['refuted'], cases)} | {rate(r['mc_vs_stated']['refuted'], mcs) if mcs else '-'} | "
                     f"{r['seconds']:.0f} |")
    total = sum(r["runs"] for r in a.values())
    fails = sum(r["claim"]["refuted"] for r in a.values())
    lines += ["", f"All claims together: {rate(fails, total)} claim runs refuted (declared at most 0.01 each).", ""]
    lines += ["## B. Posed statements judged by `sequential_equality` on the Monte Carlo alone", "",
              "k: |exact - stated| as a multiple of the tolerance band; true when k <= 1. False fail: a true statement "
              "refuted; false pass: a false statement confirmed. Declared (per case): false fail <= alpha (Bonferroni "
              "over the looks); the reports' `false_pass_rate_per_case` is alpha_look / 2; over all looks the bound "
              "is alpha / 2.", "",
              "| estimator | alpha | statement (k, side) | true? | refuted | confirmed | inconclusive | error rate "
              "observed [95% CI] | declared | mean prompts |", "|---|---|---|---|---|---|---|---|---|---|"]
    for row in b:
        n = row["runs"]
        if row["true"]:
            err, declared = row["refuted"], f"false fail <= {row['alpha_case']:g}"
        else:
            err, declared = row["confirmed"], (f"false pass <= {row['alpha_look'] / 2:.3g} per look, "
                                               f"<= {row['alpha_case'] / 2:g} over {row['looks']} looks")
        lines.append(f"| {row['estimator']} | {row['alpha_case']:g} | {row['statement']} ({row['k_band']:g}) | "
                     f"{'yes' if row['true'] else 'no'} | {row['refuted']} | {row['confirmed']} | {row['inconclusive']} | "
                     f"{rate(err, n)} | {declared} | {row['mean_samples']:.0f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--json", help="also write every count to this file")
    ap.add_argument("--only", choices=["claims", "decisions"], help="run one part only")
    args = ap.parse_args()
    build_dir = pathlib.Path(args.build)
    build(build_dir)
    t0 = time.monotonic()
    a, b, sa, sb = {}, [], 0.0, 0.0
    print(f"calibrating with {args.seeds} seeds on {args.threads} threads "
          f"(load average {os.getloadavg()[0]:.1f})...", file=sys.stderr)
    if args.only != "decisions":
        a = part_a(build_dir / "icl-verify", args.seeds, args.first_seed, args.threads)
        sa = time.monotonic() - t0
    if args.only != "claims":
        b, sb = part_b(build_dir / "calibrate-decisions", args.seeds, args.first_seed, args.threads)
    seconds = time.monotonic() - t0
    text = report(a, b, args.seeds, args.threads, seconds, sa, sb)
    print(text)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"seeds": args.seeds, "threads": args.threads,
                                                        "seconds": seconds, "claims": a, "decisions": b}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
