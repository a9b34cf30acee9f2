#!/usr/bin/python3
"""The Monte Carlo estimator of sja.thm2 in plain vectorised NumPy: the same estimator as
bench/bench_sja_thm2.cpp (icl::PromptLossWorker on icl::sja::appC_block), batched over prompts.

Task: y = sum over all C(d+2, 2) monomials of degree <= 2 of w_m x^{e_m}, w ~ N(0, I), x ~ N(0, I_d).
Prompt (sja embedding): Z is (dbar+1) x (n+1), rows (1, x (d), zeros, y), dbar = C(d+2, 2); the query
column holds (1, x_q, 0, 0).
Layer 1 (App. C bilinear, as in constructions/sja_appC.cpp): Z_top += (W0 Z_top) * (W1 Z_top),
Z_top = the first dbar rows.
Layer 2 (linear self-attention, masked, scale 1/n): Z += (1/n) P (Z M Z^T) Q Z with P = e e^T,
Q = diag(Gamma, 0), Gamma = -E[xbar xbar^T]^{-1}, M = diag(I_n, 0): the same re-associated product as
lib/icl/layers/lsa.cpp and bilinear.cpp, computed in full (no use of the sparsity of P, Q, W0, W1).
Loss: (yhat + y_q)^2, yhat = Z[dbar, n] after both layers.

Random numbers come from NumPy's PCG64, not Philox, so the estimate agrees with the C++ one only
within Monte Carlo error. The exact value is d (d^3 + 18 d^2 + 95 d + 142) / (4 n) (874/200 = 4.37 at
d = 4, n = 200).

Prints prompts per second (sampling + forward pass + loss, setup excluded; the median over the timed
repetitions, by wall clock and by process CPU time) and the estimate with its standard error.
Single-threaded: the BLAS thread variables are pinned to 1 before NumPy is imported (Debian's
reference BLAS is single-threaded anyway).
--sufficient: the estimator a researcher would write knowing the construction's closed form, with no
forward pass: after the App. C layer the prompt's features are xbar = (1, x, x_j^2 - 1, x_j x_k), and
the attention layer's prediction is yhat = (1/n) s^T Gamma xbar_q with the sufficient statistic
s = sum_i y_i xbar_i (the same number as the forward pass, up to rounding). Vectorised over the batch.

Usage: /usr/bin/python3 bench/numpy_sja_thm2.py [--prompts 16384] [--batch 256] [--seed 1] [--repeat 3]
       [--sufficient | --plain]
"""
import argparse
import math
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402


def kernel_width(d):
    return (d + 2) * (d + 1) // 2


def monomials(d):
    """Exponent vectors of degree <= 2 (graded, x_1 first), as in icl::monomials_up_to(d, 2)."""
    out = [np.zeros(d, dtype=np.int64)]
    for j in range(d):
        e = np.zeros(d, dtype=np.int64)
        e[j] = 1
        out.append(e)
    for j in range(d):
        for k in range(j, d):
            e = np.zeros(d, dtype=np.int64)
            e[j] += 1
            e[k] += 1
            out.append(e)
    return np.array(out)  # (m, d)


def appc_bilinear(d):
    """W0, W1 of App. C exactly as constructions/sja_appC.cpp builds them (0-based rows/columns)."""
    dbar = kernel_width(d)
    W0 = np.zeros((dbar, dbar))
    W1 = np.zeros((dbar, dbar))
    row = d + 1
    for j in range(1, d + 1):
        for k in range(j, d + 1):
            if j == k:
                W0[row, j] = 1.0
                W0[row, 0] = -1.0
                W1[row, j] = 1.0
                W1[row, 0] = 1.0
            else:
                W0[row, j] = 1.0
                W1[row, k] = 1.0
            row += 1
    return W0, W1


def appc_gamma(d):
    """-E[xbar xbar^T]^{-1} for xbar = (1, x, x_j^2 - 1, x_j x_k), x ~ N(0, I): the second-moment matrix
    is diagonal with E[(x^2-1)^2] = 2 and every other entry 1, so Gamma = -diag(1, 1.., 1/2 or 1 ..)."""
    diag = [1.0] + [1.0] * d
    for j in range(d):
        for k in range(j, d):
            diag.append(0.5 if j == k else 1.0)
    return -np.diag(diag)


class Estimator:
    def __init__(self, d, n, plain=False, sufficient=False):
        self.d, self.n = d, n
        self.plain = plain
        self.sufficient = sufficient  # True: the paper's formula as written, Z + (1/n) P Z M (Z^T Q Z) (an N x N matrix)
        self.dbar = kernel_width(d)
        self.D, self.N = self.dbar + 1, n + 1
        self.E = monomials(d)
        self.W0, self.W1 = appc_bilinear(d)
        self.P = np.zeros((self.D, self.D))
        self.P[-1, -1] = 1.0
        self.Q = np.zeros((self.D, self.D))
        self.Q[: self.dbar, : self.dbar] = appc_gamma(d)
        # monomial features of degree <= 2 from x: phi = (1, x, x_j x_k for j <= k)
        self.pairs = [(j, k) for j in range(d) for k in range(j, d)]
        self.jj = np.array([p[0] for p in self.pairs])
        self.kk = np.array([p[1] for p in self.pairs])
        self.diag_shift = np.array([1.0 if j == k else 0.0 for j, k in self.pairs])
        self.gamma_diag = np.diag(appc_gamma(d)).copy()

    def losses_sufficient(self, rng, B):
        d, n, N = self.d, self.n, self.N
        w = rng.standard_normal((B, self.E.shape[0]))
        X = rng.standard_normal((B, d, N))
        sq = X[:, self.jj, :] * X[:, self.kk, :]                               # x_j x_k, j <= k: (B, p, N)
        phi = np.concatenate([np.ones((B, 1, N)), X, sq], axis=1)             # monomials (B, m, N)
        y = np.matmul(w[:, None, :], phi)[:, 0, :]                            # labels (B, N)
        phi[:, d + 1 :, :] -= self.diag_shift[None, :, None]                   # xbar: x_j^2 - 1 on the diagonal pairs
        s = np.matmul(phi[:, :, :n], y[:, :n, None])[:, :, 0]                  # sum_i y_i xbar_i (B, m)
        yhat = ((s * self.gamma_diag) * phi[:, :, n]).sum(axis=1) / n          # (1/n) s^T Gamma xbar_q
        e = yhat + y[:, n]
        return e * e

    def losses(self, rng, B):
        if self.sufficient:
            return self.losses_sufficient(rng, B)
        d, n, dbar, D, N = self.d, self.n, self.dbar, self.D, self.N
        w = rng.standard_normal((B, self.E.shape[0]))            # task coefficients
        X = rng.standard_normal((B, d, N))                        # context inputs and the query
        # y = sum_m w_m x^{e_m} at every column
        jj = np.array([p[0] for p in self.pairs])
        kk = np.array([p[1] for p in self.pairs])
        phi = np.concatenate([np.ones((B, 1, N)), X, X[:, jj, :] * X[:, kk, :]], axis=1)  # (B, m, N)
        y = np.matmul(w[:, None, :], phi)[:, 0, :]                # (B, N)
        # embedding
        Z = np.zeros((B, D, N))
        Z[:, 0, :] = 1.0
        Z[:, 1 : d + 1, :] = X
        Z[:, dbar, :n] = y[:, :n]
        # bilinear layer (label row masked)
        Zt = Z[:, :dbar, :]
        Zt += np.matmul(self.W0, Zt) * np.matmul(self.W1, Zt)
        if self.plain:
            # the paper's eq. (2) evaluated as written: P Z M (Z^T Q Z), with the N x N score matrix
            A = np.matmul(Z.transpose(0, 2, 1), np.matmul(self.Q, Z))   # (B, N, N)
            ZM = Z.copy()
            ZM[:, :, n] = 0.0                                           # M = diag(I_n, 0)
            Z += np.matmul(np.matmul(self.P, ZM), A) * (1.0 / n)
        else:
            # masked linear self-attention, P (Z M Z^T) Q Z (the C++ engine's association)
            Zk = Z[:, :, :n]
            G = np.matmul(Zk, Zk.transpose(0, 2, 1))                  # (B, D, D)
            T = np.matmul(np.matmul(self.P, G), self.Q)
            Z += np.matmul(T, Z) * (1.0 / n)
        e = Z[:, dbar, n] + y[:, n]
        return e * e


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--d", type=int, default=4)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--prompts", type=int, default=16384, help="prompts per timed repetition")
    ap.add_argument("--batch", type=int, default=256, help="prompts per vectorised batch")
    ap.add_argument("--repeat", type=int, default=3, help="timed repetitions (fresh prompts each)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plain", action="store_true",
                    help="evaluate attention as the paper writes it (N x N scores) instead of re-associated")
    ap.add_argument("--sufficient", action="store_true",
                    help="closed-form sufficient-statistics estimator (no forward pass)")
    a = ap.parse_args()

    est = Estimator(a.d, a.n, a.plain, a.sufficient)
    rng = np.random.default_rng(a.seed)
    est.losses(rng, min(a.batch, 16))  # warm-up
    all_losses, rates, cpu_rates = [], [], []
    for _ in range(a.repeat):
        done, chunks = 0, []
        t0, c0 = time.perf_counter(), time.process_time()
        while done < a.prompts:
            b = min(a.batch, a.prompts - done)
            chunks.append(est.losses(rng, b))
            done += b
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        rates.append(a.prompts / dt)
        cpu_rates.append(a.prompts / dc)
        all_losses.append(np.concatenate(chunks))
    L = np.concatenate(all_losses)
    mean = float(L.mean())
    se = float(L.std(ddof=1) / math.sqrt(L.size))
    exact = a.d * (a.d ** 3 + 18 * a.d ** 2 + 95 * a.d + 142) / (4.0 * a.n)
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}, d={a.d}, n={a.n}, batch={a.batch}, "
          f"estimator={'sufficient statistics' if a.sufficient else 'forward pass'}, "
          f"attention={'plain (paper, N x N)' if a.plain else 're-associated'}")
    print(f"prompts_per_s_each: {' '.join(f'{r:.1f}' for r in rates)}")
    print(f"prompts_per_s: {float(np.median(rates)):.1f}")  # wall clock, median of the repetitions
    print(f"prompts_per_cpu_s: {float(np.median(cpu_rates)):.1f}")  # process CPU time (robust to load)
    print(f"estimate_mean: {mean:.6g}")
    print(f"estimate_stderr: {se:.3g}")
    print(f"samples: {L.size}")
    print(f"exact: {exact:.6g}  z = {(mean - exact) / se:+.2f}")


if __name__ == "__main__":
    main()
