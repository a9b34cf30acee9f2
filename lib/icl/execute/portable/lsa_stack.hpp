// The per-prompt loss of a stack of dense linear self-attention layers (layers/lsa.hpp) in portable code: for every
// layer but the last, Z <- Z + s (P G Q) Z with G = Z_K Z_K^T (K the key columns: all but the query when masked,
// all when not) and s = scale, or 1/n (n = columns - 1) when scale is 0 (Lsa::forward); the last layer's query path
// yhat = Z(D-1, N-1) + s p^T (G (Q z_q)), p = P's last row (Lsa::forward_query); loss = factor (yhat + sign y_q)^2
// (learn::LossSpec). Every sum is a plain loop from 0 in index order (G over the keys j; P G over the inner index;
// then Q; then T z_j), so it is the same on CPU and GPU; Eigen's products (the CPU engine) sum in blocks and
// packets, so the two agree to rounding, not bit for bit (tests/execute/test_portable.cpp states the bound).
#pragma once
#include "icl/execute/portable/hd.hpp"

namespace icl::portable {

struct LsaStackDesc {
  int layers = 0;
  int rows = 0, cols = 0;          // D, N of the prompt
  const double* weights = nullptr; // layer l: P then Q, each D x D column-major, at l * 2 D^2
  const int* masked = nullptr;     // per layer
  const double* scale = nullptr;   // per layer (0: 1/n)
  double loss_sign = 1.0, loss_factor = 1.0;
};

// Scratch a prompt needs beyond Z: G and T (D x D each) and one column (D).
ICL_HD inline long long lsa_scratch_size(int D) { return 2LL * D * D + D; }

// The loss of prompt Z (D x N, modified: every layer but the last is applied in place) with label yq.
ICL_HD inline double lsa_stack_loss(const LsaStackDesc& net, Strided Z, double yq, Strided work) {
  const int D = net.rows, N = net.cols;
  const long long DD = static_cast<long long>(D) * D;
  const double* base = net.weights;
  Strided G{work.p, work.s};
  Strided T{work.p + DD * work.s, work.s};
  Strided u{work.p + 2 * DD * work.s, work.s};
  double yhat = Z[static_cast<long long>(N - 1) * D + D - 1];
  for (int l = 0; l < net.layers; ++l) {
    const double* P = base + 2 * DD * l;
    const double* Q = P + DD;
    const int K = net.masked[l] ? N - 1 : N;
    const double s = net.scale[l] != 0.0 ? net.scale[l] : 1.0 / static_cast<double>(N - 1);
    // G = Z_K Z_K^T (symmetric: each entry summed once over the keys in order, mirrored)
    for (int a = 0; a < D; ++a)
      for (int b = 0; b <= a; ++b) {
        double g = 0;
        for (int j = 0; j < K; ++j) g += Z[static_cast<long long>(j) * D + a] * Z[static_cast<long long>(j) * D + b];
        G[static_cast<long long>(b) * D + a] = g;
        G[static_cast<long long>(a) * D + b] = g;
      }
    if (l + 1 == net.layers) {  // the query path: u = Q z_q, T(:, 0) = G u, yhat = z_q's label + s p . G u
      const long long q = static_cast<long long>(N - 1) * D;
      for (int a = 0; a < D; ++a) {
        double v = 0;
        for (int c = 0; c < D; ++c) v += Q[c * D + a] * Z[q + c];
        u[a] = v;
      }
      double pg = 0;
      for (int a = 0; a < D; ++a) {
        double v = 0;
        for (int c = 0; c < D; ++c) v += G[static_cast<long long>(c) * D + a] * u[c];
        pg += P[a * D + (D - 1)] * v;
      }
      yhat = Z[q + D - 1] + s * pg;
      break;
    }
    // T = P G, then (P G) Q into G (G is not read again in this layer): the layer's D x D matrix P G Q.
    for (int a = 0; a < D; ++a)
      for (int b = 0; b < D; ++b) {
        double v = 0;
        for (int c = 0; c < D; ++c) v += P[c * D + a] * G[static_cast<long long>(b) * D + c];
        T[static_cast<long long>(b) * D + a] = v;
      }
    for (int a = 0; a < D; ++a)
      for (int b = 0; b < D; ++b) {
        double v = 0;
        for (int c = 0; c < D; ++c) v += T[static_cast<long long>(c) * D + a] * Q[b * D + c];
        G[static_cast<long long>(b) * D + a] = v;
      }
    // z_j <- z_j + s (P G Q) z_j, column by column (each column's update reads only that column).
    for (int j = 0; j < N; ++j) {
      const long long zj = static_cast<long long>(j) * D;
      for (int a = 0; a < D; ++a) {
        double v = 0;
        for (int c = 0; c < D; ++c) v += G[static_cast<long long>(c) * D + a] * Z[zj + c];
        u[a] = v;
      }
      for (int a = 0; a < D; ++a) Z[zj + a] = Z[zj + a] + s * u[a];
    }
  }
  const double e = yhat + net.loss_sign * yq;
  return net.loss_factor * e * e;
}

}  // namespace icl::portable
