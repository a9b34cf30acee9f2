#!/usr/bin/env python3
"""Mutation testing: would a wrong formula or a wrong weight actually be caught?

    bench/mutate.py                      # every site, every kind; build/ (Release); prints Markdown, writes
                                         # bench/mutation_results.md and bench/mutation_results.json
    bench/mutate.py --sites zfb.         # only sites whose id starts with zfb.
    bench/mutate.py --jobs 2 --threads 1

A measurement, not a test (it takes minutes). The mutation sites are the places where a claim uses a stated
formula or constant, or a construction builds a weight matrix (lib/icl/verdict/mutation.hpp; `icl-verify list
--mutation-sites` prints them with the claims that depend on each). One mutant at a time is selected with the
environment variable ICL_MUTANT=<site>:<kind>:
    scale      the value or matrix times 1.02 (a 2% error in a constant or a weight)
    sign       the value or matrix negated (a sign slip)
    transpose  the matrix transposed (the natural slip for a non-symmetric matrix; matrix sites only)
Each mutant runs every claim its site lists at --quick (seed 1) and is compared with the unmutated run of the
same claims. A mutant is *killed* when the verdict of a listed claim or of one of its parts changes, or when the
run stops with exit 3 (the engine's own consistency checks refused the report); it *survives* otherwise.
A mutant whose perturbation does not change the value at all (the transpose of a symmetric matrix, the sign of a
zero matrix) is *equivalent*: it is listed but not counted. Every survivor is listed with its claims' verdicts,
to be killed by a stronger check or explained.
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def verdicts(report):
    """The claim verdict and each part's verdict of one JSON report."""
    out = {"claim": report.get("verdict")}
    for p in report.get("parts", []) or []:
        out["part " + str(p.get("id"))] = p.get("verdict")
    return out


def decision_verdicts(report):
    """Every case's verdict and every named decision's verdict (e.g. corrected_vs_exact) of one JSON report."""
    out = {}
    for i, c in enumerate(report.get("cases", []) or []):
        out[f"case {i}"] = c.get("verdict")
        for name, d in (c.get("decisions") or {}).items():
            if isinstance(d, dict) and "verdict" in d:
                out[f"case {i} {name}"] = d["verdict"]
    return out


def run_claim(binary, claim, env_extra, threads, seed):
    env = dict(os.environ)
    env.pop("ICL_MUTANT", None)
    env.update(env_extra)
    with tempfile.TemporaryDirectory(prefix="icl-mutate-") as out:
        proc = subprocess.run([binary, "run", claim, "--quick", "--threads", str(threads), "--seed", str(seed),
                               "--out", out], env=env, capture_output=True, text=True)
        path = pathlib.Path(out) / (claim + ".json")
        report = json.loads(path.read_text()) if path.exists() else None
    return proc.returncode, report, proc.stderr.strip().splitlines()[-1:] if proc.stderr.strip() else []


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"), help="build folder holding icl-verify")
    ap.add_argument("--sites", default="", help="only sites whose id starts with this prefix")
    ap.add_argument("--jobs", type=int, default=2, help="claims run at once")
    ap.add_argument("--threads", type=int, default=1, help="threads per claim run")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--md", default=str(ROOT / "bench" / "mutation_results.md"))
    ap.add_argument("--json", default=str(ROOT / "bench" / "mutation_results.json"))
    a = ap.parse_args()
    binary = str(pathlib.Path(a.build) / "icl-verify")
    listing = subprocess.run([binary, "list", "--mutation-sites"], capture_output=True, text=True, check=True).stdout
    sites = []
    for line in listing.splitlines():
        sid, claims, kinds, note = (line.split("\t") + ["", "", ""])[:4]
        if sid.startswith(a.sites):
            sites.append({"id": sid, "claims": [c for c in claims.split(",") if c], "kinds": kinds.split(","),
                          "note": note})
    if not sites:
        sys.exit("no mutation site matches")
    known = set(subprocess.run([binary, "list"], capture_output=True, text=True, check=True).stdout.split())
    t0 = time.time()
    claims = sorted({c for s in sites for c in s["claims"]})
    missing = [c for c in claims if c not in known]
    claims = [c for c in claims if c in known]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        base = dict(zip(claims, pool.map(lambda c: run_claim(binary, c, {}, a.threads, a.seed), claims)))
    for c, (rc, rep, err) in base.items():
        if rep is None or rc not in (0, 1):
            sys.exit(f"baseline run of {c} failed (exit {rc}): {err}")
    base_v = {c: verdicts(rep) for c, (rc, rep, err) in base.items()}
    base_d = {c: decision_verdicts(rep) for c, (rc, rep, err) in base.items()}

    jobs = [(s, k, c) for s in sites for k in s["kinds"] for c in s["claims"] if c in base]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda j: run_claim(binary, j[2], {"ICL_MUTANT": f"{j[0]['id']}:{j[1]}"}, a.threads,
                                                    a.seed), jobs))
    mutants = {}
    for (s, k, c), (rc, rep, err) in zip(jobs, results):
        m = mutants.setdefault((s["id"], k), {"site": s["id"], "kind": k, "note": s["note"], "claims": {},
                                              "killed": False, "equivalent": False, "decision_changed": False})
        if rc == 3:
            m["claims"][c] = {"exit": 3, "changed": ["internal consistency check: " + " ".join(err)]}
            m["killed"] = True
            continue
        if rep is None or rc not in (0, 1):
            m["claims"][c] = {"exit": rc, "changed": [], "error": " ".join(err)}
            continue
        if rep.get("provenance", {}).get("mutant") != f"{s['id']}:{k}":
            sys.exit(f"the report of {c} under {s['id']}:{k} does not name the mutant: is the build current?")
        v = verdicts(rep)
        changed = [f"{key}: {base_v[c].get(key)} -> {val}" for key, val in v.items() if base_v[c].get(key) != val]
        dchanged = [f"{key}: {base_d[c].get(key)} -> {val}" for key, val in decision_verdicts(rep).items()
                    if base_d[c].get(key) != val]
        m["claims"][c] = {"exit": rc, "changed": changed, "verdicts": v, "decisions_changed": dchanged[:5]}
        m["killed"] = m["killed"] or bool(changed)
        m["decision_changed"] = m["decision_changed"] or bool(changed) or bool(dchanged)
    # A perturbation that leaves every report's numbers unchanged (e.g. the transpose of a symmetric matrix) is
    # an equivalent mutant: detect it by comparing the reports' cases with the baseline's.
    for (s, k, c), (rc, rep, err) in zip(jobs, results):
        m = mutants[(s["id"], k)]
        if not m["killed"] and rep is not None:
            same = json.dumps(rep.get("cases"), sort_keys=True) == json.dumps(base[c][1].get("cases"), sort_keys=True)
            m.setdefault("same_numbers", []).append(same)
    for m in mutants.values():
        m["equivalent"] = (not m["killed"]) and bool(m.get("same_numbers")) and all(m["same_numbers"])
        m.pop("same_numbers", None)

    counted = [m for m in mutants.values() if not m["equivalent"]]
    killed = sum(m["killed"] for m in counted)
    seen = sum(m["decision_changed"] or m["killed"] for m in counted)
    lines = ["# Mutation testing (bench/mutate.py)", "",
             f"{len(mutants)} mutants of {len(sites)} sites, each run on the claims it affects at --quick "
             f"(seed {a.seed}); {time.time() - t0:.0f} s.", "",
             f"**Kill rate: {killed} / {len(counted)}** non-equivalent mutants "
             f"({100.0 * killed / max(1, len(counted)):.1f}%); "
             f"{sum(m['equivalent'] for m in mutants.values())} equivalent (numbers unchanged).", "",
             f"Seen in some decision: {seen} / {len(counted)} ({100.0 * seen / max(1, len(counted)):.1f}%): the mutant "
             "changes the verdict of at least one case or named decision (e.g. `corrected_vs_exact`) even where the "
             "claim's and parts' verdicts stay the same.", ""]
    if missing:
        lines += [f"Claims named by sites but not registered (skipped): {', '.join(missing)}.", ""]
    lines += ["| site | kind | result | how (first change; for a survivor, the first changed decision or the "
              "claims' verdicts) |", "|---|---|---|---|"]
    for m in sorted(mutants.values(), key=lambda m: (m["killed"], m["site"], m["kind"])):
        how = next((f"{c}: {x['changed'][0]}" for c, x in m["claims"].items() if x.get("changed")), "")
        if not how:
            how = next((f"{c}: decision {x['decisions_changed'][0]}" for c, x in m["claims"].items()
                        if x.get("decisions_changed")), "")
        if not how:
            how = "; ".join(f"{c}: {x.get('verdicts', {}).get('claim', 'exit ' + str(x['exit']))}"
                            for c, x in m["claims"].items())
        res = "killed" if m["killed"] else ("equivalent" if m["equivalent"] else
                                            ("survived (seen in a decision)" if m["decision_changed"] else "**survived**"))
        lines.append(f"| `{m['site']}` | {m['kind']} | {res} | {how} |")
    text = "\n".join(lines) + "\n"
    print(text)
    pathlib.Path(a.md).write_text(text)
    pathlib.Path(a.json).write_text(json.dumps({"seed": a.seed, "killed": killed, "seen_in_a_decision": seen,
                                                "counted": len(counted),
                                                "mutants": list(mutants.values())}, indent=1) + "\n")


if __name__ == "__main__":
    main()
