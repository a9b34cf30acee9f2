// The steps of a dense linear self-attention layer (layers/lsa.hpp) in portable code, for stack.hpp: every layer
// but the last effective one does Z <- Z + s (P G Q) Z with G = Z_K Z_K^T (K the key columns: all but the query when
// masked, all when not) and s = scale, or 1/n (n = columns - 1) when scale is 0 (Lsa::forward); the last one takes
// the query path yhat = Z(D-1, N-1) + s p^T (G (Q z_q)), p = P's last row (Lsa::forward_query). Every sum is a plain
// loop from 0 in index order (G over the keys j; P G over the inner index; then Q; then T z_j), so it is the same on
// CPU and GPU; Eigen's products (the CPU engine) sum in blocks and packets, so the two agree to rounding, not bit for
// bit (tests/execute/test_portable.cpp states the bound).
//
// Every step is X::each over its output entries (schedule.hpp): an entry writes only itself and reads nothing
// another entry of its step writes. An update in place that reads a whole column (z_j <- z_j + s M z_j, the
// adjoint's R_j updates) is two steps: the increments into a separate D x N buffer U, then the additions.
#pragma once
#include "icl/execute/portable/hd.hpp"
#include "icl/execute/portable/schedule.hpp"

namespace icl::portable {

// The steps of one layer, shared by the loss and its gradient so that both compute the same numbers.
// G = Z_K Z_K^T over the first K columns (symmetric: each entry of the lower triangle, e = a (a + 1) / 2 + b with
// b <= a, summed once over the keys in order and written to both places).
template <typename X = Serial, typename S>
ICL_HD inline void lsa_gram(StridedT<S> Z, int D, int K, StridedT<S> G) {
  X::each(static_cast<long long>(D) * (D + 1) / 2, [&](long long e) {
    int a = 0;
    while (static_cast<long long>(a + 1) * (a + 2) / 2 <= e) ++a;
    const int b = static_cast<int>(e - static_cast<long long>(a) * (a + 1) / 2);
    S g = 0;
    for (int j = 0; j < K; ++j) g += Z[static_cast<long long>(j) * D + a] * Z[static_cast<long long>(j) * D + b];
    G[static_cast<long long>(b) * D + a] = g;
    G[static_cast<long long>(a) * D + b] = g;
  });
}

// The last layer's query path: u = Q z_q, v = G u, yhat = z_q's label + s p . v, p = P's last row (the dot product
// single: its sum runs over the entries of v in order), returned through slot[0] (all threads of a block read it).
template <typename X = Serial, typename S>
ICL_HD inline S lsa_query(const S* P, const S* Q, S s, StridedT<S> Z, int D, int N, StridedT<S> G, StridedT<S> u,
                          StridedT<S> v, StridedT<S> slot) {
  const long long q = static_cast<long long>(N - 1) * D;
  X::each(D, [&](long long a) {
    S t = 0;
    for (int c = 0; c < D; ++c) t += Q[c * D + a] * Z[q + c];
    u[a] = t;
  });
  X::each(D, [&](long long a) {
    S t = 0;
    for (int c = 0; c < D; ++c) t += G[static_cast<long long>(c) * D + a] * u[c];
    v[a] = t;
  });
  X::single([&] {
    S pg = 0;
    for (int a = 0; a < D; ++a) pg += P[a * D + (D - 1)] * v[a];
    slot[0] = Z[q + D - 1] + s * pg;
  });
  return slot[0];
}

// M = (P G) Q: T = P G, then M (which may be G itself: G is not read after T). Entry e = b D + a of each.
template <typename X = Serial, typename S>
ICL_HD inline void lsa_layer_matrix(const S* P, const S* Q, int D, StridedT<S> G, StridedT<S> T, StridedT<S> M) {
  const long long DD = static_cast<long long>(D) * D;
  X::each(DD, [&](long long e) {
    const long long a = e % D, b = e / D;
    S v = 0;
    for (int c = 0; c < D; ++c) v += P[c * D + a] * G[b * D + c];
    T[e] = v;
  });
  X::each(DD, [&](long long e) {
    const long long a = e % D, b = e / D;
    S v = 0;
    for (int c = 0; c < D; ++c) v += T[static_cast<long long>(c) * D + a] * Q[b * D + c];
    M[e] = v;
  });
}

// z_j <- z_j + s M z_j: the products M z_j into U (D x N, entry (j, a) at j D + a), then the additions.
template <typename X = Serial, typename S>
ICL_HD inline void lsa_apply(StridedT<S> M, S s, StridedT<S> Z, int D, int N, StridedT<S> U) {
  const long long DN = static_cast<long long>(D) * N;
  X::each(DN, [&](long long e) {
    const long long a = e % D, zj = e - a;
    S v = 0;
    for (int c = 0; c < D; ++c) v += M[static_cast<long long>(c) * D + a] * Z[zj + c];
    U[e] = v;
  });
  X::each(DN, [&](long long e) { Z[e] = Z[e] + s * U[e]; });
}

// The adjoint of the last layer's query path (yhat = z_q's label + s w^T G Q z_q, w = P's last row), with G = Z_K
// Z_K^T and u = Q z_q as lsa_query left them, dy = dloss/dyhat: R (zeroed by the caller) gets dloss/dZ, dP and dQ
// one addition each per entry (alpha = s dy):
//   dP(D-1, :) += alpha (G u)^T;  dQ += alpha (G w) z_q^T;  R(D-1, q) = dy;  R(:, q) += alpha Q^T (G w);
//   through G: R(:, j) += alpha (w (u . z_j) + u (w . z_j)) for the keys j.
// Each entry of R gets its additions in that order (dy, through G, through u) in one step. Scratch: columns v, w,
// x, y (D each) and uz, wz (N each).
template <typename X = Serial, typename S>
ICL_HD inline void lsa_query_backward(const S* P, const S* Q, S s, int K, StridedT<S> Z, int D, int N,
                                      StridedT<S> G, StridedT<S> u, S dy, StridedT<S> R, StridedT<S> dP,
                                      StridedT<S> dQ, StridedT<S> v, StridedT<S> w, StridedT<S> x, StridedT<S> y,
                                      StridedT<S> uz, StridedT<S> wz) {
  const long long q = static_cast<long long>(N - 1) * D;
  const S alpha = s * dy;
  X::each(D, [&](long long a) { w[a] = P[a * D + (D - 1)]; });
  X::each(D, [&](long long a) {  // v = G u, x = G w
    S gv = 0, gx = 0;
    for (int c = 0; c < D; ++c) {
      gv += G[static_cast<long long>(c) * D + a] * u[c];
      gx += G[static_cast<long long>(c) * D + a] * w[c];
    }
    v[a] = gv;
    x[a] = gx;
  });
  X::each(D, [&](long long c) { dP[c * D + D - 1] += alpha * v[c]; });
  X::each(static_cast<long long>(D) * D, [&](long long e) {
    const long long a = e % D, c = e / D;
    dQ[e] += alpha * x[a] * Z[q + c];
  });
  X::each(K, [&](long long j) {  // u . z_j and w . z_j for the keys
    const long long zj = j * D;
    S tu = 0, tw = 0;
    for (int c = 0; c < D; ++c) {
      tu += u[c] * Z[zj + c];
      tw += w[c] * Z[zj + c];
    }
    uz[j] = tu;
    wz[j] = tw;
  });
  X::each(D, [&](long long c) {  // Q^T (G w), for the query column
    S t = 0;
    for (int a = 0; a < D; ++a) t += Q[c * D + a] * x[a];
    y[c] = t;
  });
  X::each(static_cast<long long>(D) * N, [&](long long e) {
    const long long a = e % D, j = e / D;
    S r = R[e];
    if (e == q + D - 1) r = r + dy;
    if (j < K) r = r + alpha * (w[a] * uz[j] + u[a] * wz[j]);  // through G
    if (j == N - 1) r = r + alpha * y[a];                      // through u = Q z_q
    R[e] = r;
  });
}

// The adjoint of a layer Z' = Z + s M Z, M = P G Q (Z the layer's input, R the adjoint of its output, replaced by
// that of its input): dM = s sum_j R_j z_j^T;  dP += dM Q^T G;  dQ += (P G)^T dM;  dG = P^T dM Q^T;
// R_j <- R_j + s M^T R_j + (dG + dG^T) z_j (the last term for the keys j only; the increments into U first). dP and
// dQ get one addition per entry. Scratch: five D x D matrices G, T, M, dM, H and U (D x N).
template <typename X = Serial, typename S>
ICL_HD inline void lsa_backward(const S* P, const S* Q, S s, int K, StridedT<S> Z, int D, int N, StridedT<S> R,
                                StridedT<S> dP, StridedT<S> dQ, StridedT<S> G, StridedT<S> T, StridedT<S> M,
                                StridedT<S> dM, StridedT<S> H, StridedT<S> U) {
  const long long DD = static_cast<long long>(D) * D, DN = static_cast<long long>(D) * N;
  lsa_gram<X>(Z, D, K, G);
  lsa_layer_matrix<X>(P, Q, D, G, T, M);  // T = P G, M = P G Q
  X::each(DD, [&](long long e) {          // dM = s sum_j R_j z_j^T
    const long long a = e % D, b = e / D;
    S t = 0;
    for (int j = 0; j < N; ++j) t += R[static_cast<long long>(j) * D + a] * Z[static_cast<long long>(j) * D + b];
    dM[e] = s * t;
  });
  X::each(DD, [&](long long e) {  // H = dM Q^T
    const long long a = e % D, b = e / D;
    S t = 0;
    for (int c = 0; c < D; ++c) t += dM[static_cast<long long>(c) * D + a] * Q[c * D + b];
    H[e] = t;
  });
  X::each(DD, [&](long long e) {  // dP += H G
    const long long a = e % D, b = e / D;
    S t = 0;
    for (int c = 0; c < D; ++c) t += H[static_cast<long long>(c) * D + a] * G[b * D + c];
    dP[e] += t;
  });
  X::each(DD, [&](long long e) {  // dQ += T^T dM
    const long long a = e % D, b = e / D;
    S t = 0;
    for (int c = 0; c < D; ++c) t += T[a * D + c] * dM[b * D + c];
    dQ[e] += t;
  });
  X::each(DD, [&](long long e) {  // dG = P^T H into T (T is not read again)
    const long long a = e % D, b = e / D;
    S t = 0;
    for (int c = 0; c < D; ++c) t += P[a * D + c] * H[b * D + c];
    T[e] = t;
  });
  X::each(DD, [&](long long e) {  // S = dG + dG^T into dM
    const long long a = e % D, b = e / D;
    dM[e] = T[e] + T[a * D + b];
  });
  X::each(DN, [&](long long e) {  // U_j = s M^T R_j + S z_j (keys only)
    const long long a = e % D, j = e / D, zj = e - a;
    S t = 0, k = 0;
    for (int c = 0; c < D; ++c) t += M[a * D + c] * R[zj + c];
    if (j < K)
      for (int c = 0; c < D; ++c) k += dM[static_cast<long long>(c) * D + a] * Z[zj + c];
    U[e] = s * t + k;
  });
  X::each(DN, [&](long long e) { R[e] = R[e] + U[e]; });
}

}  // namespace icl::portable
