#!/usr/bin/env python3
"""kind="rate": the tuned one-step GD layer's loss decays like 1/n; a fixed step's does not.

The layer: one linear self-attention layer taking one gradient-descent step of size eta from w = 0 (P[d, d] = 1,
Q = diag(-eta I, 0)). On x ~ N(0, I_d), w ~ N(0, I_d), y = <w, x>, its loss is

    L(eta) = d - 2 eta d + eta^2 d (n + d + 1) / n.

At the tuned step eta* = n / (n + d + 1), L = d (d + 1) / (n + d + 1) ~ d (d + 1) / n: exponent -1 (the claim;
confirmed). A tempting generalisation, "one GD step's loss decays like 1/n" at a fixed step eta = 0.5, is false:
L -> d (1 - eta)^2 > 0, exponent 0 (refuted: the slopes move away from -1).

    python3 examples/python_kinds/rate.py [OUT]    # OUT: report folder (default: a temporary one, removed)

Exits 1 unless the claim is confirmed and the generalisation refuted (ctest python_kind_rate).
"""
import sys

import numpy as np

import icl_verify as iv


def gd_layer(d, eta):
    P, Q = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    P[d, d] = 1.0
    Q[:d, :d] = -eta * np.eye(d)
    return {"P1": P, "Q1": Q}


def tuned(d, n, **_):
    return gd_layer(d, n / (n + d + 1))


def fixed(d, n, **_):
    return gd_layer(d, 0.5)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else None
    grid = {"d": [2, 5], "n": [100, 300, 1000, 3000]}
    ok = True

    r = iv.check("gd.tuned_rate", kind="rate", rate_over="n", statement="At eta* = n/(n+d+1) one GD step's loss "
                 "decays like 1/n", stated=lambda **_: -1.0, model=tuned, grid=grid, out=out)
    for c in r["cases"]:
        print(f"  {c['params']}: last slope {c['quantities']['slope']['value']:.4f} ({c['verdict']})")
    print(f"{r['claim']}: {r['verdict']}")
    ok &= r["verdict"] == "confirmed" and len(r["cases"]) == 2

    w = iv.check("gd.fixed_rate", kind="rate", rate_over="n", statement="At eta = 0.5 one GD step's loss decays "
                 "like 1/n", stated=lambda **_: -1.0, model=fixed, grid=grid)
    for c in w["cases"]:
        print(f"  {c['params']}: last slope {c['quantities']['slope']['value']:.4f} ({c['verdict']})")
    print(f"{w['claim']}: {w['verdict']}")
    ok &= w["verdict"] == "refuted" and all(c["verdict"] == "refuted" for c in w["cases"])

    print("as expected" if ok else "NOT as expected")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
