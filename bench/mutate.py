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
    shrink     the value or matrix times 0.98 (the same error the other way: a bound is made false by one of the two)
    sign       the value or matrix negated (a sign slip)
    transpose  the matrix transposed (the natural slip for a non-symmetric matrix; matrix sites only)
Each mutant runs every claim its site lists at --quick (seed 1) and is compared with the unmutated run of the
same claims, and with the golden table of ./test (tests/golden/golden.json, ctest `golden`: verdicts, parts,
classes and the headline numbers stated/exact/mc/corrected/gain_over_zero of every case at --quick, seed 1).
Two rates are reported: *caught by the tests* (the golden comparison fails, or the verdict changes, or exit 3:
what ./test would catch) and *killed by a verdict* (the stricter, older measure below). A mutant is *killed* when the verdict of a listed claim or of one of its parts changes, or when the
run stops with exit 3 (the engine's own consistency checks refused the report); it *survives* otherwise.
A mutant is also killed when a refuted claim's corrected statement stops being verified (the report's
`corrected_formula_holds` flips): "refuted, and this correction holds" is what such a report asserts.
A mutant whose perturbation changes no number of any report by more than 1e-9 relative (the transpose of a matrix
that is symmetric up to rounding, the sign of a zero matrix) is *equivalent*: it is listed but not counted. Every survivor is listed with its claims' verdicts,
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
sys.path.insert(0, str(ROOT / "tests" / "golden"))
import golden  # noqa: E402  (tests/golden/golden.py: the same comparison as ctest golden)


# Why a surviving mutant survives, checked by hand for each (site, kind) that survived a run of this script.
# A survivor not listed here is reported as unexplained. Keep each entry true: re-run and re-check after changes.
EXPLAINED = {
    ("sja.appC/W0", "scale"): "resolution: the App. C block's exact loss is the closed form in its parameters, so a "
        "weight error shows only in the Monte Carlo of a heavy-tailed (degree-12) loss, whose interval at the claims' "
        "budgets is +-15% (d=2, n=50: 3.86 +- 0.58; this mutant moves it 6%, to 4.11 +- 0.63, on the same prompts)",
    ("sja.cor10/W0", "*"): "equivalent by quantification: sja.cor10 holds for every weight of the feature network "
        "(the claim draws them at random), so a perturbed network is another member of the family it is checked on",
    ("sja.cor9/stated", "shrink"): "a looser lower bound (0.98 (m - d~)) is a weaker true statement (scale, 2% "
        "tighter than the tight bound, is killed)",
    ("sja.cor9/stated", "sign"): "a negated lower bound, L >= -(m - d~), is a weaker true statement",
    ("sja.lower_bound/lambda_plus", "*"): "the explicit counterexample layers built with a perturbed lam+ are "
        "another counterexample (their losses are computed from their own weights and still beat the stated bound), "
        "and the corrected bound sums the C(d+2,2) - d~ smallest eigenvalues, never lam+ (the largest) for d~ >= 1",
    ("sja.prop1/stated", "scale"): "the lower bound has slack at --quick: the closest stack found stays 8% above "
        "it (Monte Carlo interval's lower end; +2.5% at the default budget), so a 2% tighter bound still holds",
    ("sja.prop1/stated", "shrink"): "a looser lower bound is a weaker true statement",
    ("sja.prop1/stated", "sign"): "a negated lower bound is a weaker true statement",
    ("sja.thm2/stated", "*"): "the stated loss is refuted by a factor 18 to 63; perturbed by 2% or negated it stays "
        "refuted (the corrected formula, a separate site, is killed or seen)",
    ("sja.thm5/stated_bound", "*"): "the stated bound is refuted (the exact norm reaches 1.277 x it); 2% either way "
        "it stays refuted",
    ("sja.thm5/corrected_bound", "*"): "the corrected bound has a wide margin (the exact norm reaches at most 0.23 "
        "of it over n = 2..2000): true 2% either way. A finding: the correction holds but is not tight",
    ("xlssc.twolayer/K2", "*"): "the claim is asymptotic ('approximately y_q', a trend as D grows): the look-ahead "
        "construction's constants are not unique, and 2% off they give the same trend",
    ("zfb.thm4/sigma_bound", "*"): "a sufficient condition on sigma: the flow converges on both sides of it in every "
        "case run, so moving the threshold 2% changes no verdict",
    ("zfb.thm5/final_bound", "scale"): "a looser upper bound (the scan reaches 0.9996 of the stated one) is a weaker "
        "true statement (shrink, 2% tighter, is killed by the worst-case scan)",
    ("sja.fig3/slope", "*"): "two derivations must agree before a refutation: the exact slope now differs from the "
        "stated one (exact_vs_stated flips to refuted), but the Monte Carlo fit through the forward pass cannot "
        "resolve 2% of the slope at --quick, so the case is inconclusive, not refuted",
    ("sja.lemma12/rhs", "*"): "two derivations must agree before a refutation: the perturbed formula now differs from "
        "our own expansion (exact_vs_stated flips to refuted), but at --quick the Monte Carlo through the forward pass "
        "cannot resolve a 2% difference, so the case is inconclusive, not refuted",
    ("zfb.shift/one_third", "*"): "the constant belongs to part b, already refuted (it fails under reading 2); its "
        "reading-1 case flips as it should (seen in that decision), and part b's verdict cannot change",
}
EXPLAINED[("sja.appC/W1", "scale")] = EXPLAINED[("sja.appC/W0", "scale")]
for _k in ("shrink",):
    EXPLAINED[("sja.appC/W0", _k)] = EXPLAINED[("sja.appC/W1", _k)] = EXPLAINED[("sja.appC/W0", "scale")]
EXPLAINED[("sja.cor10/W1", "*")] = EXPLAINED[("sja.cor10/W0", "*")]
EXPLAINED[("xlssc.twolayer/V1", "*")] = EXPLAINED[("xlssc.twolayer/K2", "*")]


def explanation(site, kind):
    return EXPLAINED.get((site, kind)) or EXPLAINED.get((site, "*"))


def verdicts(report):
    """What a report asserts: the claim verdict, each part's verdict, and whether its corrected statement was
    verified (a refutation's `corrected` is part of the verdict: "refuted, and this correction holds")."""
    out = {"claim": report.get("verdict")}
    for p in report.get("parts", []) or []:
        out["part " + str(p.get("id"))] = p.get("verdict")
        if isinstance(p.get("refutation"), dict):  # a refutation states its correction only once it is verified
            out["part " + str(p.get("id")) + " correction verified"] = bool(p["refutation"].get("corrected"))
    if "corrected_formula_holds" in report:
        out["corrected statement verified"] = report["corrected_formula_holds"]
    return out


def numbers_close(a, b, rel=1e-9):
    """Two JSON values equal up to rounding: numbers within `rel` relative, or both below 1e-12 (a transpose of a
    matrix that is symmetric up to rounding changes the last bits of every Monte Carlo number, nothing more)."""
    if isinstance(a, str) and isinstance(b, str):
        return True  # text (evidence, why) restates the numbers, with their round-off; verdicts are compared apart
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        # Below 1e-12 a number is round-off (a relative difference of 1e-15, say): both such numbers are equal.
        return a == b or abs(a - b) <= rel * max(abs(a), abs(b)) or max(abs(a), abs(b)) <= 1e-12
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(numbers_close(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(numbers_close(x, y, rel) for x, y in zip(a, b))
    return a == b


def decision_verdicts(report):
    """Every case's verdict and every named decision's verdict (e.g. corrected_vs_exact) of one JSON report."""
    out = {}
    for i, c in enumerate(report.get("cases", []) or []):
        out[f"case {i}"] = c.get("verdict")
        for name, d in (c.get("decisions") or {}).items():
            if isinstance(d, dict) and "verdict" in d:
                out[f"case {i} {name}"] = d["verdict"]
            elif isinstance(d, bool):  # an exact check, e.g. corrected_holds_exactly
                out[f"case {i} {name}"] = "holds" if d else "fails"
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
    table = json.loads((ROOT / "tests" / "golden" / "golden.json").read_text()) if a.seed == 1 else {}
    mutants = {}
    for (s, k, c), (rc, rep, err) in zip(jobs, results):
        m = mutants.setdefault((s["id"], k), {"site": s["id"], "kind": k, "note": s["note"], "claims": {},
                                              "killed": False, "equivalent": False, "decision_changed": False})
        if rc == 3:
            m["claims"][c] = {"exit": 3, "changed": ["internal consistency check: " + " ".join(err)]}
            m["killed"] = True
            m["caught"] = True
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
        gprob = golden.compare({c: table[c]}, {c: golden.summarise(rep)}, [c]) if c in table else []
        m["claims"][c] = {"exit": rc, "changed": changed, "verdicts": v, "decisions_changed": dchanged[:5],
                          "golden": gprob[:2]}
        m["killed"] = m["killed"] or bool(changed)
        m["caught"] = m.get("caught", False) or bool(changed) or bool(gprob)
        m["decision_changed"] = m["decision_changed"] or bool(changed) or bool(dchanged)
    # A perturbation that leaves every report's numbers unchanged (e.g. the transpose of a symmetric matrix) is
    # an equivalent mutant: detect it by comparing the reports' cases with the baseline's.
    for (s, k, c), (rc, rep, err) in zip(jobs, results):
        m = mutants[(s["id"], k)]
        if not m["killed"] and rep is not None:
            same = numbers_close(rep.get("cases"), base[c][1].get("cases"))
            m.setdefault("same_numbers", []).append(same)
    for m in mutants.values():
        m["equivalent"] = (not m["killed"]) and bool(m.get("same_numbers")) and all(m["same_numbers"])
        m.pop("same_numbers", None)
        m["caught"] = m.get("caught", False) or m["killed"]

    counted = [m for m in mutants.values() if not m["equivalent"]]
    killed = sum(m["killed"] for m in counted)
    caught = sum(m["caught"] for m in counted)
    seen = sum(m["decision_changed"] or m["killed"] for m in counted)
    lines = ["# Mutation testing (bench/mutate.py)", "",
             f"{len(mutants)} mutants of {len(sites)} sites, each run on the claims it affects at --quick "
             f"(seed {a.seed}); {time.time() - t0:.0f} s.", "",
             f"**Caught by the tests (golden table, verdicts, exit 3): {caught} / {len(counted)}** non-equivalent "
             f"mutants ({100.0 * caught / max(1, len(counted)):.1f}%).", "",
             f"Killed by a verdict (a claim's or part's verdict, or a verified correction, changes): {killed} / "
             f"{len(counted)} ({100.0 * killed / max(1, len(counted)):.1f}%); "
             f"{sum(m['equivalent'] for m in mutants.values())} equivalent (no number of any report changes by more than 1e-9 relative, round-off below 1e-12 aside).", "",
             f"Seen in some decision: {seen} / {len(counted)} ({100.0 * seen / max(1, len(counted)):.1f}%): the mutant "
             "changes the verdict of at least one case or named decision (e.g. `corrected_vs_exact`) even where the "
             "claim's and parts' verdicts stay the same.", ""]
    if missing:
        lines += [f"Claims named by sites but not registered (skipped): {', '.join(missing)}.", ""]
    survivors = [m for m in counted if not m["caught"]]
    explained = sum(1 for m in survivors if explanation(m["site"], m["kind"]))
    lines += [f"Survivors explained (why each survives, checked by hand, in the last column): {explained} / "
              f"{len(survivors)}; not explained: {len(survivors) - explained}.", ""]
    lines += ["| site | kind | result | how (first change; for a survivor, the first changed decision or the "
              "claims' verdicts) | why it survives |", "|---|---|---|---|---|"]
    for m in sorted(mutants.values(), key=lambda m: (m["caught"], m["killed"], m["site"], m["kind"])):
        how = next((f"{c}: {x['changed'][0]}" for c, x in m["claims"].items() if x.get("changed")), "")
        if not how:
            how = next((f"{c}: decision {x['decisions_changed'][0]}" for c, x in m["claims"].items()
                        if x.get("decisions_changed")), "")
        if not how:
            how = next((f"{c}: golden: {x['golden'][0]}" for c, x in m["claims"].items() if x.get("golden")), "")
        if not how:
            how = "; ".join(f"{c}: {x.get('verdicts', {}).get('claim', 'exit ' + str(x['exit']))}"
                            for c, x in m["claims"].items())
        res = "killed" if m["killed"] else ("equivalent" if m["equivalent"] else
                                            ("caught by the golden table" if m["caught"] else
                                             ("survived (seen in a decision)" if m["decision_changed"] else "**survived**")))
        why = ""
        if not m["caught"] and not m["equivalent"]:
            why = explanation(m["site"], m["kind"]) or "**not explained**"
        m["why_it_survives"] = why
        lines.append(f"| `{m['site']}` | {m['kind']} | {res} | {how} | {why} |")
    text = "\n".join(lines) + "\n"
    print(text)
    pathlib.Path(a.md).write_text(text)
    pathlib.Path(a.json).write_text(json.dumps({"seed": a.seed, "caught": caught, "killed": killed, "seen_in_a_decision": seen,
                                                "counted": len(counted), "survivors_explained": explained,
                                                "mutants": list(mutants.values())}, indent=1) + "\n")


if __name__ == "__main__":
    main()
