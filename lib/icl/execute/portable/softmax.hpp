// The steps of single-head softmax (or linear-phi) attention (layers/softmax_attention.hpp) in portable code, for
// stack.hpp: a layer Z <- Z + V Z phi(Z^T K Z + mask) (phi the column softmax, or the identity for linear phi; the
// look-ahead mask when causal: column j sees tokens 0..j), and the last layer's query path yhat = z_q's label +
// v^T Z phi(Z^T K z_q), v = V's last row (the query sees every token). Parameters V then K (D x D, column-major).
// exp is portable_exp (hd.hpp), so host and device give the same bits; every sum is a plain loop in index order.
// The CPU engine (Eigen, std::exp) gives the same numbers to rounding.
//
// Adjoints, as SoftmaxAttention::backward/backward_query: with KZ = K Z, W = phi(scores), C = Z W:
//   dV += R C^T; H = V^T R; R' = R + H W^T; dW_ij = z_i . H_j; dS = W .* (dW - 1 (1^T (W .* dW))) (linear: dW);
//   F = Z dS; dK += F Z^T; R' += KZ dS^T + K^T F.
// dV and dK get one addition per entry per prompt (stack.hpp's rule).
//
// Every step is X::each over its output entries (schedule.hpp); a column's softmax (its max, its sum, the
// divisions) is one entry, the column; the query path's one column and its final dot products are single.
#pragma once
#include "icl/execute/portable/hd.hpp"
#include "icl/execute/portable/schedule.hpp"

namespace icl::portable {

enum SoftmaxPhi : int { kSoftmaxPhi = 0, kLinearPhi = 1 };  // layers::SoftmaxAttention::Activation's order

ICL_HD inline int softmax_visible(int causal, int j, int N) { return causal ? j + 1 : N; }

// The weights of one column from its scores s[0..v) in place: softmax (exp(s_i - max), then each divided by their
// sum, formed in order) or, for linear phi, the scores themselves. Each exp is taken in double and rounded to S.
template <typename S>
ICL_HD inline void softmax_column(int act, int v, StridedT<S> s) {
  if (act == kLinearPhi) return;
  S m = s[0];
  for (int i = 1; i < v; ++i)
    if (s[i] > m) m = s[i];
  S total = 0;
  for (int i = 0; i < v; ++i) {
    s[i] = static_cast<S>(portable_exp(static_cast<double>(s[i] - m)));
    total += s[i];
  }
  for (int i = 0; i < v; ++i) s[i] = s[i] / total;
}

// KZ = K Z (D x N).
template <typename X = Serial, typename S>
ICL_HD inline void softmax_kz(const S* K, StridedT<S> Z, int D, int N, StridedT<S> KZ) {
  X::each(static_cast<long long>(D) * N, [&](long long e) {
    const long long a = e % D, zj = e - a;
    S t = 0;
    for (int c = 0; c < D; ++c) t += K[c * D + a] * Z[zj + c];
    KZ[e] = t;
  });
}

// The weights W (N x N, token i's weight in column j at W(i, j) = W[j N + i]; zero past the mask): the scores
// z_i . (K z_j), then each column's softmax_column.
template <typename X = Serial, typename S>
ICL_HD inline void softmax_weights(int act, int causal, StridedT<S> Z, StridedT<S> KZ, int D, int N, StridedT<S> W) {
  X::each(static_cast<long long>(N) * N, [&](long long e) {
    const long long i = e % N, j = e / N;
    S t = 0;
    if (i < softmax_visible(causal, static_cast<int>(j), N))
      for (int a = 0; a < D; ++a) t += Z[i * D + a] * KZ[j * D + a];
    W[e] = t;
  });
  X::each(N, [&](long long j) {
    softmax_column(act, softmax_visible(causal, static_cast<int>(j), N), StridedT<S>{W.p + j * N * W.s, W.s});
  });
}

// C = Z W (D x N), each column over the tokens it sees.
template <typename X = Serial, typename S>
ICL_HD inline void softmax_context(int causal, StridedT<S> Z, StridedT<S> W, int D, int N, StridedT<S> C) {
  X::each(static_cast<long long>(D) * N, [&](long long e) {
    const long long a = e % D, j = e / D;
    const int v = softmax_visible(causal, static_cast<int>(j), N);
    S t = 0;
    for (int i = 0; i < v; ++i) t += Z[static_cast<long long>(i) * D + a] * W[j * N + i];
    C[e] = t;
  });
}

// Scratch of softmax_apply: KZ and C (D x N each) and the weights W (N x N).
ICL_HD inline long long softmax_apply_scratch(int D, int N) {
  return 2LL * D * N + static_cast<long long>(N) * N;
}

// A layer (not the stack's last) applied to Z in place: Z <- Z + V C, C = Z W, from the input Z.
template <typename X = Serial, typename S>
ICL_HD inline void softmax_apply(const S* V, const S* K, int act, int causal, StridedT<S> Z, int D, int N,
                                 StridedT<S> work) {
  const long long DN = static_cast<long long>(D) * N;
  const StridedT<S> KZ{work.p, work.s}, C{work.p + DN * work.s, work.s}, W{work.p + 2 * DN * work.s, work.s};
  softmax_kz<X>(K, Z, D, N, KZ);
  softmax_weights<X>(act, causal, Z, KZ, D, N, W);
  softmax_context<X>(causal, Z, W, D, N, C);
  X::each(DN, [&](long long e) {  // Z + V C: reads C only
    const long long a = e % D, zj = e - a;
    S t = 0;
    for (int c = 0; c < D; ++c) t += V[c * D + a] * C[zj + c];
    Z[e] = Z[e] + t;
  });
}

// Scratch of softmax_query and softmax_query_backward: Kq, ctx, dc, Zds, t (D each), two slots (yhat, the softmax
// adjoint's dot product) and w, dw (N each).
ICL_HD inline long long softmax_query_scratch(int D, int N) { return 5LL * D + 2 + 2LL * N; }

// The last layer's query path: Kq = K z_q, w = phi(Z^T Kq) over every token, ctx = Z w, yhat = z_q's label +
// V(D-1, :) ctx (returned through a slot). Leaves Kq, w and ctx in `work` for softmax_query_backward.
template <typename X = Serial, typename S>
ICL_HD inline S softmax_query(const S* V, const S* K, int act, StridedT<S> Z, int D, int N, StridedT<S> work) {
  const long long q = static_cast<long long>(N - 1) * D;
  const StridedT<S> Kq{work.p, work.s}, ctx{work.p + D * work.s, work.s}, slot{work.p + 5LL * D * work.s, work.s},
      w{work.p + (5LL * D + 2) * work.s, work.s};
  X::each(D, [&](long long a) {
    S t = 0;
    for (int c = 0; c < D; ++c) t += K[c * D + a] * Z[q + c];
    Kq[a] = t;
  });
  X::each(N, [&](long long i) {
    S t = 0;
    for (int a = 0; a < D; ++a) t += Z[i * D + a] * Kq[a];
    w[i] = t;
  });
  X::single([&] { softmax_column(act, N, w); });
  X::each(D, [&](long long a) {
    S t = 0;
    for (int i = 0; i < N; ++i) t += Z[static_cast<long long>(i) * D + a] * w[i];
    ctx[a] = t;
  });
  X::single([&] {
    S y = 0;
    for (int a = 0; a < D; ++a) y += V[a * D + (D - 1)] * ctx[a];
    slot[0] = Z[q + D - 1] + y;
  });
  return slot[0];
}

// The adjoint of softmax_query (Z its input, `work` as softmax_query left it, dy = dloss/dyhat): R (zeroed by the
// caller) gets dloss/dZ; dV's last row and dK one addition per entry.
//   dV(D-1, :) += dy ctx^T; dc = dy v; R_i += dc w_i; dw_i = z_i . dc (softmax: w_i (dw_i - w . dw));
//   Zds = Z dw; dK += Zds z_q^T; R_i += Kq dw_i; R_q += K^T Zds.
// Each entry of R gets its additions in that order in the last step.
template <typename X = Serial, typename S>
ICL_HD inline void softmax_query_backward(const S* V, const S* K, int act, StridedT<S> Z, int D, int N, S dy,
                                          StridedT<S> work, StridedT<S> R, StridedT<S> dV, StridedT<S> dK) {
  const long long q = static_cast<long long>(N - 1) * D;
  const StridedT<S> Kq{work.p, work.s}, ctx{work.p + D * work.s, work.s}, dc{work.p + 2LL * D * work.s, work.s},
      Zds{work.p + 3LL * D * work.s, work.s}, t{work.p + 4LL * D * work.s, work.s},
      slot{work.p + 5LL * D * work.s, work.s}, w{work.p + (5LL * D + 2) * work.s, work.s},
      dw{work.p + (5LL * D + 2 + N) * work.s, work.s};
  X::each(D, [&](long long a) {
    dV[a * D + D - 1] += dy * ctx[a];
    dc[a] = dy * V[a * D + (D - 1)];
  });
  X::each(N, [&](long long i) {
    S s = 0;
    for (int a = 0; a < D; ++a) s += Z[i * D + a] * dc[a];
    dw[i] = s;
  });
  if (act == kSoftmaxPhi) {
    X::single([&] {
      S dot = 0;
      for (int i = 0; i < N; ++i) dot += w[i] * dw[i];
      slot[1] = dot;
    });
    X::each(N, [&](long long i) { dw[i] = w[i] * (dw[i] - slot[1]); });
  }
  X::each(D, [&](long long a) {
    S s = 0;
    for (int i = 0; i < N; ++i) s += Z[static_cast<long long>(i) * D + a] * dw[i];
    Zds[a] = s;
  });
  X::each(static_cast<long long>(D) * D, [&](long long e) {
    const long long a = e % D, b = e / D;
    dK[e] += Zds[a] * Z[q + b];
  });
  X::each(D, [&](long long c) {
    S s = 0;
    for (int a = 0; a < D; ++a) s += K[c * D + a] * Zds[a];
    t[c] = s;
  });
  X::each(static_cast<long long>(D) * N, [&](long long e) {
    const long long a = e % D, i = e / D;
    S r = R[e];
    if (e == q + D - 1) r = r + dy;
    r = r + dc[a] * w[i];
    r = r + Kq[a] * dw[i];
    if (i == N - 1) r = r + t[a];
    R[e] = r;
  });
}

// Scratch of softmax_backward: KZ, C (then F), H, R' (D x N each) and W, dS (N x N each).
ICL_HD inline long long softmax_backward_scratch(int D, int N) {
  return 4LL * D * N + 2LL * N * N;
}

// The adjoint of softmax_apply (Z the layer's input, R the adjoint of its output, replaced by that of its input).
template <typename X = Serial, typename S>
ICL_HD inline void softmax_backward(const S* V, const S* K, int act, int causal, StridedT<S> Z, int D, int N,
                                    StridedT<S> R, StridedT<S> dV, StridedT<S> dK, StridedT<S> work) {
  const long long DN = static_cast<long long>(D) * N, NN = static_cast<long long>(N) * N,
                  DD = static_cast<long long>(D) * D;
  const auto at = [&](long long off) { return StridedT<S>{work.p + off * work.s, work.s}; };
  const StridedT<S> KZ = at(0), C = at(DN), H = at(2 * DN), R2 = at(3 * DN), W = at(4 * DN), dS = at(4 * DN + NN);
  // The forward again: KZ, W (column j: token i's weight at W(i, j)), C = Z W.
  softmax_kz<X>(K, Z, D, N, KZ);
  softmax_weights<X>(act, causal, Z, KZ, D, N, W);
  softmax_context<X>(causal, Z, W, D, N, C);
  X::each(DD, [&](long long e) {  // dV += R C^T
    const long long a = e % D, b = e / D;
    S t = 0;
    for (int j = 0; j < N; ++j) t += R[static_cast<long long>(j) * D + a] * C[static_cast<long long>(j) * D + b];
    dV[e] += t;
  });
  X::each(DN, [&](long long e) {  // H = V^T R
    const long long a = e % D, zj = e - a;
    S t = 0;
    for (int c = 0; c < D; ++c) t += V[a * D + c] * R[zj + c];
    H[e] = t;
  });
  X::each(DN, [&](long long e) {  // R' = R + H W^T (the columns j that see token i)
    const long long a = e % D, i = e / D;
    S t = 0;
    for (long long j = causal ? i : 0; j < N; ++j) t += H[j * D + a] * W[j * N + i];
    R2[e] = R[e] + t;
  });
  X::each(NN, [&](long long e) {  // dW, in dS (only the visible entries are written and read)
    const long long i = e % N, j = e / N;
    if (i >= softmax_visible(causal, static_cast<int>(j), N)) return;
    S t = 0;
    for (int a = 0; a < D; ++a) t += Z[i * D + a] * H[j * D + a];
    dS[e] = t;
  });
  if (act == kSoftmaxPhi)
    X::each(N, [&](long long j) {  // dS = W .* (dW - W . dW), column by column
      const int v = softmax_visible(causal, static_cast<int>(j), N);
      const long long cj = j * N;
      S dot = 0;
      for (int i = 0; i < v; ++i) dot += W[cj + i] * dS[cj + i];
      for (int i = 0; i < v; ++i) dS[cj + i] = W[cj + i] * (dS[cj + i] - dot);
    });
  const StridedT<S> F = C;         // C is not read again
  softmax_context<X>(causal, Z, dS, D, N, F);  // F = Z dS
  X::each(DD, [&](long long e) {  // dK += F Z^T
    const long long a = e % D, b = e / D;
    S t = 0;
    for (int j = 0; j < N; ++j) t += F[static_cast<long long>(j) * D + a] * Z[static_cast<long long>(j) * D + b];
    dK[e] += t;
  });
  X::each(DN, [&](long long e) {  // R = R' + KZ dS^T + K^T F
    const long long a = e % D, i = e / D, zi = e - a;
    S t = 0, k = 0;
    for (long long j = causal ? i : 0; j < N; ++j) t += KZ[j * D + a] * dS[j * N + i];
    for (int c = 0; c < D; ++c) k += K[a * D + c] * F[zi + c];
    R[e] = R2[e] + t + k;
  });
}

}  // namespace icl::portable
