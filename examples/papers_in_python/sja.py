#!/usr/bin/env python3
"""A claim of Sun, Jadbabaie and Azizan (2025) re-stated from Python alone, against the catalogue: a bilinear model.

sja.thm2    App. C's block (a bilinear layer that writes the quadratic kernel's features (7) into the prompt, then
            one sparse attention layer with Gamma = -E[xbar xbar^T]^-1) has loss ((d+2)(d+1)+d)/(2n) on the quadratic
            task. Built here from its printed weights as layer dicts on the sja layout (rows: 1, x, the C(d+1,2)
            products, y) and decided on the exact loss the library integrates for it (the bilinear layer's output rows
            are polynomials in x, their moments exact), Monte Carlo through the forward pass checking it. The
            catalogue refutes it on its exact loss (29x at d = 2, n = 100).

Run on the catalogue's --quick grid and compared with `icl_verify.run("sja.thm2", quick=True)`: the same verdict, per
case too, and the same exact losses (within 1e-12 relative). Exits 1 otherwise.

    PYTHONPATH=build/python python3 examples/papers_in_python/sja.py
"""
import sys

import numpy as np

import icl_verify as iv


def appC_block(d, n):
    pairs = [(j, k) for j in range(d) for k in range(j, d)]
    dbar = 1 + d + len(pairs)                      # C(d+2, 2): 1, x, the products
    D = dbar + 1                                   # and the label row
    W0, W1 = np.zeros((dbar, dbar)), np.zeros((dbar, dbar))
    second = np.ones(dbar)                         # E[xbar_a^2] under x ~ N(0, I): 2 for x_j^2 - 1, else 1
    for r, (j, k) in enumerate(pairs, start=1 + d):
        if j == k:                                 # (x_j - 1)(x_j + 1) = x_j^2 - 1
            W0[r, 1 + j], W0[r, 0], W1[r, 1 + j], W1[r, 0] = 1.0, -1.0, 1.0, 1.0
            second[r] = 2.0
        else:                                      # x_j x_k
            W0[r, 1 + j], W1[r, 1 + k] = 1.0, 1.0
    P, Q = np.zeros((D, D)), np.zeros((D, D))
    P[D - 1, D - 1] = 1.0
    Q[:dbar, :dbar] = -np.diag(1.0 / second)       # Gamma = -E[xbar xbar^T]^-1 (the features are uncorrelated)
    return [{"kind": "bilinear", "W0": W0, "W1": W1}, {"kind": "lsa", "P": P, "Q": Q}]


def main():
    grid = {"d": [1, 2], "n": [25, 100]}
    mine = iv.check("py.sja.thm2", statement="sja Thm. 2: the App. C block's loss is ((d+2)(d+1)+d)/(2n)",
                    model=appC_block, layout="sja", task="quadratic",
                    stated=lambda d, n: ((d + 2) * (d + 1) + d) / (2 * n), grid=grid, samples=16384, propose=False)
    cat = iv.run("sja.thm2", quick=True)
    ok = mine["verdict"] == cat["verdict"] == "refuted"
    for c in cat["cases"]:
        p = c["params"]
        m = next(k for k in mine["cases"] if all(k["params"][x] == p[x] for x in ("d", "n")))
        mine_exact, exact = m["quantities"]["exact"]["value"], c["quantities"]["exact"]["value"]
        same = m["verdict"] == c["verdict"] and abs(mine_exact - exact) <= 1e-12 * abs(exact)
        ok &= same
        print(f"sja.thm2 {p}: exact {mine_exact:.15g} against the stated {m['quantities']['stated']['value']:.4g}, "
              f"{m['verdict']}; catalogue exact {exact:.15g}, {c['verdict']}{'' if same else '  DIFFERENT'}")
    print("the same verdicts and exact losses as the catalogue" if ok else "NOT the same as the catalogue")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
