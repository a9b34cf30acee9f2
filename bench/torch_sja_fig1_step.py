#!/usr/bin/env python3
"""One Adam step of sja.fig1's bilinear model in PyTorch: the PyTorch baseline of issue 27's training step
(bench/gpu/check.sh, --device cuda, float64 and float32), the same computation as the cuda backend's minibatch()
of learn::sja_bilinear(d, dbar, L, dense) timed by tests/gpu/cuda_equality.cpp --time.

Model (sja eq. (3) and App. J; lib/icl/learn/forms.cpp sja_bilinear, dense form): D = dbar + 1 rows, N = n + 1
columns; L blocks, each a bilinear layer on the top D - 1 rows, X <- X + (W0 X) * (W1 X), then a masked linear
self-attention layer, Z <- Z + (1/n) P (Z_K Z_K^T) Q Z with Z_K the n context columns (the query is not a key).
Every P, Q (D x D) and W0, W1 (D-1 x D-1) is trained. Prediction Z[D-1, n] after the last layer; loss mean
(yhat + y_q)^2 (icl::LossSpec::sja()).
Prompts (model/prompt.cpp, sja embedding): row 0 ones, rows 1..d the inputs x ~ N(0, I_d), rows d+1..D-2 zero,
row D-1 the labels (0 at the query); y = w . phi(x) with phi the monomials of degree <= 2 in x
(PolynomialTask::quadratic) and w ~ N(0, I) per prompt.
One step: draw the minibatch, forward, backward, Adam (lr 1e-3). Prints the time per step after warm-up steps.
"""
import argparse
import itertools
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_timing import add_step_args, set_up, time_steps  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    add_step_args(ap, steps=10)
    ap.add_argument("--blocks", type=int, default=6, help="L: bilinear + LSA blocks (12 layers: 6)")
    ap.add_argument("--d", type=int, default=4)
    ap.add_argument("--dbar", type=int, default=12)
    ap.add_argument("--n", type=int, default=200)
    a = ap.parse_args()
    dt, dev = set_up(a)
    d, n, L, B = a.d, a.n, a.blocks, a.batch
    D, N, m = a.dbar + 1, n + 1, a.dbar
    if a.dbar < d + 1:
        raise SystemExit("dbar >= d + 1")
    # Monomials of degree <= 2: 1, x_i, x_i x_j (i <= j).
    pairs = list(itertools.combinations_with_replacement(range(d), 2))
    M = 1 + d + len(pairs)
    pi = torch.tensor([p[0] for p in pairs], device=dev)
    pj = torch.tensor([p[1] for p in pairs], device=dev)
    params = []
    for _ in range(L):
        params += [0.02 * torch.randn(m, m, dtype=dt, device=dev), 0.02 * torch.randn(m, m, dtype=dt, device=dev),
                   0.02 * torch.randn(D, D, dtype=dt, device=dev), 0.02 * torch.randn(D, D, dtype=dt, device=dev)]
    params = [p.requires_grad_() for p in params]
    opt = torch.optim.Adam(params, lr=1e-3)

    def draw():
        X = torch.randn(B, d, N, dtype=dt, device=dev)
        w = torch.randn(B, M, dtype=dt, device=dev)
        phi = torch.cat([torch.ones(B, 1, N, dtype=dt, device=dev), X, X[:, pi, :] * X[:, pj, :]], dim=1)
        y = torch.einsum("bm,bmn->bn", w, phi)
        yq = y[:, n].clone()
        y[:, n] = 0.0
        Z = torch.zeros(B, D, N, dtype=dt, device=dev)
        Z[:, 0, :] = 1.0
        Z[:, 1:d + 1, :] = X
        Z[:, D - 1, :] = y
        return Z, yq

    def forward(Z):
        for i in range(L):
            W0, W1, P, Q = params[4 * i:4 * i + 4]
            top = Z[:, :m, :]
            top = top + (W0 @ top) * (W1 @ top)
            Z = torch.cat([top, Z[:, m:, :]], dim=1)
            Zk = Z[:, :, :n]
            G = Zk @ Zk.transpose(1, 2)
            Z = Z + (P @ G @ Q @ Z) / n
        return Z[:, D - 1, n]

    def step():
        Z, yq = draw()
        loss = ((forward(Z) + yq) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    time_steps(step, a, dev, {"batch": B, "model": f"sja bilinear, {L} blocks ({2 * L} layers), d={d} dbar={a.dbar} n={n}"})

if __name__ == "__main__":
    main()
