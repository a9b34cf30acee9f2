// The bilinear (GLU without activation) layer of sja eq. (3) (layers/bilinear.hpp) in portable code, for stack.hpp:
// the top D-1 rows X <- X + (W0 X) .* (W1 X), the label row untouched; W0, W1 are (D-1) x (D-1), column-major. Every
// sum a plain loop from 0 in index order (the CPU engine skips zero weights and sums in Eigen's order: the two agree
// to rounding).
#pragma once
#include "icl/execute/portable/hd.hpp"

namespace icl::portable {

// a = W0 x_j, b = W1 x_j over the top m = D-1 rows of column j.
template <typename S>
ICL_HD inline void bilinear_products(const S* W0, const S* W1, StridedT<S> Z, int D, int j, StridedT<S> a,
                                     StridedT<S> b) {
  const int m = D - 1;
  const long long zj = static_cast<long long>(j) * D;
  for (int r = 0; r < m; ++r) {
    S s0 = 0, s1 = 0;
    for (int c = 0; c < m; ++c) {
      s0 += W0[c * m + r] * Z[zj + c];
      s1 += W1[c * m + r] * Z[zj + c];
    }
    a[r] = s0;
    b[r] = s1;
  }
}

// In place, column by column (a column's update reads only that column).
template <typename S>
ICL_HD inline void bilinear_apply(const S* W0, const S* W1, StridedT<S> Z, int D, int N, StridedT<S> a, StridedT<S> b) {
  for (int j = 0; j < N; ++j) {
    bilinear_products(W0, W1, Z, D, j, a, b);
    const long long zj = static_cast<long long>(j) * D;
    for (int r = 0; r + 1 < D; ++r) Z[zj + r] = Z[zj + r] + a[r] * b[r];
  }
}

// The adjoint (Z the layer's input, R the adjoint of its output, replaced by that of its input): with A = W0 X,
// B = W1 X: dW0 += (R .* B) X^T, dW1 += (R .* A) X^T (summed over the columns in G0, G1 first, then one addition per
// entry), R <- R + W0^T (R .* B) + W1^T (R .* A) on the top rows. Scratch: G0, G1 ((D-1)^2 each), columns a, b, ra, rb.
template <typename S>
ICL_HD inline void bilinear_backward(const S* W0, const S* W1, StridedT<S> Z, int D, int N, StridedT<S> R,
                                     StridedT<S> dW0, StridedT<S> dW1, StridedT<S> G0, StridedT<S> G1, StridedT<S> a, StridedT<S> b,
                                     StridedT<S> ra, StridedT<S> rb) {
  const int m = D - 1;
  const long long mm = static_cast<long long>(m) * m;
  for (long long e = 0; e < mm; ++e) {
    G0[e] = S(0);
    G1[e] = S(0);
  }
  for (int j = 0; j < N; ++j) {
    const long long zj = static_cast<long long>(j) * D;
    bilinear_products(W0, W1, Z, D, j, a, b);
    for (int r = 0; r < m; ++r) {
      rb[r] = R[zj + r] * b[r];
      ra[r] = R[zj + r] * a[r];
    }
    for (int c = 0; c < m; ++c)
      for (int r = 0; r < m; ++r) {
        G0[static_cast<long long>(c) * m + r] = G0[static_cast<long long>(c) * m + r] + rb[r] * Z[zj + c];
        G1[static_cast<long long>(c) * m + r] = G1[static_cast<long long>(c) * m + r] + ra[r] * Z[zj + c];
      }
    for (int c = 0; c < m; ++c) {  // R_j(c) += sum_r W0(r, c) rb(r) + W1(r, c) ra(r)
      S t0 = 0, t1 = 0;
      for (int r = 0; r < m; ++r) {
        t0 += W0[c * m + r] * rb[r];
        t1 += W1[c * m + r] * ra[r];
      }
      a[c] = t0 + t1;  // (a is free again)
    }
    for (int c = 0; c < m; ++c) R[zj + c] = R[zj + c] + a[c];
  }
  for (long long e = 0; e < mm; ++e) {
    dW0[e] += G0[e];
    dW1[e] += G1[e];
  }
}

}  // namespace icl::portable
