// The steps of a dense linear self-attention layer (layers/lsa.hpp) in portable code, for stack.hpp: every layer
// but the last effective one does Z <- Z + s (P G Q) Z with G = Z_K Z_K^T (K the key columns: all but the query when
// masked, all when not) and s = scale, or 1/n (n = columns - 1) when scale is 0 (Lsa::forward); the last one takes
// the query path yhat = Z(D-1, N-1) + s p^T (G (Q z_q)), p = P's last row (Lsa::forward_query). Every sum is a plain
// loop from 0 in index order (G over the keys j; P G over the inner index; then Q; then T z_j), so it is the same on
// CPU and GPU; Eigen's products (the CPU engine) sum in blocks and packets, so the two agree to rounding, not bit for
// bit (tests/execute/test_portable.cpp states the bound).
#pragma once
#include "icl/execute/portable/hd.hpp"

namespace icl::portable {

// The steps of one layer, shared by the loss and its gradient so that both compute the same numbers.
// G = Z_K Z_K^T over the first K columns (symmetric: each entry summed once over the keys in order, mirrored).
template <typename S>
ICL_HD inline void lsa_gram(StridedT<S> Z, int D, int K, StridedT<S> G) {
  for (int a = 0; a < D; ++a)
    for (int b = 0; b <= a; ++b) {
      S g = 0;
      for (int j = 0; j < K; ++j) g += Z[static_cast<long long>(j) * D + a] * Z[static_cast<long long>(j) * D + b];
      G[static_cast<long long>(b) * D + a] = g;
      G[static_cast<long long>(a) * D + b] = g;
    }
}

// The last layer's query path: u = Q z_q, yhat = z_q's label + s p . (G u), p = P's last row.
template <typename S>
ICL_HD inline S lsa_query(const S* P, const S* Q, S s, StridedT<S> Z, int D, int N, StridedT<S> G,
                               StridedT<S> u) {
  const long long q = static_cast<long long>(N - 1) * D;
  for (int a = 0; a < D; ++a) {
    S v = 0;
    for (int c = 0; c < D; ++c) v += Q[c * D + a] * Z[q + c];
    u[a] = v;
  }
  S pg = 0;
  for (int a = 0; a < D; ++a) {
    S v = 0;
    for (int c = 0; c < D; ++c) v += G[static_cast<long long>(c) * D + a] * u[c];
    pg += P[a * D + (D - 1)] * v;
  }
  return Z[q + D - 1] + s * pg;
}

// M = (P G) Q: T = P G, then M (which may be G itself: G is not read after T).
template <typename S>
ICL_HD inline void lsa_layer_matrix(const S* P, const S* Q, int D, StridedT<S> G, StridedT<S> T, StridedT<S> M) {
  for (int a = 0; a < D; ++a)
    for (int b = 0; b < D; ++b) {
      S v = 0;
      for (int c = 0; c < D; ++c) v += P[c * D + a] * G[static_cast<long long>(b) * D + c];
      T[static_cast<long long>(b) * D + a] = v;
    }
  for (int a = 0; a < D; ++a)
    for (int b = 0; b < D; ++b) {
      S v = 0;
      for (int c = 0; c < D; ++c) v += T[static_cast<long long>(c) * D + a] * Q[b * D + c];
      M[static_cast<long long>(b) * D + a] = v;
    }
}

// z_j <- z_j + s M z_j, column by column (each column's update reads only that column).
template <typename S>
ICL_HD inline void lsa_apply(StridedT<S> M, S s, StridedT<S> Z, int D, int N, StridedT<S> u) {
  for (int j = 0; j < N; ++j) {
    const long long zj = static_cast<long long>(j) * D;
    for (int a = 0; a < D; ++a) {
      S v = 0;
      for (int c = 0; c < D; ++c) v += M[static_cast<long long>(c) * D + a] * Z[zj + c];
      u[a] = v;
    }
    for (int a = 0; a < D; ++a) Z[zj + a] = Z[zj + a] + s * u[a];
  }
}

// The adjoint of the last layer's query path (yhat = z_q's label + s w^T G Q z_q, w = P's last row), with G = Z_K
// Z_K^T and u = Q z_q as lsa_query left them, dy = dloss/dyhat: R (zeroed by the caller) gets dloss/dZ, dP and dQ
// one addition each per entry (alpha = s dy):
//   dP(D-1, :) += alpha (G u)^T;  dQ += alpha (G w) z_q^T;  R(D-1, q) = dy;  R(:, q) += alpha Q^T (G w);
//   through G: R(:, j) += alpha (w (u . z_j) + u (w . z_j)) for the keys j.
template <typename S>
ICL_HD inline void lsa_query_backward(const S* P, const S* Q, S s, int K, StridedT<S> Z, int D, int N,
                                      StridedT<S> G, StridedT<S> u, S dy, StridedT<S> R, StridedT<S> dP, StridedT<S> dQ, StridedT<S> v,
                                      StridedT<S> w, StridedT<S> x) {
  const long long q = static_cast<long long>(N - 1) * D;
  R[q + D - 1] = R[q + D - 1] + dy;
  const S alpha = s * dy;
  for (int a = 0; a < D; ++a) w[a] = P[a * D + (D - 1)];
  for (int a = 0; a < D; ++a) {  // v = G u, x = G w
    S gv = 0, gx = 0;
    for (int c = 0; c < D; ++c) {
      gv += G[static_cast<long long>(c) * D + a] * u[c];
      gx += G[static_cast<long long>(c) * D + a] * w[c];
    }
    v[a] = gv;
    x[a] = gx;
  }
  for (int c = 0; c < D; ++c) dP[static_cast<long long>(c) * D + D - 1] += alpha * v[c];
  for (int c = 0; c < D; ++c)
    for (int a = 0; a < D; ++a) dQ[static_cast<long long>(c) * D + a] += alpha * x[a] * Z[q + c];
  for (int j = 0; j < K; ++j) {  // through G: the keys
    const long long zj = static_cast<long long>(j) * D;
    S uz = 0, wz = 0;
    for (int c = 0; c < D; ++c) {
      uz += u[c] * Z[zj + c];
      wz += w[c] * Z[zj + c];
    }
    for (int a = 0; a < D; ++a) R[zj + a] = R[zj + a] + alpha * (w[a] * uz + u[a] * wz);
  }
  for (int c = 0; c < D; ++c) {  // through u = Q z_q
    S t = 0;
    for (int a = 0; a < D; ++a) t += Q[c * D + a] * x[a];
    R[q + c] = R[q + c] + alpha * t;
  }
}

// The adjoint of a layer Z' = Z + s M Z, M = P G Q (Z the layer's input, R the adjoint of its output, replaced by
// that of its input): dM = s sum_j R_j z_j^T;  dP += dM Q^T G;  dQ += (P G)^T dM;  dG = P^T dM Q^T;
// R_j <- R_j + s M^T R_j + (dG + dG^T) z_j (the last term for the keys j only). dP and dQ get one addition per entry.
// Scratch: five D x D matrices G, T, M, dM, H and one column v.
template <typename S>
ICL_HD inline void lsa_backward(const S* P, const S* Q, S s, int K, StridedT<S> Z, int D, int N, StridedT<S> R,
                                StridedT<S> dP, StridedT<S> dQ, StridedT<S> G, StridedT<S> T, StridedT<S> M, StridedT<S> dM, StridedT<S> H,
                                StridedT<S> v) {
  lsa_gram(Z, D, K, G);
  lsa_layer_matrix(P, Q, D, G, T, M);  // T = P G, M = P G Q
  for (int a = 0; a < D; ++a)          // dM = s sum_j R_j z_j^T
    for (int b = 0; b < D; ++b) {
      S t = 0;
      for (int j = 0; j < N; ++j) t += R[static_cast<long long>(j) * D + a] * Z[static_cast<long long>(j) * D + b];
      dM[static_cast<long long>(b) * D + a] = s * t;
    }
  for (int a = 0; a < D; ++a)  // H = dM Q^T
    for (int b = 0; b < D; ++b) {
      S t = 0;
      for (int c = 0; c < D; ++c) t += dM[static_cast<long long>(c) * D + a] * Q[c * D + b];
      H[static_cast<long long>(b) * D + a] = t;
    }
  for (int a = 0; a < D; ++a)  // dP += H G
    for (int b = 0; b < D; ++b) {
      S t = 0;
      for (int c = 0; c < D; ++c) t += H[static_cast<long long>(c) * D + a] * G[static_cast<long long>(b) * D + c];
      dP[static_cast<long long>(b) * D + a] += t;
    }
  for (int a = 0; a < D; ++a)  // dQ += T^T dM
    for (int b = 0; b < D; ++b) {
      S t = 0;
      for (int c = 0; c < D; ++c) t += T[static_cast<long long>(a) * D + c] * dM[static_cast<long long>(b) * D + c];
      dQ[static_cast<long long>(b) * D + a] += t;
    }
  for (int a = 0; a < D; ++a)  // dG = P^T H into T (T is not read again)
    for (int b = 0; b < D; ++b) {
      S t = 0;
      for (int c = 0; c < D; ++c) t += P[a * D + c] * H[static_cast<long long>(b) * D + c];
      T[static_cast<long long>(b) * D + a] = t;
    }
  for (int a = 0; a < D; ++a)  // S = dG + dG^T into dM
    for (int b = 0; b < D; ++b)
      dM[static_cast<long long>(b) * D + a] = T[static_cast<long long>(b) * D + a] + T[static_cast<long long>(a) * D + b];
  for (int j = 0; j < N; ++j) {  // R_j <- R_j + s M^T R_j + S z_j (keys only)
    const long long zj = static_cast<long long>(j) * D;
    for (int a = 0; a < D; ++a) {
      S t = 0, k = 0;
      for (int c = 0; c < D; ++c) t += M[static_cast<long long>(a) * D + c] * R[zj + c];
      if (j < K)
        for (int c = 0; c < D; ++c) k += dM[static_cast<long long>(c) * D + a] * Z[zj + c];
      v[a] = s * t + k;
    }
    for (int a = 0; a < D; ++a) R[zj + a] = R[zj + a] + v[a];
  }
}

}  // namespace icl::portable
