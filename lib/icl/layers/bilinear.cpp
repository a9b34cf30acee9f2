#include "icl/layers/bilinear.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cstring>
#include <stdexcept>

// The in-place kernel (Bilinear::apply, and BilinearLayer::apply on the values).
namespace icl {

namespace {

using detail::ensure;

// out[j os] += s (z_a + t z_b)(z_c + r z_d) over the columns j, z_x = z[j ld + x], t, r, s = +-1 (the
// subtract flags and neg say which are -1); templated so that the loop has no branch.
template <bool Neg, bool Sub0, bool Sub1>
void unit_products_t(const double* z, double* out, Eigen::Index m, Eigen::Index ld, Eigen::Index os, int a, int b,
                     int c, int d) {
  for (Eigen::Index j = 0; j < m; ++j) {
    const double* zj = z + j * ld;
    const double u = Sub0 ? zj[a] - zj[b] : zj[a] + zj[b];
    const double v = Sub1 ? zj[c] - zj[d] : zj[c] + zj[d];
    if (Neg) out[j * os] -= u * v;
    else out[j * os] += u * v;
  }
}
void unit_products(const double* z, double* out, Eigen::Index m, Eigen::Index ld, Eigen::Index os, int a, int b, int c,
                   int d, bool neg, bool sub0, bool sub1) {
  const int k = (neg ? 4 : 0) + (sub0 ? 2 : 0) + (sub1 ? 1 : 0);
  switch (k) {
    case 0: unit_products_t<false, false, false>(z, out, m, ld, os, a, b, c, d); break;
    case 1: unit_products_t<false, false, true>(z, out, m, ld, os, a, b, c, d); break;
    case 2: unit_products_t<false, true, false>(z, out, m, ld, os, a, b, c, d); break;
    case 3: unit_products_t<false, true, true>(z, out, m, ld, os, a, b, c, d); break;
    case 4: unit_products_t<true, false, false>(z, out, m, ld, os, a, b, c, d); break;
    case 5: unit_products_t<true, false, true>(z, out, m, ld, os, a, b, c, d); break;
    case 6: unit_products_t<true, true, false>(z, out, m, ld, os, a, b, c, d); break;
    default: unit_products_t<true, true, true>(z, out, m, ld, os, a, b, c, d); break;
  }
}

// Z(r, j) += (W0 Z)(r, j) * (W1 Z)(r, j) for the columns j in [first, N), over the rows r where both W0 and W1
// have a nonzero; each product sums its nonzero weights' terms in column order.
struct WeightsView {
  const Eigen::MatrixXd& W0;
  const Eigen::MatrixXd& W1;
};

void bilinear_apply(const WeightsView& l, Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws, Eigen::Index first) {
  const Eigen::Index dbar = Z.rows() - 1, N = Z.cols(), ld = Z.outerStride();
  if (l.W0.rows() != dbar || l.W0.cols() != dbar || l.W1.rows() != dbar || l.W1.cols() != dbar)
    throw std::invalid_argument("BilinearLayer: W0, W1 must be dbar x dbar");
  const auto same = [](const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
  };
  if (!same(l.W0, ws.W0) || !same(l.W1, ws.W1)) {  // compile: the rows, their nonzero terms, in order
    ws.W0 = l.W0;
    ws.W1 = l.W1;
    ws.rows.clear();
    ws.term_end.clear();
    if (ws.terms.size() < static_cast<std::size_t>(2 * dbar * dbar))
      ws.terms.resize(static_cast<std::size_t>(2 * dbar * dbar));
    int count = 0;  // a row's terms are written after the kept ones, and kept when both halves are nonempty
    ForwardWorkspace::Term* terms = ws.terms.data();
    for (Eigen::Index i = 0; i < dbar; ++i) {
      int n = count, half = count;  // W0's terms are [count, half), W1's [half, n)
      for (const Eigen::MatrixXd* W : {&l.W0, &l.W1}) {
        half = n;
        for (Eigen::Index c = 0; c < dbar; ++c) {
          const double w = (*W)(i, c);
          terms[n] = {static_cast<int>(c), w};
          n += w != 0.0;
        }
      }
      if (half == count || n == half) continue;
      ws.rows.push_back(static_cast<int>(i));
      ws.term_end.push_back(half);
      ws.term_end.push_back(n);
      count = n;
    }
    // In place, row by row, when no output row is read by a product (App. C: rows 1, x in, feature rows
    // out); otherwise every product is formed first (ws.A) and added after.
    ws.in_place = true;
    for (int t = 0; t < count; ++t)
      if (std::binary_search(ws.rows.begin(), ws.rows.end(), terms[t].col)) ws.in_place = false;
  }
  const std::size_t r = ws.rows.size();
  if (r == 0) return;
  const bool in_place = ws.in_place;
  const Eigen::Index m = N - first;
  if (!in_place) {
    ensure(ws.A, static_cast<Eigen::Index>(r), m);
    ws.A.topLeftCorner(static_cast<Eigen::Index>(r), m).setZero();
  }
  int b = 0;
  for (std::size_t a = 0; a < r; ++a) {
    const ForwardWorkspace::Term* t0 = ws.terms.data() + b;
    const int n0 = ws.term_end[2 * a] - b, n1 = ws.term_end[2 * a + 1] - ws.term_end[2 * a];
    const ForwardWorkspace::Term* t1 = t0 + n0;
    b = ws.term_end[2 * a + 1];
    const double* z = Z.data() + first * ld;
    double* out = in_place ? Z.data() + first * ld + ws.rows[a] : &ws.A(static_cast<Eigen::Index>(a), 0);
    const Eigen::Index os = in_place ? ld : ws.A.rows();
    // (W0 Z)(r, j) and (W1 Z)(r, j), each summed from 0 over its terms in column order.
    auto sum = [](const ForwardWorkspace::Term* t, int n, const double* zj) {
      double u = 0.0;
      for (int q = 0; q < n; ++q) u += t[q].w * zj[t[q].col];
      return u;
    };
    const auto unit = [](const ForwardWorkspace::Term& t) { return t.w == 1.0 || t.w == -1.0; };
    if (n0 == 2 && n1 == 2 && unit(t0[0]) && unit(t0[1]) && unit(t1[0]) && unit(t1[1])) {
      // Weights +-1 (App. C's squares x_j^2 - 1): w0 z_a + w1 z_b = w0 (z_a + (w0 w1) z_b) exactly (a sign
      // flip is exact), so the product is s (z_a +- z_b)(z_c +- z_d) with s = +-1.
      const bool neg = (t0[0].w * t1[0].w) < 0.0, sub0 = t0[0].w != t0[1].w, sub1 = t1[0].w != t1[1].w;
      unit_products(z, out, m, ld, os, t0[0].col, t0[1].col, t1[0].col, t1[1].col, neg, sub0, sub1);
    } else if (n0 == 1 && n1 == 1) {
      // One term each (App. C's x_j x_k): (w0 z_a)(w1 z_b).
      const double w0 = t0[0].w, w1 = t1[0].w;
      const int c0 = t0[0].col, c1 = t1[0].col;
      if (w0 == 1.0 && w1 == 1.0)
        for (Eigen::Index j = 0; j < m; ++j) out[j * os] += z[j * ld + c0] * z[j * ld + c1];
      else
        for (Eigen::Index j = 0; j < m; ++j) out[j * os] += (w0 * z[j * ld + c0]) * (w1 * z[j * ld + c1]);
    } else {
      for (Eigen::Index j = 0; j < m; ++j) {
        const double* zj = z + j * ld;
        out[j * os] += sum(t0, n0, zj) * sum(t1, n1, zj);
      }
    }
  }
  if (!in_place)
    for (std::size_t a = 0; a < r; ++a) Z.row(ws.rows[a]).tail(m) += ws.A.row(static_cast<Eigen::Index>(a)).head(m);
}

}  // namespace

void BilinearLayer::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const { bilinear_apply({W0, W1}, Z, ws, 0); }
void BilinearLayer::apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  bilinear_apply({W0, W1}, Z, ws, Z.cols() - 1);
}

std::unique_ptr<layers::Bilinear> make_layer(const BilinearLayer& spec) { return std::make_unique<layers::Bilinear>(spec); }

}  // namespace icl

// The trainable form.
namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {
constexpr int kW0 = 0, kW1 = 1;
}

Bilinear::Bilinear(Index rows) {
  add_param("W0", rows - 1, rows - 1);
  add_param("W1", rows - 1, rows - 1);
}

Bilinear::Bilinear(const BilinearLayer& spec) : Bilinear(spec.W0.rows() + 1) {
  if (spec.W0.cols() != spec.W0.rows() || spec.W1.rows() != spec.W0.rows() || spec.W1.cols() != spec.W0.rows())
    throw std::invalid_argument("BilinearLayer: W0, W1 must be square and of one size");
  param(kW0) = spec.W0;
  param(kW1) = spec.W1;
}

BilinearLayer Bilinear::spec() const { return {param(kW0), param(kW1)}; }

void Bilinear::apply(Eigen::Ref<MatrixXd> Z, ForwardWorkspace& ws) const {
  icl::bilinear_apply({param(kW0), param(kW1)}, Z, ws, 0);
}
void Bilinear::apply_query(Eigen::Ref<MatrixXd> Z, ForwardWorkspace& ws) const {
  icl::bilinear_apply({param(kW0), param(kW1)}, Z, ws, Z.cols() - 1);
}

void Bilinear::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch&) const {
  const Index d = Z.rows() - 1;
  MatrixXd& A = c.m[0];
  MatrixXd& B = c.m[1];
  A.noalias() = param(kW0) * Z.topRows(d);
  B.noalias() = param(kW1) * Z.topRows(d);
  out = Z;
  out.topRows(d).array() += A.array() * B.array();
}

void Bilinear::backward(const MatrixXd& Z, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  const Index d = Z.rows() - 1;
  const MatrixXd& A = c.m[0];
  const MatrixXd& B = c.m[1];
  s.R2 = R.topRows(d).cwiseProduct(B);  // R .* B
  s.F = R.topRows(d).cwiseProduct(A);   // R .* A
  if (g.want(kW0)) g[kW0].noalias() += s.R2 * Z.topRows(d).transpose();
  if (g.want(kW1)) g[kW1].noalias() += s.F * Z.topRows(d).transpose();
  R.topRows(d).noalias() += param(kW0).transpose() * s.R2;
  R.topRows(d).noalias() += param(kW1).transpose() * s.F;
}

}  // namespace icl::layers
