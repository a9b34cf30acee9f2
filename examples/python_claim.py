#!/usr/bin/env python3
"""A claim of one's own, stated and checked from Python alone (the C++ counterpart: examples/own_claim/).

One masked linear self-attention layer that takes one gradient-descent step of size eta on the in-context least
squares (von Oswald et al. 2023, Proposition 1): P = [[0, 0], [0, -eta]], Q = [[I, 0], [0, 0]]. For x ~ N(0, S),
w ~ N(0, I), y = <w, x>, its in-context loss is, by Isserlis' theorem (derived by hand in examples/own_claim):

    L(eta) = tr S - 2 eta tr S^2 + eta^2 ((n+1)/n tr S^3 + tr S tr S^2 / n).

icl_verify.check runs this as a claim like the catalogue's: per case the stated value, the library's own exact
loss of the layer (which knows nothing of the formula) and Monte Carlo through the layer's forward pass, with
decisions at stated error rates, and writes the same JSON, Markdown and LaTeX report as `icl-verify run`. A wrong
formula (the last term dropped) is refuted, with a counterexample. With kind="argmin", the step that minimises the
loss for S = I, eta* = n / (n + d + 1), is confirmed on the exact loss (a grid and Brent's method over eta find no
lower loss), and eta = n / (n + d) is refuted, the better eta its counterexample.

    python3 examples/python_claim.py [OUT]     # OUT: the report folder (default: python-claim-report)

With the module installed (`pip install .`, README) or built (PYTHONPATH=build/python). Exits 1 unless the
formula and eta* are confirmed and the wrong ones refuted.
"""
import sys

import numpy as np

import icl_verify as iv


def gd_step_layer(d, n, eta, **_):
    """The weights, as a mapping of named full matrices (icl_verify.eval_weights takes the same)."""
    P = np.zeros((d + 1, d + 1))
    P[d, d] = -eta
    Q = np.zeros((d + 1, d + 1))
    Q[:d, :d] = np.eye(d)
    return {"P1": P, "Q1": Q}


def stated_loss(d, n, eta, cov=0, **_):
    S = iv.test_covariance(d, cov)
    t1, t2, t3 = np.trace(S), np.trace(S @ S), np.trace(S @ S @ S)
    return t1 - 2 * eta * t2 + eta**2 * ((n + 1) / n * t3 + t1 * t2 / n)


def wrong_loss(d, n, eta, cov=0, **_):
    S = iv.test_covariance(d, cov)
    t1, t2, t3 = np.trace(S), np.trace(S @ S), np.trace(S @ S @ S)
    return t1 - 2 * eta * t2 + eta**2 * (n + 1) / n * t3  # the tr S tr S^2 / n term forgotten


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "python-claim-report"
    grid = {"d": [2, 4], "n": [20, 40], "eta": [0.5], "cov": [0, 2]}
    r = iv.check("oswald.gd_loss", statement="One LSA layer taking one GD step of size eta has loss "
                 "tr S - 2 eta tr S^2 + eta^2 ((n+1)/n tr S^3 + tr S tr S^2 / n)",
                 stated=stated_loss, model=gd_step_layer, task="linear", grid=grid, samples=262144, seed=1, out=out)
    print(f"{r['claim']}: {r['verdict']} - {r['summary']}")
    wrong = iv.check("oswald.gd_loss_wrong", statement="The same loss without its tr S tr S^2 / n term",
                     stated=wrong_loss, model=gd_step_layer, grid=grid, samples=262144, seed=1, out=out)
    print(f"{wrong['claim']}: {wrong['verdict']} - counterexample {wrong.get('refutation', {}).get('counterexample')}")
    star = iv.check("oswald.gd_eta_star", statement="For S = I the loss is least at eta = n / (n + d + 1)",
                    kind="argmin", argmin_over="eta", stated=lambda d, n: n / (n + d + 1), model=gd_step_layer,
                    grid={"d": [2, 4], "n": [20, 40]}, seed=1, out=out)
    print(f"{star['claim']}: {star['verdict']} - {star['summary']}")
    off = iv.check("oswald.gd_eta_wrong", statement="For S = I the loss is least at eta = n / (n + d)",
                   kind="argmin", argmin_over="eta", stated=lambda d, n: n / (n + d), model=gd_step_layer,
                   grid={"d": [2, 4], "n": [20, 40]}, seed=1, out=out)
    print(f"{off['claim']}: {off['verdict']} - counterexample {off.get('refutation', {}).get('counterexample')}")
    ok = (r["verdict"] == "confirmed" and wrong["verdict"] == "refuted" and star["verdict"] == "confirmed"
          and off["verdict"] == "refuted")
    print(f"reports in {out}/ (oswald.gd_loss.json, .tex, summary.md)" if ok else "UNEXPECTED VERDICTS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
