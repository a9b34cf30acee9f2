#!/usr/bin/env python3
"""kind="lower_bound": no step beats a Bayes-risk bound (confirmed); "one GD step never beats least squares" (refuted).

The layer: one linear self-attention layer taking one gradient-descent step of size eta from w = 0 (von Oswald et al.
2023): P[d, d] = 1, Q = diag(-eta I, 0), so yhat = (eta / n) sum_i y_i <x_i, x_q>, here at its best step
(Isserlis: L(eta) is a quadratic in eta, least at)

    eta* = tr S^2 / ((n + 1)/n tr S^3 + (tr S + sigma^2) tr S^2 / n).

Data: x ~ N(0, S), w ~ N(0, I), y = <w, x> + sigma eps (the query's label too).

No predictor does better than the Bayes risk sigma^2 + E tr(S (I + X^T X / sigma^2)^-1), and since A -> A^-1 is
operator convex, Jensen's inequality with E X^T X = n S bounds that from below:

    L(eta) >= sigma^2 + sum_i lambda_i sigma^2 / (n lambda_i + sigma^2)       (the claim; confirmed)

(lambda_i the eigenvalues of S). The tempting "one GD step never beats least squares",
L(eta*) >= sigma^2 (n - 1) / (n - d - 1) (the ordinary least-squares risk, for any S), holds at low noise but not at
high noise with few examples, where the step's shrinkage wins: refuted, with that case as the counterexample.

    python3 examples/python_kinds/lower_bound.py [OUT]    # OUT: report folder (default: a temporary one, removed)

Exits 1 unless the Bayes bound is confirmed in every case and the least-squares bound refuted exactly where the
exact loss lies below it (ctest python_kind_lower_bound).
"""
import sys

import numpy as np

import icl_verify as iv


def best_step(d, n, cov, noise, **_):
    S = iv.test_covariance(d, cov)
    t1, t2, t3 = np.trace(S), np.trace(S @ S), np.trace(S @ S @ S)
    eta = t2 / ((n + 1) / n * t3 + (t1 + noise**2) * t2 / n)
    P, Q = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    P[d, d] = 1.0
    Q[:d, :d] = -eta * np.eye(d)
    return {"P1": P, "Q1": Q}


def bayes_bound(d, n, cov, noise, **_):
    s2 = noise**2
    return s2 + sum(lam * s2 / (n * lam + s2) for lam in np.linalg.eigvalsh(iv.test_covariance(d, cov)))


def least_squares_risk(d, n, noise, **_):
    return noise**2 * (n - 1) / (n - d - 1)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else None
    grid = {"d": [2, 5], "n": [10, 40], "cov": [2], "noise": [0.5, 2.0]}  # cov 2: rotated, spectrum [1/2, 2]
    ok = True

    r = iv.check("gd.bayes_bound", kind="lower_bound", statement="L >= sigma^2 + sum_i lambda_i sigma^2 / "
                 "(n lambda_i + sigma^2)", stated=bayes_bound, model=best_step, grid=grid, out=out)
    ratio = min(c["quantities"]["exact"]["value"] / c["quantities"]["stated"]["value"] for c in r["cases"])
    print(f"{r['claim']}: {r['verdict']}; {len(r['cases'])} cases, the exact loss at least {ratio:.3f} x the bound")
    ok &= r["verdict"] == "confirmed" and all(c["basis"] == ["exact_vs_stated"] for c in r["cases"])

    w = iv.check("gd.beats_no_least_squares", kind="lower_bound", statement="The tuned GD step never beats least "
                 "squares: L(eta*) >= sigma^2 (n-1)/(n-d-1)", stated=least_squares_risk, model=best_step, grid=grid,
                 out=out)
    below = [c for c in w["cases"] if c["quantities"]["exact"]["value"] < c["quantities"]["stated"]["value"]]
    print(f"{w['claim']}: {w['verdict']}; the exact loss lies below the least-squares risk in {len(below)} of "
          f"{len(w['cases'])} cases; counterexample {w.get('refutation', {}).get('counterexample')}")
    for c in below:
        p, q = c["params"], c["quantities"]
        print(f"  d={p['d']} n={p['n']} cov={p['cov']} noise={p['noise']}: loss {q['exact']['value']:.4f} < "
              f"least squares {q['stated']['value']:.4f}")
    ok &= w["verdict"] == "refuted" and len(below) > 0
    ok &= all((c in below) == (c["verdict"] == "refuted") for c in w["cases"])
    ok &= all(c["params"]["noise"] == 2.0 and c["params"]["n"] == 10 for c in below)  # high noise, few examples

    print("as expected" if ok else "UNEXPECTED VERDICTS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
