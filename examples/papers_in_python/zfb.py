#!/usr/bin/env python3
"""Two claims of Zhang, Frei and Bartlett (2024) re-stated from Python alone, against the catalogue.

zfb.thm5 (b)  the limit model of Theorem 4 trained at length N, W_KQ = tr(Gam^-2)^(-1/4) [Gam^-1, 0; 0, 0],
              W_PV = tr(Gam^-2)^(1/4) [0, 0; 0, 1], Gam = (1 + 1/N) Lam + tr(Lam)/N I, tested at length M with
              w ~ N(0, I): E(yhat - y)^2 <= (d+1) tr(Lam)/M + (1 + 2d + d^2 kappa) tr(Lam)/N^2.
              An upper bound on the exact loss. zfb predicts yhat = +Z[d, n]; in the library's convention
              (yhat = -Z[d, n]) the layer is P = -W_PV, Q = W_KQ (the query's label is 0, so zfb's unmasked
              attention and the masked layer predict alike), at scale 1/M (n = M).
              Run on the catalogue's --quick case of part b (d = 2, Lam the rotated covariance of condition number
              100, N = 4, M = 8): the same verdict and the same exact loss (within 1e-12 relative). The catalogue
              also searches the worst case over spectra, N and M (part b's search); this does not.
zfb.thm4      gradient flow on L = 1/2 E(yhat - y)^2, x ~ N(0, Lam), w ~ N(0, I), length N, from Assumption 3's
              W_PV(0) = sigma [0, 0; 0, 1], W_KQ(0) = sigma [Theta Theta^T, 0; 0, 0] (||Theta Theta^T||_F = 1,
              Theta Lam != 0, sigma^2 ||Gam||_op sqrt(d) < 2) converges to a global minimum at the W_KQ_*, W_PV_*
              above (eq. 11). Re-stated as a TRAINING claim on the catalogue's two quick cases (d = 2, N = 5,
              Lam isotropic and rotated with eigenvalues 1 and 1/10; sigma half its bound; a Gaussian Theta,
              the catalogue's kind 0, drawn here by numpy, since the catalogue's draw is not in its report; the
              rotated Lam is read from the catalogue's case record, as its rotation is drawn in C++, and checked
              to have eigenvalues 1 and 1/10). One run of iv.train per case in zfb's layout (P = W_PV, Q = W_KQ,
              yhat = +Z[d, n]) from that initialisation, every entry trained: plain SGD (optimizer "sgd"), learning
              rate 0.02, 4000 fresh prompts per step, for a flow time of 100 (isotropic) and 400 (rotated; the
              catalogue's exact flow is within about 1e-3 of eq. 11 by then). The trainer's loss is (yhat - y)^2
              = 2 L, so a step is a flow time of 2 x 0.02. What the theorem implies for the endpoint, decided:
              (1) the trained layer's exact loss <= 1.01 x L(W_*) (upper_bound on the library's exact loss);
              (2) no trained layer's exact loss is below L(W_*): it is the global minimum (lower_bound);
              (3) ||W_PV[d,d] W_KQ[:d,:d] - Gam^-1||_F <= 0.05 ||Gam^-1||_F (numpy).
              Tolerances chosen before the runs: sampled gradients are noisy and the step is finite, so the
              trained point is judged near the minimiser, not at it; SGD's stationary excess loss (about lr x the
              gradient noise / 4) is of order 1e-3 relative here, so 1% leaves room, and the product's slowest
              direction (curvature about 0.015 in the rotated case) carries noise of a few percent, so 5%. The
              product is checked rather than each matrix because it is invariant under W_PV -> c W_PV,
              W_KQ -> W_KQ / c, the symmetry whose conserved balance ||W_PV||^2 - ||W_KQ||_F^2 = 0 fixes the split
              of eq. (11) under the flow; finite noisy steps do not conserve it (it drifts by lr^2 ||g||^2 a step),
              so each matrix's distance to eq. (11) is printed, not decided. (A first attempt at learning rate
              0.05, batch 2000 was too noisy: the rotated case's product was 7.8% off.)
              The layer trained and judged is the masked one (the library's exact loss integrates masked layers);
              zfb's unmasked layer differs from it only by (1/N) (W_PV[d,:d] x_q)(x_q^T W_KQ[:d,:d] x_q), zero on
              the reduced form that the theorem's flow keeps (W_PV[d,:d] = 0, W_KQ's last row and column 0), where
              both losses and gradients agree: the two population flows from Assumption 3 are the same, and both
              layers' global minimum is L(W_*) (the extra term is even in w, the label odd).
              Python's SGD on sampled prompts is not the catalogue's exact population flow (adaptive Dormand-Prince
              on the closed-form loss), so the comparison is: the same verdict (confirmed, per case too), and
              L(W_*) computed from Python (the library's exact loss in its convention, P = -W_PV) equal to the
              catalogue's stated value and to its global lower bound (inf over all tensors), W_KQ_*, W_PV_*[d,d] and
              the bound on sigma equal to the catalogue's, all within 1e-12 relative. Exits 1 on any difference.

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


def thm5():
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
          f"{m['verdict']} ({c['verdict']}){'' if ok else '  DIFFERENT'}")
    return ok


THM4_SIGMA_FRACTION = 0.5            # sigma / its bound, as the catalogue's quick cases
THM4_LR, THM4_BATCH = 0.02, 4000     # plain SGD on (yhat - y)^2 = 2 L: flow time 2 * lr = 0.04 per step
THM4_FLOW_TIME = {0: 100.0, 2: 400.0}  # flow time per case (covariance kind), fixed before the runs
THM4_LOSS_FACTOR = 1.01              # (1) trained exact loss <= 1.01 x L(W_*)
THM4_PRODUCT_TOL = 0.05              # (3) || W_PV[d,d] W_KQ[:d,:d] - Gam^-1 ||_F / ||Gam^-1||_F <= 0.05


def thm4_gamma(Lam, N):
    d = Lam.shape[0]
    return (1 + 1 / N) * Lam + np.trace(Lam) / N * np.eye(d)


def thm4_limit(Lam, N):  # eq. (11) in zfb's convention: P = W_PV, Q = W_KQ
    d = Lam.shape[0]
    Gi = np.linalg.inv(thm4_gamma(Lam, N))
    t = np.trace(Gi @ Gi)
    W_KQ, W_PV = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    W_KQ[:d, :d] = t ** -0.25 * Gi
    W_PV[d, d] = t ** 0.25
    return W_PV, W_KQ


def thm4():
    cat = iv.run("zfb.thm4", quick=True)
    cases = {c["params"]["cov"]: c for c in cat["cases"]}  # the quick grid: d = 2, N = 5, cov 0 and 2, theta 0
    d, N = 2, 5
    assert all(c["params"]["d"] == d and c["params"]["N"] == N and c["params"]["theta"] == 0 and
               c["params"]["sigma"] == THM4_SIGMA_FRACTION for c in cases.values()), [c["params"] for c in cat["cases"]]

    def lam(cov):  # the catalogue's case's covariance (its rotation is drawn in C++; cov 2: eigenvalues 1 and 1/10)
        L = np.array(cases[cov]["lambda"]["matrix"])
        want = [1.0] * d if cov == 0 else [0.1, 1.0]
        assert np.allclose(np.linalg.eigvalsh(L), want, rtol=1e-12, atol=1e-12), (cov, np.linalg.eigvalsh(L))
        return L

    def sigma_bound(cov):  # sigma^2 ||Gam||_op sqrt(d) < 2
        return np.sqrt(2 / (np.linalg.eigvalsh(thm4_gamma(lam(cov), N)).max() * np.sqrt(d)))

    def star_loss(cov):  # E(yhat - y)^2 at W_*: the library's exact loss in its convention (P = -W_PV, Q = W_KQ)
        W_PV, W_KQ = thm4_limit(lam(cov), N)
        return iv.exact_loss(-W_PV, W_KQ, N, sigma=lam(cov))

    runs = {}

    def trained(d, n, cov):  # one SGD run per case from Assumption 3's initialisation, in zfb's layout
        if cov not in runs:
            Lam, s = lam(cov), THM4_SIGMA_FRACTION * sigma_bound(cov)
            Theta = np.random.default_rng(4 + cov).standard_normal((d, d))  # Gaussian Theta, as the catalogue's kind 0
            TT = Theta @ Theta.T / np.linalg.norm(Theta @ Theta.T)
            assert np.linalg.norm(Theta @ Lam) > 0
            assert s ** 2 * np.linalg.eigvalsh(thm4_gamma(Lam, n)).max() * np.sqrt(d) < 2  # Theorem 4's condition
            P, Q = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
            P[d, d], Q[:d, :d] = s, s * TT
            r = iv.train([{"kind": "lsa", "P": P, "Q": Q}], layout="zfb", d=d, n=n, sigma=Lam, optimizer="sgd",
                         learning_rate=THM4_LR, steps=int(round(THM4_FLOW_TIME[cov] / (2 * THM4_LR))),
                         batch=THM4_BATCH, seed=1 + cov)
            assert r["status"] == "finished", r["reason"]
            runs[cov] = r["layers"]
        return runs[cov]

    grid = {"d": d, "n": N, "cov": [0, 2]}
    law = dict(layout="zfb", model=trained, sigma=lambda d, n, cov: lam(cov), grid=grid, samples=16384)
    near = iv.check("py.zfb.thm4_near", kind="upper_bound", statement=f"zfb Thm. 4: the trained layer's loss is "
                    f"within a factor {THM4_LOSS_FACTOR} of L(W_*)",
                    stated=lambda d, n, cov: THM4_LOSS_FACTOR * star_loss(cov), **law)
    least = iv.check("py.zfb.thm4_least", kind="lower_bound", statement="zfb Thm. 4: L(W_*) is the global minimum: no "
                     "trained layer's loss is below it", stated=lambda d, n, cov: star_loss(cov), **law)
    ok = cat["verdict"] == "confirmed"
    for cov, c in cases.items():
        m = next(k for k in near["cases"] if k["params"]["cov"] == cov)
        l = next(k for k in least["cases"] if k["params"]["cov"] == cov)
        Lam = lam(cov)
        W_PV, W_KQ = thm4_limit(Lam, N)
        Gi = np.linalg.inv(thm4_gamma(Lam, N))
        P, Q = runs[cov][0]["P"], runs[cov][0]["Q"]
        product = np.linalg.norm(P[d, d] * Q[:d, :d] - Gi) / np.linalg.norm(Gi)
        each = np.sqrt((np.linalg.norm(P - W_PV) ** 2 + np.linalg.norm(Q - W_KQ) ** 2) /
                       (np.linalg.norm(W_PV) ** 2 + np.linalg.norm(W_KQ) ** 2))
        a = 0.5 * star_loss(cov)                    # L = 1/2 E(yhat - y)^2, the catalogue's quantity
        e = 0.5 * m["quantities"]["exact"]["value"]
        b, g = c["quantities"]["stated"]["value"], c["quantities"]["global_min_lower_bound"]["value"]
        mine = (all(k["verdict"] == "confirmed" and "exact_basis" in k for k in (m, l)) and  # on the exact loss
                product <= THM4_PRODUCT_TOL)
        same = (mine and c["verdict"] == "confirmed" and abs(a - b) <= 1e-12 * abs(b) and abs(a - g) <= 1e-12 * abs(g)
                and abs(sigma_bound(cov) - c["sigma_bound"]) <= 1e-12 * c["sigma_bound"]
                and np.abs(W_KQ - np.array(c["quantities"]["stated_kq"]["matrix"])).max() <= 1e-12 * np.abs(W_KQ).max()
                and abs(W_PV[d, d] - c["quantities"]["stated_pv_dd"]["value"]) <= 1e-12 * W_PV[d, d])
        ok &= same
        print(f"zfb.thm4 {c['params']}: L(W_*) {a:.15g} (catalogue {b:.15g}, its global lower bound {g:.15g}); "
              f"trained {e:.9g} = {e / a:.6f} x L(W_*) (<= {THM4_LOSS_FACTOR}: {m['verdict']}, >= 1: {l['verdict']}), "
              f"product {product:.3g} from Gam^-1 (<= {THM4_PRODUCT_TOL}), weights {each:.3g} from eq. (11); "
              f"{'confirmed' if mine else 'NOT confirmed'} ({c['verdict']}){'' if same else '  DIFFERENT'}")
    return ok


def main():
    ok = thm5()
    ok &= thm4()
    print("the same verdicts and exact numbers as the catalogue" if ok else "NOT the same as the catalogue")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
