#!/usr/bin/env python3
"""Golden verdicts: every claim at --quick against a checked-in table (tests/golden/golden.json).

The table holds, per claim, the verdict, each part's verdict, the refutation class, and per case the verdict and
the headline numbers (`stated`, `exact`, `mc`, `corrected`, `gain_over_zero`, when the case has them), each with a
named tolerance:
  stated, corrected  relative 1e-12  (a stated formula or constant: any change is a change of the claim)
  exact              relative 1e-9   (exact arithmetic, rational or linear solves; rounding only)
  mc, gain_over_zero relative 1e-6   (Monte Carlo on the fixed stream: same seed, same numbers at any thread
                                      count; the slack covers only summation order in the reductions)
A run passes when every claim, part, class and case of the table is reproduced and nothing is missing.

  golden.py test  --binary build/icl-verify [--claims a,b] [--expect-fail]   run --quick and compare (ctest golden)
  golden.py regen --binary build/icl-verify                                  rewrite the table from a --quick run
  golden.py check --reports DIR                                              compare an existing --quick run

Regenerating is one command (`python3 tests/golden/golden.py regen --binary build/icl-verify`); review the diff of
golden.json like code: every moved verdict or number needs a reason in the commit message.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "golden.json")
TOLERANCES = {"stated": 1e-12, "corrected": 1e-12, "exact": 1e-9, "mc": 1e-6, "gain_over_zero": 1e-6}


def number(q):
    if not isinstance(q, dict):
        return None
    for k in ("value", "mean"):
        if k in q and isinstance(q[k], (int, float)):
            return float(q[k])
    return None


def summarise(report):
    cases = []
    for c in report.get("cases", []):
        nums = {}
        for name in TOLERANCES:
            v = number(c.get("quantities", {}).get(name))
            if v is not None:
                nums[name] = v
        cases.append({"params": c.get("params"), "part": c.get("part"), "verdict": c.get("verdict"), "numbers": nums})
    ref = report.get("refutation")
    return {
        "verdict": report["verdict"],
        "class": ref.get("class") if isinstance(ref, dict) else None,
        "parts": {p["id"]: p["verdict"] for p in report.get("parts", [])},
        "cases": cases,
    }


def run_quick(binary, claims, out):
    cmd = [binary, "run"] + (claims or ["all"]) + ["--quick", "--threads", "2", "--out", out]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"golden: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-500:]}")


def load_reports(folder, claims=None):
    out = {}
    for f in sorted(os.listdir(folder)):
        if f.endswith(".json") and f.count(".") == 2:
            with open(os.path.join(folder, f)) as fh:
                j = json.load(fh)
            if "claim" in j and "verdict" in j and (not claims or j["claim"] in claims):
                out[j["claim"]] = summarise(j)
    return out


def close(a, b, rel):
    if a == b:
        return True
    if a != a and b != b:  # both NaN
        return True
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def compare(table, got, claims=None):
    problems = []
    for cid, want in sorted(table.items()):
        if claims and cid not in claims:
            continue
        if cid not in got:
            problems.append(f"{cid}: no report")
            continue
        g = got[cid]
        for key in ("verdict", "class"):
            if want[key] != g[key]:
                problems.append(f"{cid}: {key} {g[key]!r}, golden {want[key]!r}")
        for pid, v in want["parts"].items():
            if g["parts"].get(pid) != v:
                problems.append(f"{cid}: part {pid} {g['parts'].get(pid)!r}, golden {v!r}")
        if len(want["cases"]) != len(g["cases"]):
            problems.append(f"{cid}: {len(g['cases'])} cases, golden {len(want['cases'])}")
            continue
        for k, (wc, gc) in enumerate(zip(want["cases"], g["cases"])):
            label = f"{cid} case {k} {json.dumps(wc['params'], sort_keys=True)}"
            if wc["params"] != gc["params"] or wc["part"] != gc["part"]:
                problems.append(f"{label}: params/part differ ({gc['params']}, part {gc['part']})")
                continue
            if wc["verdict"] != gc["verdict"]:
                problems.append(f"{label}: verdict {gc['verdict']!r}, golden {wc['verdict']!r}")
            for name, v in wc["numbers"].items():
                if name not in gc["numbers"]:
                    problems.append(f"{label}: {name} missing")
                elif not close(v, gc["numbers"][name], TOLERANCES[name]):
                    problems.append(f"{label}: {name} = {gc['numbers'][name]!r}, golden {v!r} "
                                    f"(tolerance {TOLERANCES[name]:g} relative)")
    if not claims:
        for cid in sorted(set(got) - set(table)):
            problems.append(f"{cid}: not in the golden table (regenerate it)")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["test", "regen", "check"])
    ap.add_argument("--binary")
    ap.add_argument("--reports")
    ap.add_argument("--claims", default="")
    ap.add_argument("--table", default=TABLE)
    ap.add_argument("--expect-fail", action="store_true",
                    help="pass only if the comparison fails (a mutant run: ICL_MUTANT=... must be caught)")
    a = ap.parse_args()
    claims = [c for c in a.claims.split(",") if c]
    if a.mode in ("test", "regen"):
        if not a.binary:
            sys.exit("golden: --binary is required")
        with tempfile.TemporaryDirectory(prefix="icl-golden-") as d:
            run_quick(a.binary, claims, d)
            got = load_reports(d, claims)
    else:
        got = load_reports(a.reports, claims)
    if a.mode == "regen":
        if claims:
            with open(a.table) as fh:
                table = json.load(fh)
            table.update(got)
        else:
            table = got
        with open(a.table, "w") as fh:
            json.dump(table, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"golden: wrote {a.table} ({len(table)} claims)")
        return 0
    with open(a.table) as fh:
        table = json.load(fh)
    problems = compare(table, got, claims)
    n = len(claims) if claims else len(table)
    if a.expect_fail:
        if problems:
            print(f"golden: the mutant was caught ({len(problems)} differences, e.g. {problems[0]})")
            return 0
        print(f"golden: FAILED: the run matched the golden table for {n} claims although a mutant was expected "
              f"(ICL_MUTANT={os.environ.get('ICL_MUTANT', '')!r})")
        return 1
    if problems:
        print(f"golden: FAILED: {len(problems)} differences from {a.table}:")
        for p in problems[:60]:
            print("  " + p)
        if len(problems) > 60:
            print(f"  ... and {len(problems) - 60} more")
        print("If the change is intended: python3 tests/golden/golden.py regen --binary build/icl-verify, and review "
              "the diff of tests/golden/golden.json")
        return 1
    print(f"golden: {n} claims match the golden table (verdicts, parts, classes, headline numbers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
