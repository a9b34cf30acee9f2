#!/usr/bin/env python3
"""A claim of Zhang, Frei and Bartlett (2024) re-stated from Python alone, against the catalogue.

zfb.thm5 (b)  the limit model of Theorem 4 trained at length N, W_KQ = tr(Gam^-2)^(-1/4) [Gam^-1, 0; 0, 0],
              W_PV = tr(Gam^-2)^(1/4) [0, 0; 0, 1], Gam = (1 + 1/N) Lam + tr(Lam)/N I, tested at length M with
              w ~ N(0, I): E(yhat - y)^2 <= (d+1) tr(Lam)/M + (1 + 2d + d^2 kappa) tr(Lam)/N^2.
              An upper bound on the exact loss. zfb predicts yhat = +Z[d, n]; in the library's convention
              (yhat = -Z[d, n]) the layer is P = -W_PV, Q = W_KQ (the query's label is 0, so zfb's unmasked
              attention and the masked layer predict alike), at scale 1/M (n = M).

Run on the catalogue's --quick case of part b (d = 2, Lam the rotated covariance of condition number 100, N = 4,
M = 8) and compared with `icl_verify.run("zfb.thm5", quick=True)`: the same verdict and the same exact loss (within
1e-12 relative). The catalogue also searches the worst case over spectra, N and M (part b's search); this does not.

    PYTHONPATH=build/python python3 examples/papers_in_python/zfb.py
"""
import sys

import numpy as np

import icl_verify as iv


def limit_model(d, n, N, cov):
    Lam = iv.test_covariance(d, cov)
    Gam = (1 + 1 / N) * Lam + np.trace(Lam) / N * np.eye(d)
    Gi = np.linalg.inv(Gam)
    t = np.trace(Gi @ Gi)
    W_KQ, W_PV = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    W_KQ[:d, :d] = t ** -0.25 * Gi
    W_PV[d, d] = t ** 0.25
    return {"P1": -W_PV, "Q1": W_KQ}


def bound(d, n, N, cov):
    lam = np.linalg.eigvalsh(iv.test_covariance(d, cov))
    return (d + 1) * lam.sum() / n + (1 + 2 * d + d * d * lam.max() / lam.min()) * lam.sum() / N ** 2


def main():
    mine = iv.check("py.zfb.thm5", kind="upper_bound", statement="zfb Thm. 5: E(yhat - y)^2 <= (d+1) tr(Lam)/M + "
                    "(1 + 2d + d^2 kappa) tr(Lam)/N^2", model=limit_model, stated=bound,
                    grid={"d": 2, "cov": 3, "N": 4, "n": 8}, samples=16384)
    cat = iv.run("zfb.thm5", quick=True)
    c = next(k for k in cat["cases"] if k["params"].get("task") == 3)
    m = mine["cases"][0]
    a, b = m["quantities"]["exact"]["value"], c["quantities"]["exact"]["value"]
    s, t = m["quantities"]["stated"]["value"], c["quantities"]["stated"]["value"]
    ok = (mine["verdict"] == cat["verdict"] == "confirmed" and m["verdict"] == c["verdict"] and
          abs(a - b) <= 1e-12 * abs(b) and abs(s - t) <= 1e-12 * abs(t))
    print(f"zfb.thm5 (b) {c['params']}: exact {a:.15g} (catalogue {b:.15g}) <= bound {s:.15g} (catalogue {t:.15g}), "
          f"{m['verdict']} ({c['verdict']})")
    print("the same verdict and exact numbers as the catalogue" if ok else "NOT the same as the catalogue")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
