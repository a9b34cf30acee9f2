// The per-prompt loss of a stack of dense linear self-attention layers (layers/lsa.hpp) in portable code: for every
// layer but the last, Z <- Z + s (P G Q) Z with G = Z_K Z_K^T (K the key columns: all but the query when masked,
// all when not) and s = scale, or 1/n (n = columns - 1) when scale is 0 (Lsa::forward); the last layer's query path
// yhat = Z(D-1, N-1) + s p^T (G (Q z_q)), p = P's last row (Lsa::forward_query); loss = factor (yhat + sign y_q)^2
// (learn::LossSpec). Every sum is a plain loop from 0 in index order (G over the keys j; P G over the inner index;
// then Q; then T z_j), so it is the same on CPU and GPU; Eigen's products (the CPU engine) sum in blocks and
// packets, so the two agree to rounding, not bit for bit (tests/execute/test_portable.cpp states the bound).
//
// lsa_stack_loss_grad: the same loss and its gradient with respect to every layer's P and Q (the adjoint of the
// forward pass above, through the same steps: lsa_gram, lsa_apply, lsa_query), added into dW in the layout of the
// weights, for the training step (the trainer's minibatch: chunks of prompts summed in prompt order, then pulled
// back to the parameters; execute/portable_path.hpp portable_minibatch).
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

// The steps of one layer, shared by the loss and its gradient so that both compute the same numbers.
// G = Z_K Z_K^T over the first K columns (symmetric: each entry summed once over the keys in order, mirrored).
ICL_HD inline void lsa_gram(Strided Z, int D, int K, Strided G) {
  for (int a = 0; a < D; ++a)
    for (int b = 0; b <= a; ++b) {
      double g = 0;
      for (int j = 0; j < K; ++j) g += Z[static_cast<long long>(j) * D + a] * Z[static_cast<long long>(j) * D + b];
      G[static_cast<long long>(b) * D + a] = g;
      G[static_cast<long long>(a) * D + b] = g;
    }
}

// The last layer's query path: u = Q z_q, yhat = z_q's label + s p . (G u), p = P's last row.
ICL_HD inline double lsa_query(const double* P, const double* Q, double s, Strided Z, int D, int N, Strided G,
                               Strided u) {
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
  return Z[q + D - 1] + s * pg;
}

// M = (P G) Q: T = P G, then M (which may be G itself: G is not read after T).
ICL_HD inline void lsa_layer_matrix(const double* P, const double* Q, int D, Strided G, Strided T, Strided M) {
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
      M[static_cast<long long>(b) * D + a] = v;
    }
}

// z_j <- z_j + s M z_j, column by column (each column's update reads only that column).
ICL_HD inline void lsa_apply(Strided M, double s, Strided Z, int D, int N, Strided u) {
  for (int j = 0; j < N; ++j) {
    const long long zj = static_cast<long long>(j) * D;
    for (int a = 0; a < D; ++a) {
      double v = 0;
      for (int c = 0; c < D; ++c) v += M[static_cast<long long>(c) * D + a] * Z[zj + c];
      u[a] = v;
    }
    for (int a = 0; a < D; ++a) Z[zj + a] = Z[zj + a] + s * u[a];
  }
}

ICL_HD inline double lsa_layer_scale(const LsaStackDesc& net, int l) {
  return net.scale[l] != 0.0 ? net.scale[l] : 1.0 / static_cast<double>(net.cols - 1);
}

// The loss of prompt Z (D x N, modified: every layer but the last is applied in place) with label yq.
ICL_HD inline double lsa_stack_loss(const LsaStackDesc& net, Strided Z, double yq, Strided work) {
  const int D = net.rows, N = net.cols;
  const long long DD = static_cast<long long>(D) * D;
  Strided G{work.p, work.s};
  Strided T{work.p + DD * work.s, work.s};
  Strided u{work.p + 2 * DD * work.s, work.s};
  double yhat = Z[static_cast<long long>(N - 1) * D + D - 1];
  for (int l = 0; l < net.layers; ++l) {
    const double* P = net.weights + 2 * DD * l;
    const double* Q = P + DD;
    const double s = lsa_layer_scale(net, l);
    lsa_gram(Z, D, net.masked[l] ? N - 1 : N, G);
    if (l + 1 == net.layers) {
      yhat = lsa_query(P, Q, s, Z, D, N, G, u);
      break;
    }
    lsa_layer_matrix(P, Q, D, G, T, G);
    lsa_apply(G, s, Z, D, N, u);
  }
  const double e = yhat + net.loss_sign * yq;
  return net.loss_factor * e * e;
}

// Scratch of lsa_stack_loss_grad beyond Z: the tape (Z before each layer: L blocks of D N), the adjoint R (D N),
// five D x D matrices and four columns.
ICL_HD inline long long lsa_grad_scratch_size(int L, int D, int N) {
  return (static_cast<long long>(L) + 1) * D * N + 5LL * D * D + 4LL * D;
}

// The loss of prompt Z with label yq, as lsa_stack_loss (the same steps, so the same bits), and its gradient with
// respect to every layer's P and Q added into dW (layer l: dP then dQ, each D x D column-major, at l * 2 D^2).
// With R = dloss/dZ after a layer and M = P G Q:
//   last layer (query path, yhat = z_q's label + s w^T G Q z_q, w = P's last row, dy = dloss/dyhat, alpha = s dy):
//     dP(D-1, :) += alpha (G u)^T with u = Q z_q;  dQ += alpha (G w) z_q^T;  R(:, q) += alpha Q^T (G w), and
//     R(D-1, q) += dy;  G = Z_K Z_K^T: R(:, j) += alpha (w (u . z_j) + u (w . z_j)) for the keys j;
//   other layers (Z' = Z + s M Z): dM = s sum_j R_j z_j^T;  dP += dM Q^T G;  dQ += (P G)^T dM;
//     dG = P^T dM Q^T;  R_j <- R_j + s M^T R_j + (dG + dG^T) z_j (the last term for the keys j only).
ICL_HD inline double lsa_stack_loss_grad(const LsaStackDesc& net, Strided Z, double yq, Strided work, Strided dW) {
  const int L = net.layers, D = net.rows, N = net.cols;
  const long long DD = static_cast<long long>(D) * D, DN = static_cast<long long>(D) * N;
  const long long q = static_cast<long long>(N - 1) * D;
  if (L == 0) {
    const double e = Z[q + D - 1] + net.loss_sign * yq;
    return net.loss_factor * e * e;
  }
  const auto at = [&](long long off) { return Strided{work.p + off * work.s, work.s}; };
  const Strided R = at(L * DN), G = at((L + 1) * DN), T = at((L + 1) * DN + DD), M = at((L + 1) * DN + 2 * DD),
                dM = at((L + 1) * DN + 3 * DD), H = at((L + 1) * DN + 4 * DD), u = at((L + 1) * DN + 5 * DD),
                v = at((L + 1) * DN + 5 * DD + D), w = at((L + 1) * DN + 5 * DD + 2 * D),
                x = at((L + 1) * DN + 5 * DD + 3 * D);
  // Forward, keeping Z before each layer (tape block l); the last layer's Z stays in Z.
  for (int l = 0; l + 1 < L; ++l) {
    const Strided tape = at(l * DN);
    for (long long e = 0; e < DN; ++e) tape[e] = Z[e];
    const double* P = net.weights + 2 * DD * l;
    lsa_gram(Z, D, net.masked[l] ? N - 1 : N, G);
    lsa_layer_matrix(P, P + DD, D, G, T, G);
    lsa_apply(G, lsa_layer_scale(net, l), Z, D, N, u);
  }
  const double* PL = net.weights + 2 * DD * (L - 1);
  const double* QL = PL + DD;
  const double sL = lsa_layer_scale(net, L - 1);
  const int KL = net.masked[L - 1] ? N - 1 : N;
  lsa_gram(Z, D, KL, G);
  const double yhat = lsa_query(PL, QL, sL, Z, D, N, G, u);  // u = Q z_q
  const double err = yhat + net.loss_sign * yq;
  const double dy = 2.0 * net.loss_factor * err;

  // The last layer.
  for (long long e = 0; e < DN; ++e) R[e] = 0.0;
  R[q + D - 1] = dy;
  const double alpha = sL * dy;
  for (int a = 0; a < D; ++a) w[a] = PL[a * D + (D - 1)];
  for (int a = 0; a < D; ++a) {  // v = G u, x = G w
    double gv = 0, gx = 0;
    for (int c = 0; c < D; ++c) {
      gv += G[static_cast<long long>(c) * D + a] * u[c];
      gx += G[static_cast<long long>(c) * D + a] * w[c];
    }
    v[a] = gv;
    x[a] = gx;
  }
  {
    const Strided dP = Strided{dW.p + 2 * DD * (L - 1) * dW.s, dW.s}, dQ = Strided{dW.p + (2 * DD * (L - 1) + DD) * dW.s, dW.s};
    for (int c = 0; c < D; ++c) dP[static_cast<long long>(c) * D + D - 1] += alpha * v[c];
    for (int c = 0; c < D; ++c)
      for (int a = 0; a < D; ++a) dQ[static_cast<long long>(c) * D + a] += alpha * x[a] * Z[q + c];
  }
  for (int j = 0; j < KL; ++j) {  // through G: the keys (z_q's own term below reads the old z_q)
    const long long zj = static_cast<long long>(j) * D;
    double uz = 0, wz = 0;
    for (int c = 0; c < D; ++c) {
      uz += u[c] * Z[zj + c];
      wz += w[c] * Z[zj + c];
    }
    for (int a = 0; a < D; ++a) R[zj + a] = R[zj + a] + alpha * (w[a] * uz + u[a] * wz);
  }
  for (int c = 0; c < D; ++c) {  // through u = Q z_q
    double t = 0;
    for (int a = 0; a < D; ++a) t += QL[c * D + a] * x[a];
    R[q + c] = R[q + c] + alpha * t;
  }

  // The other layers, last to first: Z is layer l's input (tape block l), R the adjoint of its output.
  for (int l = L - 2; l >= 0; --l) {
    const Strided Zl = at(l * DN);
    const double* P = net.weights + 2 * DD * l;
    const double* Q = P + DD;
    const double s = lsa_layer_scale(net, l);
    const int K = net.masked[l] ? N - 1 : N;
    lsa_gram(Zl, D, K, G);
    lsa_layer_matrix(P, Q, D, G, T, M);  // T = P G, M = P G Q
    for (int a = 0; a < D; ++a)          // dM = s sum_j R_j z_j^T
      for (int b = 0; b < D; ++b) {
        double t = 0;
        for (int j = 0; j < N; ++j) t += R[static_cast<long long>(j) * D + a] * Zl[static_cast<long long>(j) * D + b];
        dM[static_cast<long long>(b) * D + a] = s * t;
      }
    for (int a = 0; a < D; ++a)  // H = dM Q^T
      for (int b = 0; b < D; ++b) {
        double t = 0;
        for (int c = 0; c < D; ++c) t += dM[static_cast<long long>(c) * D + a] * Q[c * D + b];
        H[static_cast<long long>(b) * D + a] = t;
      }
    const Strided dP = Strided{dW.p + 2 * DD * l * dW.s, dW.s}, dQ = Strided{dW.p + (2 * DD * l + DD) * dW.s, dW.s};
    for (int a = 0; a < D; ++a)  // dP += H G
      for (int b = 0; b < D; ++b) {
        double t = 0;
        for (int c = 0; c < D; ++c) t += H[static_cast<long long>(c) * D + a] * G[static_cast<long long>(b) * D + c];
        dP[static_cast<long long>(b) * D + a] += t;
      }
    for (int a = 0; a < D; ++a)  // dQ += T^T dM
      for (int b = 0; b < D; ++b) {
        double t = 0;
        for (int c = 0; c < D; ++c) t += T[static_cast<long long>(a) * D + c] * dM[static_cast<long long>(b) * D + c];
        dQ[static_cast<long long>(b) * D + a] += t;
      }
    for (int a = 0; a < D; ++a)  // dG = P^T H into T (T is not read again)
      for (int b = 0; b < D; ++b) {
        double t = 0;
        for (int c = 0; c < D; ++c) t += P[a * D + c] * H[static_cast<long long>(b) * D + c];
        T[static_cast<long long>(b) * D + a] = t;
      }
    for (int a = 0; a < D; ++a)  // S = dG + dG^T into dM
      for (int b = 0; b < D; ++b)
        dM[static_cast<long long>(b) * D + a] = T[static_cast<long long>(b) * D + a] + T[static_cast<long long>(a) * D + b];
    for (int j = 0; j < N; ++j) {  // R_j <- R_j + s M^T R_j + S z_j (keys only)
      const long long zj = static_cast<long long>(j) * D;
      for (int a = 0; a < D; ++a) {
        double t = 0, k = 0;
        for (int c = 0; c < D; ++c) t += M[static_cast<long long>(a) * D + c] * R[zj + c];
        if (j < K)
          for (int c = 0; c < D; ++c) k += dM[static_cast<long long>(c) * D + a] * Zl[zj + c];
        v[a] = s * t + k;
      }
      for (int a = 0; a < D; ++a) R[zj + a] = R[zj + a] + v[a];
    }
  }
  return net.loss_factor * err * err;
}

}  // namespace icl::portable
