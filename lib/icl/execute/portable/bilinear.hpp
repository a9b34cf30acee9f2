// The bilinear (GLU without activation) layer of sja eq. (3) (layers/bilinear.hpp) in portable code, for stack.hpp:
// the top D-1 rows X <- X + (W0 X) .* (W1 X), the label row untouched; W0, W1 are (D-1) x (D-1), column-major. Every
// sum a plain loop from 0 in index order (the CPU engine skips zero weights and sums in Eigen's order: the two agree
// to rounding). Every step is X::each over its output entries (schedule.hpp); buffers are D x N (entry (j, r) at
// j D + r, the label row unused).
#pragma once
#include "icl/execute/portable/hd.hpp"
#include "icl/execute/portable/schedule.hpp"

namespace icl::portable {

// (W0 x_j)_r and (W1 x_j)_r over the top m = D-1 rows of column j (zj = j D).
template <typename S>
ICL_HD inline void bilinear_entry(const S* W0, const S* W1, StridedT<S> Z, int m, long long zj, long long r, S& a,
                                  S& b) {
  S s0 = 0, s1 = 0;
  for (int c = 0; c < m; ++c) {
    s0 += W0[c * m + r] * Z[zj + c];
    s1 += W1[c * m + r] * Z[zj + c];
  }
  a = s0;
  b = s1;
}

// The products (W0 x_j)_r (W1 x_j)_r into U (a column's update reads the whole column), then the additions.
template <typename X = Serial, typename S>
ICL_HD inline void bilinear_apply(const S* W0, const S* W1, StridedT<S> Z, int D, int N, StridedT<S> U) {
  const int m = D - 1;
  const long long n = static_cast<long long>(N) * m;
  X::each(n, [&](long long e) {
    const long long r = e % m, zj = (e / m) * D;
    S a, b;
    bilinear_entry(W0, W1, Z, m, zj, r, a, b);
    U[zj + r] = a * b;
  });
  X::each(n, [&](long long e) {
    const long long k = (e / m) * D + e % m;
    Z[k] = Z[k] + U[k];
  });
}

// The adjoint (Z the layer's input, R the adjoint of its output, replaced by that of its input): with A = W0 X,
// B = W1 X: dW0 += (R .* B) X^T, dW1 += (R .* A) X^T (each entry summed over the columns in order from 0, then one
// addition per entry), R <- R + W0^T (R .* B) + W1^T (R .* A) on the top rows. Scratch: RA = R .* A, RB = R .* B
// (D x N each).
template <typename X = Serial, typename S>
ICL_HD inline void bilinear_backward(const S* W0, const S* W1, StridedT<S> Z, int D, int N, StridedT<S> R,
                                     StridedT<S> dW0, StridedT<S> dW1, StridedT<S> RA, StridedT<S> RB) {
  const int m = D - 1;
  const long long n = static_cast<long long>(N) * m;
  X::each(n, [&](long long e) {
    const long long r = e % m, k = (e / m) * D + r;
    S a, b;
    bilinear_entry(W0, W1, Z, m, k - r, r, a, b);
    RB[k] = R[k] * b;
    RA[k] = R[k] * a;
  });
  X::each(static_cast<long long>(m) * m, [&](long long e) {  // entry (r, c) of dW0, dW1 at c m + r
    const long long r = e % m, c = e / m;
    S g0 = 0, g1 = 0;
    for (int j = 0; j < N; ++j) {
      const long long zj = static_cast<long long>(j) * D;
      g0 = g0 + RB[zj + r] * Z[zj + c];
      g1 = g1 + RA[zj + r] * Z[zj + c];
    }
    dW0[e] += g0;
    dW1[e] += g1;
  });
  X::each(n, [&](long long e) {  // R_j(c) += sum_r W0(r, c) rb(r) + W1(r, c) ra(r)
    const long long c = e % m, zj = (e / m) * D;
    S t0 = 0, t1 = 0;
    for (int r = 0; r < m; ++r) {
      t0 += W0[c * m + r] * RB[zj + r];
      t1 += W1[c * m + r] * RA[zj + r];
    }
    R[zj + c] = R[zj + c] + (t0 + t1);
  });
}

}  // namespace icl::portable
