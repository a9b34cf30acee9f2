#!/usr/bin/env python3
"""kind="identity": one linear self-attention layer computes one gradient-descent step, prompt by prompt.

The layer (von Oswald et al. 2023, Prop. 1): P[d, d] = 1, Q = diag(-eta I, 0). With the acds embedding (the query's
label 0) and Z <- Z + (1/n) P Z M Z^T Q Z, the prediction -Z[d, n] is

    yhat = (eta / n) sum_i y_i <x_i, x_q>,                                   (the claim; confirmed)

the prediction of w_1 = w_0 - eta grad R(w_0) from w_0 = 0 on R(w) = (1/2n) sum_i (<w, x_i> - y_i)^2, whatever the
inputs' covariance. A slip that is easy to make, 1/(n+1) for 1/n (counting the query among the examples), is refuted
on the first prompt compared.

    python3 examples/python_kinds/identity.py [OUT]    # OUT: report folder (default: a temporary one, removed)

Exits 1 unless the claim is confirmed and the slip refuted (ctest python_kind_identity).
"""
import sys

import numpy as np

import icl_verify as iv


def gd_layer(d, n, eta, **_):
    P, Q = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    P[d, d] = 1.0
    Q[:d, :d] = -eta * np.eye(d)
    return {"P1": P, "Q1": Q}


def gd_step(X, y, n, eta, **_):
    """X: the inputs as rows (n+1, d), the query's last; y: the n context labels."""
    return eta / n * float(y @ (X[:n] @ X[n]))


def gd_step_slip(X, y, n, eta, **_):
    return eta / (n + 1) * float(y @ (X[:n] @ X[n]))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else None
    grid = {"d": [2, 5], "n": [10, 40], "eta": [0.5, 1.0], "cov": [0, 2]}
    ok = True

    r = iv.check("gd.one_step", kind="identity", statement="One LSA layer with P[d,d] = 1, Q = diag(-eta I, 0) predicts "
                 "(eta/n) sum_i y_i <x_i, x_q>, one GD step from 0", reference=gd_step, model=gd_layer, grid=grid,
                 out=out)
    worst = max(c["quantities"]["max_rel_error"]["value"] for c in r["cases"])
    print(f"{r['claim']}: {r['verdict']}; {len(r['cases'])} cases of 1000 prompts, largest relative difference "
          f"{worst:.1e}")
    ok &= r["verdict"] == "confirmed" and len(r["cases"]) == 16

    w = iv.check("gd.one_step_slip", kind="identity", statement="... predicts (eta/(n+1)) sum_i y_i <x_i, x_q>",
                 reference=gd_step_slip, model=gd_layer, grid=grid)
    refuted = sum(c["verdict"] == "refuted" for c in w["cases"])
    print(f"{w['claim']}: {w['verdict']}; {refuted} of {len(w['cases'])} cases refuted, each at prompt "
          f"{sorted({int(c['quantities']['prompts']['value']) - 1 for c in w['cases']})}")
    ok &= w["verdict"] == "refuted" and refuted == len(w["cases"])

    print("as expected" if ok else "NOT as expected")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
