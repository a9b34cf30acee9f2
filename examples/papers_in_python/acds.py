#!/usr/bin/env python3
"""Two claims of Ahn, Cheng, Daneshmand and Sra (2023) re-stated from Python alone, against the catalogue.

acds.thm1   the single-layer global minimiser: P0 = e e^T, Q0 = -[U diag(1/((n+1)/n lam_i + tr(Lam)/n)) U^T, 0; 0, 0].
            Re-stated as an equality on the exact loss: the stated layer's loss equals the loss of the library's
            exact optimum of the sparse form (iv.optimal_gamma, which knows nothing of the formula). The catalogue
            also searches layers beyond the sparse form; this re-statement does not.
acds.lemma1 L layers of form (8) (P_l = [0 0; 0 1], Q_l = -[A_l 0; 0 0]) compute L steps of preconditioned GD,
            w <- w - A_l grad R(w), read as a prediction identity on the forward pass, one random A_l per layer
            (symmetric where sym = 1). The catalogue refutes it as a slip (the transpose: A_l^T) at d = 2, sym = 0;
            with A_l^T it is confirmed on every case, here too.

Each is run on the catalogue's --quick grid and compared with `icl_verify.run(claim, quick=True)`: the same verdict
(per case, too), and for acds.thm1 the same exact numbers (within 1e-12 relative). Exits 1 on any difference.

    PYTHONPATH=build/python python3 examples/papers_in_python/acds.py
"""
import sys

import numpy as np

import icl_verify as iv


def stated_gamma(sigma, n):
    lam, U = np.linalg.eigh(sigma)
    return -U @ np.diag(1.0 / ((n + 1) / n * lam + lam.sum() / n)) @ U.T


def sparse_layer(d, gamma):
    P, Q = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    P[d, d] = 1.0
    Q[:d, :d] = gamma
    return P, Q


def thm1():
    def model(d, n, cov):
        P, Q = sparse_layer(d, stated_gamma(iv.test_covariance(d, cov), n))
        return {"P1": P, "Q1": Q}

    def optimum_loss(d, n, cov):  # the library's exact optimum of the sparse form, independently of the formula
        S = iv.test_covariance(d, cov)
        return iv.exact_loss(*sparse_layer(d, iv.optimal_gamma(S, n)), n, sigma=S)

    grid = {"d": [2, 5], "cov": [0, 2], "n": [20]}
    mine = iv.check("py.acds.thm1", statement="acds Thm. 1: the stated (P0, Q0) attains the sparse form's minimum",
                    model=model, stated=optimum_loss, grid=grid, samples=16384, propose=False)
    cat = iv.run("acds.thm1", quick=True)
    ok = mine["verdict"] == cat["verdict"] == "confirmed"
    for c in cat["cases"]:
        p = c["params"]
        m = next(k for k in mine["cases"] if all(k["params"][x] == p[x] for x in ("d", "n", "cov")))
        a, b = m["quantities"]["exact"]["value"], c["quantities"]["stated"]["value"]        # the stated layer's loss
        e, f = m["quantities"]["stated"]["value"], c["quantities"]["exact_sparse_optimum"]["value"]  # the minimum
        same = abs(a - b) <= 1e-12 * abs(b) and abs(e - f) <= 1e-12 * abs(f) and m["verdict"] == c["verdict"]
        ok &= same
        print(f"acds.thm1 {p}: stated layer {a:.15g} (catalogue {b:.15g}), minimum {e:.15g} (catalogue {f:.15g}), "
              f"{m['verdict']} ({c['verdict']}){'' if same else '  DIFFERENT'}")
    return ok


def lemma1():
    def A_of(d, L, sym, n):
        rng = np.random.default_rng(1000 * d + 100 * L + 10 * sym + n)
        As = []
        for _ in range(L):
            A = rng.standard_normal((d, d)) / np.sqrt(d)
            As.append((A + A.T) / 2 if sym else A)
        return As

    def model(d, n, L, sym):
        w = {}
        for l, A in enumerate(A_of(d, L, sym, n), start=1):
            w[f"P{l}"], w[f"Q{l}"] = sparse_layer(d, -A)
        return w

    def gd(X, y, n, d, L, sym, transpose):  # w <- w - A_l grad R(w), R(w) = (1/2n) sum_i (w^T x_i - y_i)^2
        w = np.zeros(d)
        for A in A_of(d, L, sym, n):
            w = w - (A.T if transpose else A) @ (X[:n].T @ (X[:n] @ w - y) / n)
        return float(X[n] @ w)

    def stated_gd(X, y, n, d, L, sym, **_):
        return gd(X, y, n, d, L, sym, False)

    def corrected_gd(X, y, n, d, L, sym, **_):  # the catalogue's correction: A_l^T
        return gd(X, y, n, d, L, sym, True)

    grid = {"d": [1, 2], "n": [1, 10], "L": [1, 5], "sym": [1, 0]}
    mine = iv.check("py.acds.lemma1", kind="identity", statement="acds Lemma 1: form (8) computes L steps of "
                    "w <- w - A_l grad R(w)", model=model, reference=stated_gd, grid=grid, prompts=200,
                    exact_tolerance=1e-9)
    fixed = iv.check("py.acds.lemma1_corrected", kind="identity", statement="the same with A_l^T", model=model,
                     reference=corrected_gd, grid=grid, prompts=200, exact_tolerance=1e-9)
    print(f"acds.lemma1 corrected (A_l^T): {fixed['verdict']} on all {len(fixed['cases'])} cases")
    cat = iv.run("acds.lemma1", quick=True)
    ok = mine["verdict"] == cat["verdict"] == "refuted" and fixed["verdict"] == "confirmed"
    for c in cat["cases"]:
        p = c["params"]
        m = next(k for k in mine["cases"] if all(k["params"][x] == p[x] for x in ("d", "n", "L", "sym")))
        same = m["verdict"] == c["verdict"]
        ok &= same
        print(f"acds.lemma1 {p}: {m['verdict']} (catalogue {c['verdict']}){'' if same else '  DIFFERENT'}")
    return ok


def main():
    ok = thm1()
    ok &= lemma1()
    print("the same verdicts and exact numbers as the catalogue" if ok else "NOT the same as the catalogue")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
