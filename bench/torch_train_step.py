#!/usr/bin/env python3
"""One training step of the acds three-layer form (8) in PyTorch: the baseline of bench/compare_torch.sh for
bench/train_step.cpp (CPU), and of bench/gpu/check.sh on a GPU machine (--device cuda, float64 and float32).

Model (acds eq. (8), the project's column convention): Z is (B, d+1, n+1), columns (x_i, y_i) and the
query (x_q, 0); each layer Z <- Z + (1/n) P Z M (Z^T Q Z) with P = [0, 0; 0, 1] fixed and
Q_i = -[A_i, 0; 0, 0], A_i trained; prediction Z[d, n]; loss mean (yhat + y_q)^2. One step: draw the
minibatch (x ~ N(0, I), w ~ N(0, I)), forward, backward, clip each A_i's gradient to norm 0.01, Adam.

--formula reassociated (default): P (Z M Z^T) Q Z, the association the C++ code uses (O(D^2 N)).
--formula authors: the acds authors' attention (github.com/chengxiang/LinearTransformer, attention()):
    N x N scores Z^T Q Z, then the mask and P Z (O(D N^2)), in the row-major layout of their code.
Prints the time per step after warm-up steps (wall and process CPU time) and the final loss.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_timing import add_step_args, set_up, time_steps  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    add_step_args(ap, steps=20)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--formula", choices=["reassociated", "authors"], default="reassociated")
    a = ap.parse_args()
    dt, dev = set_up(a)
    d, n, L, B = a.d, a.n, a.layers, a.batch
    D, N = d + 1, n + 1
    A = (0.1 * torch.randn(L, d, d, dtype=dt, device=dev)).requires_grad_()
    opt = torch.optim.Adam([A], lr=1e-3)
    P = torch.zeros(D, D, dtype=dt, device=dev)
    P[d, d] = 1.0
    mask = torch.ones(N, dtype=dt, device=dev)
    mask[n] = 0.0
    amask = torch.diag(mask)

    def draw():
        X = torch.randn(B, d, N, dtype=dt, device=dev)
        w = torch.randn(B, d, dtype=dt, device=dev)
        y = torch.einsum("bd,bdn->bn", w, X)
        yq = y[:, n].clone()
        y[:, n] = 0.0
        return torch.cat([X, y.unsqueeze(1)], dim=1), yq  # (B, D, N)

    def q_full(Ai):
        Q = torch.zeros(D, D, dtype=dt, device=dev)
        idx = torch.arange(d, device=dev)
        return Q.index_put((idx.repeat_interleave(d), idx.repeat(d)), -Ai.reshape(-1))

    def forward(Z):
        if a.formula == "reassociated":
            for i in range(L):
                Q = q_full(A[i])
                Zk = Z[:, :, :n]
                G = Zk @ Zk.transpose(1, 2)  # Z M Z^T
                Z = Z + (P @ G @ Q @ Z) / n
            return Z[:, d, n]
        Zt = Z.transpose(1, 2)  # (B, N, D): tokens as rows, as in the authors' code
        for i in range(L):
            Q = q_full(A[i])
            attn = torch.einsum("BNi,ij,BMj->BNM", Zt, Q, Zt)
            key = torch.einsum("ij,BNj->BNi", P, Zt)
            Zt = Zt + torch.einsum("BNM,ML,BLi->BNi", attn, amask, key) / n
        return Zt[:, n, d]

    def step():
        Z, yq = draw()
        loss = ((forward(Z) + yq) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        with torch.no_grad():
            for i in range(L):
                g = A.grad[i]
                nrm = g.norm()
                if nrm > 0.01:
                    g.mul_(0.01 / nrm)
        opt.step()
        return loss.item()

    time_steps(step, a, dev, {"batch": B, "formula": a.formula})

if __name__ == "__main__":
    main()
