#!/usr/bin/python3
"""The Monte Carlo estimator of sja.thm2 as a batched PyTorch forward pass (float64; --dtype float32, --device cuda
on a GPU machine): the same model as
bench/numpy_sja_thm2.py (App. C bilinear layer, then masked linear self-attention with P = e e^T and
Q = diag(Gamma, 0), re-associated as P (Z M Z^T) Q Z, computed in full with batched matrix products), on a
batch of prompts at a time, loss (yhat + y_q)^2. Random numbers come from torch's generator, so the estimate
agrees with the C++ one only within Monte Carlo error (exact: 874/200 = 4.37 at d = 4, n = 200).

Prints prompts per second (median over the timed repetitions, wall clock and process CPU time).
--threads 1 (default) is the per-core figure; --threads 0 lets PyTorch use every core (per machine).
Needs Debian's python3-torch (bench/compare_numpy.sh installs it; ./verify and ./test never do).
Usage: /usr/bin/python3 bench/torch_sja_thm2.py [--prompts 16384] [--batch 1024] [--threads 1] [--repeat 3]
"""
import argparse
import math
import os
import sys
import time

import numpy as np

sys.dont_write_bytecode = True  # no __pycache__ in bench/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numpy_sja_thm2 import appc_bilinear, appc_gamma, kernel_width  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--d", type=int, default=4)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--prompts", type=int, default=16384)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="torch threads; 0 = PyTorch's default (all cores)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--device", default="cpu", help="cpu, or cuda on a GPU machine (bench/gpu/check.sh)")
    ap.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    a = ap.parse_args()
    if a.threads > 0:
        os.environ["OMP_NUM_THREADS"] = str(a.threads)
    import torch  # noqa: E402

    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    dev = torch.device(a.device)
    # On a GPU the work is asynchronous: the clock is read after the device has finished.
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    d, n = a.d, a.n
    dbar = kernel_width(d)
    D, N = dbar + 1, n + 1
    f64 = torch.float64 if a.dtype == "float64" else torch.float32
    W0, W1 = (torch.tensor(m, dtype=f64, device=dev) for m in appc_bilinear(d))
    Q = torch.zeros(D, D, dtype=f64, device=dev)
    Q[:dbar, :dbar] = torch.tensor(appc_gamma(d), dtype=f64, device=dev)
    P = torch.zeros(D, D, dtype=f64, device=dev)
    P[-1, -1] = 1.0
    jj = torch.tensor([j for j in range(d) for k in range(j, d)], device=dev)
    kk = torch.tensor([k for j in range(d) for k in range(j, d)], device=dev)
    m = 1 + d + len(jj)

    def losses(B):
        w = torch.randn(B, m, dtype=f64, device=dev)
        X = torch.randn(B, d, N, dtype=f64, device=dev)
        phi = torch.cat([torch.ones(B, 1, N, dtype=f64, device=dev), X, X[:, jj, :] * X[:, kk, :]], dim=1)
        y = torch.bmm(w[:, None, :], phi)[:, 0, :]
        Z = torch.zeros(B, D, N, dtype=f64, device=dev)
        Z[:, 0, :] = 1.0
        Z[:, 1 : d + 1, :] = X
        Z[:, dbar, :n] = y[:, :n]
        Zt = Z[:, :dbar, :]
        Zt += torch.matmul(W0, Zt) * torch.matmul(W1, Zt)
        Zk = Z[:, :, :n]
        G = torch.bmm(Zk, Zk.transpose(1, 2))
        T = torch.matmul(torch.matmul(P, G), Q)
        Z += torch.bmm(T, Z) * (1.0 / n)
        e = Z[:, dbar, n] + y[:, n]
        return e * e

    losses(16)
    rates, cpu_rates, all_l = [], [], []
    with torch.no_grad():
        for _ in range(a.repeat):
            done, chunks = 0, []
            sync()
            t0, c0 = time.perf_counter(), time.process_time()
            while done < a.prompts:
                b = min(a.batch, a.prompts - done)
                chunks.append(losses(b))
                done += b
            sync()
            rates.append(a.prompts / (time.perf_counter() - t0))
            cpu_rates.append(a.prompts / (time.process_time() - c0))
            all_l.append(torch.cat(chunks))
    L = torch.cat(all_l).double().cpu()
    mean = float(L.mean())
    se = float(L.std()) / math.sqrt(L.numel())
    exact = d * (d ** 3 + 18 * d ** 2 + 95 * d + 142) / (4.0 * n)
    print(f"torch {torch.__version__}, threads={torch.get_num_threads()}, d={d}, n={n}, batch={a.batch}, {a.dtype}, "
          f"device {a.device}")
    print(f"prompts_per_s_each: {' '.join(f'{r:.1f}' for r in rates)}")
    print(f"prompts_per_s: {float(np.median(rates)):.1f}")
    print(f"prompts_per_cpu_s: {float(np.median(cpu_rates)):.1f}")
    print(f"estimate_mean: {mean:.6g}")
    print(f"estimate_stderr: {se:.3g}")
    print(f"samples: {L.numel()}")
    print(f"exact: {exact:.6g}  z = {(mean - exact) / se:+.2f}")


if __name__ == "__main__":
    main()
