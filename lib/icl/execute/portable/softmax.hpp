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
#pragma once
#include "icl/execute/portable/hd.hpp"

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
template <typename S>
ICL_HD inline void softmax_kz(const S* K, StridedT<S> Z, int D, int N, StridedT<S> KZ) {
  for (int j = 0; j < N; ++j)
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int c = 0; c < D; ++c) t += K[c * D + a] * Z[static_cast<long long>(j) * D + c];
      KZ[static_cast<long long>(j) * D + a] = t;
    }
}

// Column j's weights into w (N entries; zero past the mask): the scores z_i . (K z_j), then softmax_column.
template <typename S>
ICL_HD inline void softmax_weights(int act, int causal, StridedT<S> Z, StridedT<S> KZ, int D, int N, int j,
                                   StridedT<S> w) {
  const int v = softmax_visible(causal, j, N);
  for (int i = 0; i < v; ++i) {
    S t = 0;
    for (int a = 0; a < D; ++a) t += Z[static_cast<long long>(i) * D + a] * KZ[static_cast<long long>(j) * D + a];
    w[i] = t;
  }
  softmax_column(act, v, w);
  for (int i = v; i < N; ++i) w[i] = S(0);
}

// Scratch of softmax_apply: KZ and C (D x N each) and one column of weights (N).
ICL_HD inline long long softmax_apply_scratch(int D, int N) { return 2LL * D * N + N; }

// A layer (not the stack's last) applied to Z in place: Z <- Z + V C, C = Z W, from the input Z.
template <typename S>
ICL_HD inline void softmax_apply(const S* V, const S* K, int act, int causal, StridedT<S> Z, int D, int N,
                                 StridedT<S> work) {
  const long long DN = static_cast<long long>(D) * N;
  const StridedT<S> KZ{work.p, work.s}, C{work.p + DN * work.s, work.s}, w{work.p + 2 * DN * work.s, work.s};
  softmax_kz(K, Z, D, N, KZ);
  for (int j = 0; j < N; ++j) {
    softmax_weights(act, causal, Z, KZ, D, N, j, w);
    const int v = softmax_visible(causal, j, N);
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int i = 0; i < v; ++i) t += Z[static_cast<long long>(i) * D + a] * w[i];
      C[static_cast<long long>(j) * D + a] = t;
    }
  }
  for (int j = 0; j < N; ++j)
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int c = 0; c < D; ++c) t += V[c * D + a] * C[static_cast<long long>(j) * D + c];
      Z[static_cast<long long>(j) * D + a] = Z[static_cast<long long>(j) * D + a] + t;
    }
}

// Scratch of softmax_query and softmax_query_backward: Kq, ctx, dc, Zds (D each) and w, dw (N each).
ICL_HD inline long long softmax_query_scratch(int D, int N) { return 4LL * D + 2LL * N; }

// The last layer's query path: Kq = K z_q, w = phi(Z^T Kq) over every token, ctx = Z w, yhat = z_q's label +
// V(D-1, :) ctx. Leaves Kq, w and ctx in `work` for softmax_query_backward.
template <typename S>
ICL_HD inline S softmax_query(const S* V, const S* K, int act, StridedT<S> Z, int D, int N, StridedT<S> work) {
  const long long q = static_cast<long long>(N - 1) * D;
  const StridedT<S> Kq{work.p, work.s}, ctx{work.p + D * work.s, work.s}, w{work.p + 4LL * D * work.s, work.s};
  for (int a = 0; a < D; ++a) {
    S t = 0;
    for (int c = 0; c < D; ++c) t += K[c * D + a] * Z[q + c];
    Kq[a] = t;
  }
  for (int i = 0; i < N; ++i) {
    S t = 0;
    for (int a = 0; a < D; ++a) t += Z[static_cast<long long>(i) * D + a] * Kq[a];
    w[i] = t;
  }
  softmax_column(act, N, w);
  S y = 0;
  for (int a = 0; a < D; ++a) {
    S t = 0;
    for (int i = 0; i < N; ++i) t += Z[static_cast<long long>(i) * D + a] * w[i];
    ctx[a] = t;
    y += V[a * D + (D - 1)] * t;
  }
  return Z[q + D - 1] + y;
}

// The adjoint of softmax_query (Z its input, `work` as softmax_query left it, dy = dloss/dyhat): R (zeroed by the
// caller) gets dloss/dZ; dV's last row and dK one addition per entry.
//   dV(D-1, :) += dy ctx^T; dc = dy v; R_i += dc w_i; dw_i = z_i . dc (softmax: w_i (dw_i - w . dw));
//   Zds = Z dw; dK += Zds z_q^T; R_i += Kq dw_i; R_q += K^T Zds.
template <typename S>
ICL_HD inline void softmax_query_backward(const S* V, const S* K, int act, StridedT<S> Z, int D, int N, S dy,
                                          StridedT<S> work, StridedT<S> R, StridedT<S> dV, StridedT<S> dK) {
  const long long q = static_cast<long long>(N - 1) * D;
  const StridedT<S> Kq{work.p, work.s}, ctx{work.p + D * work.s, work.s}, dc{work.p + 2LL * D * work.s, work.s},
      Zds{work.p + 3LL * D * work.s, work.s}, w{work.p + 4LL * D * work.s, work.s},
      dw{work.p + (4LL * D + N) * work.s, work.s};
  R[q + D - 1] = R[q + D - 1] + dy;
  for (int a = 0; a < D; ++a) {
    dV[static_cast<long long>(a) * D + D - 1] += dy * ctx[a];
    dc[a] = dy * V[a * D + (D - 1)];
  }
  for (int i = 0; i < N; ++i) {
    const long long zi = static_cast<long long>(i) * D;
    S t = 0;
    for (int a = 0; a < D; ++a) {
      R[zi + a] = R[zi + a] + dc[a] * w[i];
      t += Z[zi + a] * dc[a];
    }
    dw[i] = t;
  }
  if (act == kSoftmaxPhi) {
    S dot = 0;
    for (int i = 0; i < N; ++i) dot += w[i] * dw[i];
    for (int i = 0; i < N; ++i) dw[i] = w[i] * (dw[i] - dot);
  }
  for (int a = 0; a < D; ++a) {
    S t = 0;
    for (int i = 0; i < N; ++i) t += Z[static_cast<long long>(i) * D + a] * dw[i];
    Zds[a] = t;
  }
  for (int b = 0; b < D; ++b)
    for (int a = 0; a < D; ++a) dK[static_cast<long long>(b) * D + a] += Zds[a] * Z[q + b];
  for (int i = 0; i < N; ++i)
    for (int a = 0; a < D; ++a) R[static_cast<long long>(i) * D + a] = R[static_cast<long long>(i) * D + a] + Kq[a] * dw[i];
  for (int c = 0; c < D; ++c) {
    S t = 0;
    for (int a = 0; a < D; ++a) t += K[c * D + a] * Zds[a];
    R[q + c] = R[q + c] + t;
  }
}

// Scratch of softmax_backward: KZ, C (then F), H, R' (D x N each) and W, dS (N x N each).
ICL_HD inline long long softmax_backward_scratch(int D, int N) {
  return 4LL * D * N + 2LL * N * N;
}

// The adjoint of softmax_apply (Z the layer's input, R the adjoint of its output, replaced by that of its input).
template <typename S>
ICL_HD inline void softmax_backward(const S* V, const S* K, int act, int causal, StridedT<S> Z, int D, int N,
                                    StridedT<S> R, StridedT<S> dV, StridedT<S> dK, StridedT<S> work) {
  const long long DN = static_cast<long long>(D) * N, NN = static_cast<long long>(N) * N;
  const auto at = [&](long long off) { return StridedT<S>{work.p + off * work.s, work.s}; };
  const StridedT<S> KZ = at(0), C = at(DN), H = at(2 * DN), R2 = at(3 * DN), W = at(4 * DN), dS = at(4 * DN + NN);
  const auto col = [&](StridedT<S> M, int j) { return StridedT<S>{M.p + static_cast<long long>(j) * N * M.s, M.s}; };
  const auto ent = [&](StridedT<S> M, int i, int j) -> S& { return M[static_cast<long long>(j) * N + i]; };
  // The forward again: KZ, W (column j: token i's weight at W(i, j)), C = Z W.
  softmax_kz(K, Z, D, N, KZ);
  for (int j = 0; j < N; ++j) {
    softmax_weights(act, causal, Z, KZ, D, N, j, col(W, j));
    const int v = softmax_visible(causal, j, N);
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int i = 0; i < v; ++i) t += Z[static_cast<long long>(i) * D + a] * ent(W, i, j);
      C[static_cast<long long>(j) * D + a] = t;
    }
  }
  for (int b = 0; b < D; ++b)  // dV += R C^T
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int j = 0; j < N; ++j) t += R[static_cast<long long>(j) * D + a] * C[static_cast<long long>(j) * D + b];
      dV[static_cast<long long>(b) * D + a] += t;
    }
  for (int j = 0; j < N; ++j)  // H = V^T R
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int c = 0; c < D; ++c) t += V[a * D + c] * R[static_cast<long long>(j) * D + c];
      H[static_cast<long long>(j) * D + a] = t;
    }
  for (int i = 0; i < N; ++i)  // R' = R + H W^T (the columns j that see token i)
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int j = causal ? i : 0; j < N; ++j) t += H[static_cast<long long>(j) * D + a] * ent(W, i, j);
      R2[static_cast<long long>(i) * D + a] = R[static_cast<long long>(i) * D + a] + t;
    }
  for (int j = 0; j < N; ++j) {  // dS, column by column
    const int v = softmax_visible(causal, j, N);
    for (int i = 0; i < v; ++i) {
      S t = 0;
      for (int a = 0; a < D; ++a) t += Z[static_cast<long long>(i) * D + a] * H[static_cast<long long>(j) * D + a];
      ent(dS, i, j) = t;
    }
    if (act == kSoftmaxPhi) {
      S dot = 0;
      for (int i = 0; i < v; ++i) dot += ent(W, i, j) * ent(dS, i, j);
      for (int i = 0; i < v; ++i) ent(dS, i, j) = ent(W, i, j) * (ent(dS, i, j) - dot);
    }
  }
  const StridedT<S> F = C;  // C is not read again
  for (int j = 0; j < N; ++j)  // F = Z dS
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int i = 0; i < softmax_visible(causal, j, N); ++i) t += Z[static_cast<long long>(i) * D + a] * ent(dS, i, j);
      F[static_cast<long long>(j) * D + a] = t;
    }
  for (int b = 0; b < D; ++b)  // dK += F Z^T
    for (int a = 0; a < D; ++a) {
      S t = 0;
      for (int j = 0; j < N; ++j) t += F[static_cast<long long>(j) * D + a] * Z[static_cast<long long>(j) * D + b];
      dK[static_cast<long long>(b) * D + a] += t;
    }
  for (int i = 0; i < N; ++i) {  // R' += KZ dS^T + K^T F, then R = R'
    const long long zi = static_cast<long long>(i) * D;
    for (int a = 0; a < D; ++a) {
      S t = 0, k = 0;
      for (int j = causal ? i : 0; j < N; ++j) t += KZ[static_cast<long long>(j) * D + a] * ent(dS, i, j);
      for (int c = 0; c < D; ++c) k += K[a * D + c] * F[zi + c];
      R[zi + a] = R2[zi + a] + t + k;
    }
  }
}

}  // namespace icl::portable
