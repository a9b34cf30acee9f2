#!/usr/bin/env python3
"""kind="argmin": the best step of the one-step GD layer, with covariance and label noise, confirmed; n/(n+d) refuted.

The layer: one linear self-attention layer taking one gradient-descent step of size eta from w = 0 (von Oswald et al.
2023): P[d, d] = 1, Q = diag(-eta I, 0), so yhat = (eta / n) sum_i y_i <x_i, x_q>. Data: x ~ N(0, S), w ~ N(0, I),
y = <w, x> + sigma eps. Its loss (Isserlis) is a quadratic in eta,

    L(eta) = sigma^2 + tr S - 2 eta tr S^2 + eta^2 ((n + 1)/n tr S^3 + (tr S + sigma^2) tr S^2 / n),

so the claim: it is least at

    eta* = tr S^2 / ((n + 1)/n tr S^3 + (tr S + sigma^2) tr S^2 / n),      (confirmed)

which is n / (n + d + 1) for S = I and sigma = 0. The library searches the exact loss over eta (a 41-point grid over
eta* +/- 1, then Brent's method) and finds no lower loss. The step n / (n + d), which one gets by missing a pairing
of Isserlis' theorem (E[x x^T x x^T] = (d + 1) I instead of (d + 2) I for S = I), is refuted: the search finds a
lower loss at eta*, its counterexample.
(examples/python_claim.py checks n / (n + d + 1) itself for S = I; here the general form.)

    python3 examples/python_kinds/argmin.py [OUT]    # OUT: report folder (default: a temporary one, removed)

Exits 1 unless eta* is confirmed in every case and n/(n+d) refuted in every case (ctest python_kind_argmin).
"""
import sys

import numpy as np

import icl_verify as iv


def gd_step(d, n, eta, **_):
    P, Q = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    P[d, d] = 1.0
    Q[:d, :d] = -eta * np.eye(d)
    return {"P1": P, "Q1": Q}


def eta_star(d, n, cov, noise, **_):
    S = iv.test_covariance(d, cov)
    t1, t2, t3 = np.trace(S), np.trace(S @ S), np.trace(S @ S @ S)
    return t2 / ((n + 1) / n * t3 + (t1 + noise**2) * t2 / n)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else None
    grid = {"d": [2, 5], "n": [20], "cov": [0, 2], "noise": [0.0, 1.0]}
    ok = True

    r = iv.check("gd.eta_star", kind="argmin", argmin_over="eta", statement="the loss is least at eta* = tr S^2 / "
                 "((n+1)/n tr S^3 + (tr S + sigma^2) tr S^2 / n)", stated=eta_star, model=gd_step, grid=grid, out=out)
    off = max(abs(c["quantities"]["search_argmin"]["value"] - c["quantities"]["stated"]["value"]) for c in r["cases"])
    print(f"{r['claim']}: {r['verdict']}; {len(r['cases'])} cases, the search's minimiser within {off:.1e} of eta*")
    ok &= r["verdict"] == "confirmed" and all(c["verdict"] == "confirmed" for c in r["cases"])
    for c in r["cases"]:  # S = I, no noise: eta* is n / (n + d + 1) and the least loss d (d + 1) / (n + d + 1)
        p, q = c["params"], c["quantities"]
        if p["cov"] == 0 and p["noise"] == 0:
            d, n = p["d"], p["n"]
            ok &= abs(q["stated"]["value"] - n / (n + d + 1)) < 1e-12
            ok &= abs(q["loss_at_stated"]["value"] - d * (d + 1) / (n + d + 1)) < 1e-9

    w = iv.check("gd.eta_n_over_n_plus_d", kind="argmin", argmin_over="eta", statement="the loss is least at "
                 "eta = n / (n + d)", stated=lambda d, n, **_: n / (n + d), model=gd_step,
                 grid={"d": [2, 5], "n": [10, 40]}, out=out)  # S = I, no noise: the setting n/(n+d) is meant for
    ok &= w["verdict"] == "refuted" and all(c["verdict"] == "refuted" for c in w["cases"])
    if ok:  # the counterexample: the better step the search found, which is eta*, and both losses
        ce = w["refutation"]["counterexample"]
        print(f"{w['claim']}: {w['verdict']}; counterexample d={ce['d']} n={ce['n']}: loss {ce['loss']:.6f} at "
              f"eta {ce['eta']:.6f} < {ce['loss_at_stated']:.6f} at the stated {ce['stated_eta']:.6f}")
        ok &= abs(ce["eta"] - eta_star(ce["d"], ce["n"], cov=0, noise=0.0)) < 1e-6
    else:
        print(f"{w['claim']}: {w['verdict']} - {w['summary']}")

    print("as expected" if ok else "UNEXPECTED VERDICTS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
