#include "icl/model/layers.hpp"

#include "icl/model/prompt.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace icl {

namespace {

constexpr Eigen::Index kMaxUnrolled = 64;  // rows of Z up to which a row of T is copied to the stack

// Grows m to at least r x c (keeps it when large enough: no allocation once sized by reserve()).
void ensure(Eigen::MatrixXd& m, Eigen::Index r, Eigen::Index c) {
  if (m.rows() < r || m.cols() < c) m.resize(std::max(m.rows(), r), std::max(m.cols(), c));
}

// Indices of the nonzero rows and of the nonzero columns of M.
void nonzero_pattern(const Eigen::MatrixXd& M, std::vector<int>& rows, std::vector<int>& cols) {
  const Eigen::Index m = M.rows(), n = M.cols();
  rows.assign(static_cast<std::size_t>(m), 0);  // first as flags (one pass over M, in storage order)
  cols.clear();
  for (Eigen::Index j = 0; j < n; ++j) {
    const double* col = M.data() + j * m;
    int any = 0;
    for (Eigen::Index i = 0; i < m; ++i) {
      const int nz = col[i] != 0.0;
      rows[static_cast<std::size_t>(i)] |= nz;
      any |= nz;
    }
    if (any) cols.push_back(static_cast<int>(j));
  }
  std::size_t k = 0;
  for (Eigen::Index i = 0; i < m; ++i)
    if (rows[static_cast<std::size_t>(i)]) rows[k++] = static_cast<int>(i);
  rows.resize(k);
}

// One head: ws.U(a, j - offset) = (P Z M Z^T Q Z)(R_a, j) for the columns j in [first, N) (the general
// path below forms every column: offset 0; the fast one those asked for: offset = first), with ws.R the
// nonzero rows of P (the other rows of the update are zero). Only the rows K of Z M Z^T that P reads are formed. Returns the scale.
//
// The sums run in the order of the Eigen products that formed them before (so the numbers are unchanged):
// when P has one nonzero row and one nonzero column (sja: P = e e^T) with at least 20 - 1 - D keys, the
// Gram row is Eigen's matrix-vector kernel's sum (blocks of 16 keys, or all keys when fewer than 128,
// each summed from 0 and then added) and with D + 1 + N >= 20 each entry of U is its row-major
// matrix-vector kernel's sum (the even-indexed terms plus the odd-indexed ones, then a last odd term);
// those are done here by hand, on the query column alone when asked. Any other P goes through the same
// Eigen products as before, on every column.
struct AttentionPlan {
  bool fast;            // the hand-written kernels (one nonzero row and column of P, sizes as above)
  Eigen::Index offset;  // U's column j - offset holds column j of the update
};

AttentionPlan attention_update(const LinearSelfAttention& h, const Eigen::Ref<const Eigen::MatrixXd>& Z,
                               ForwardWorkspace& ws, Eigen::Index first) {
  const Eigen::Index D = Z.rows(), N = Z.cols(), ld = Z.outerStride();
  if (h.P.rows() != D || h.P.cols() != D || h.Q.rows() != D || h.Q.cols() != D)
    throw std::invalid_argument("LinearSelfAttention: P, Q must be (rows of Z) square");
  const Eigen::Index keys = h.masked ? N - 1 : N;
  nonzero_pattern(h.P, ws.R, ws.K);
  const auto r = static_cast<Eigen::Index>(ws.R.size()), k = static_cast<Eigen::Index>(ws.K.size());
  const bool fast = r == 1 && k == 1 && D <= kMaxUnrolled && D + 1 + N >= 20;
  if (r == 0) return {fast, 0};
  ensure(ws.S, r, D);
  ensure(ws.T, r, D);
  const double* z = Z.data();
  if (!fast) {
    // The general path: P(R, K) in ws.U and Z(K, keys) in ws.T (both read before they are overwritten),
    // then Eigen's products as before.
    ensure(ws.U, r, std::max(k, N));
    ensure(ws.T, k, keys);
    ensure(ws.G, k, D);
    for (Eigen::Index b = 0; b < k; ++b)
      for (Eigen::Index a = 0; a < r; ++a) ws.U(a, b) = h.P(ws.R[static_cast<std::size_t>(a)], ws.K[static_cast<std::size_t>(b)]);
    for (Eigen::Index j = 0; j < keys; ++j)
      for (Eigen::Index a = 0; a < k; ++a) ws.T(a, j) = Z(ws.K[static_cast<std::size_t>(a)], j);
    ws.G.topLeftCorner(k, D).noalias() = ws.T.topLeftCorner(k, keys) * Z.leftCols(keys).transpose();  // (Z M Z^T)(K, :)
    ws.S.topLeftCorner(r, D).noalias() = ws.U.topLeftCorner(r, k) * ws.G.topLeftCorner(k, D);          // (P Z M Z^T)(R, :)
    ws.T.topLeftCorner(r, D).noalias() = ws.S.topLeftCorner(r, D) * h.Q;                               // ... Q
    ws.U.topLeftCorner(r, N).noalias() = ws.T.topLeftCorner(r, D) * Z;                                 // ... Z
    return {fast, 0};
  }
  // One row K_0 of Z M Z^T: the sum over the keys j of Z(K_0, j) Z(:, j), 8 entries at a time in registers
  // (elementwise: Eigen's packets change no sum), in blocks as Eigen's kernel summed it.
  const Eigen::Index row = ws.K[0];
  const Eigen::Index block = keys >= 128 ? (ld * 8 < 32000 ? 16 : 4) : std::max<Eigen::Index>(keys, 1);
  double g[kMaxUnrolled];
  for (Eigen::Index c = 0; c < D; ++c) g[c] = 0.0;
  using Chunk = Eigen::Array<double, 8, 1>;
  for (Eigen::Index j0 = 0; j0 < keys; j0 += block) {
    const Eigen::Index j1 = std::min(keys, j0 + block);
    Eigen::Index c0 = 0;
    for (; c0 + 8 <= D; c0 += 8) {
      Chunk acc = Chunk::Zero();
      for (Eigen::Index j = j0; j < j1; ++j) {
        const double* zj = z + j * ld;
        acc += zj[row] * Eigen::Map<const Chunk>(zj + c0);
      }
      Eigen::Map<Chunk>(g + c0) += acc;
    }
    if (c0 < D) {
      double part[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
      for (Eigen::Index j = j0; j < j1; ++j) {
        const double* zj = z + j * ld;
        const double s = zj[row];
        for (Eigen::Index c = c0; c < D; ++c) part[c - c0] += s * zj[c];
      }
      for (Eigen::Index c = c0; c < D; ++c) g[c] += part[c - c0];
    }
  }
  const double p = h.P(ws.R[0], row);
  for (Eigen::Index c = 0; c < D; ++c) ws.S(0, c) = p * g[c];          // (P Z M Z^T)(R, :)
  ws.T.topLeftCorner(1, D).noalias() = ws.S.topLeftCorner(1, D) * h.Q;  // ... Q (Eigen, as before)
  double t[kMaxUnrolled];                                               // ... Z, the columns asked for
  for (Eigen::Index c = 0; c < D; ++c) t[c] = ws.T(0, c);
  ensure(ws.U, 1, N - first);
  for (Eigen::Index j = first; j < N; ++j) {
    const double* zj = z + j * ld;
    double even = 0.0, odd = 0.0;
    Eigen::Index c = 0;
    for (; c + 2 <= D; c += 2) {
      even += t[c] * zj[c];
      odd += t[c + 1] * zj[c + 1];
    }
    double u = even + odd;
    for (; c < D; ++c) u += t[c] * zj[c];
    ws.U(0, j - first) = u;
  }
  return {fast, first};
}

double attention_scale(const LinearSelfAttention& h, Eigen::Index N) {
  return h.scale != 0.0 ? h.scale : 1.0 / static_cast<double>(N - 1);
}

// Z(:, first:N) += the heads' summed updates, through the accumulator ws.A (zero first; the heads use
// the other scratch matrices).
void heads_apply(const std::vector<LinearSelfAttention>& heads, Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
                 Eigen::Index first) {
  const Eigen::Index D = Z.rows(), N = Z.cols(), m = N - first;
  ensure(ws.A, D, m);
  ws.A.topLeftCorner(D, m).setZero();
  for (const auto& h : heads) {
    const AttentionPlan plan = attention_update(h, Z, ws, first);
    const double s = attention_scale(h, N);
    for (std::size_t a = 0; a < ws.R.size(); ++a)
      for (Eigen::Index j = first; j < N; ++j)
        ws.A(ws.R[a], j - first) += s * ws.U(static_cast<Eigen::Index>(a), j - plan.offset);
  }
  Z.rightCols(m) += ws.A.topLeftCorner(D, m);
}

void attention_apply(const LinearSelfAttention& h, Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
                     Eigen::Index first) {
  const AttentionPlan plan = attention_update(h, Z, ws, first);
  const double s = attention_scale(h, Z.cols());
  const Eigen::Index N = Z.cols();
  for (std::size_t a = 0; a < ws.R.size(); ++a)
    for (Eigen::Index j = first; j < N; ++j) Z(ws.R[a], j) += s * ws.U(static_cast<Eigen::Index>(a), j - plan.offset);
}

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
void bilinear_apply(const BilinearLayer& l, Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws, Eigen::Index first) {
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

void LinearAttentionHeads::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const { heads_apply(heads, Z, ws, 0); }
void LinearAttentionHeads::apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  heads_apply(heads, Z, ws, Z.cols() - 1);
}
void LinearSelfAttention::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const { attention_apply(*this, Z, ws, 0); }
void LinearSelfAttention::apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  attention_apply(*this, Z, ws, Z.cols() - 1);
}
void BilinearLayer::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const { bilinear_apply(*this, Z, ws, 0); }
void BilinearLayer::apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  bilinear_apply(*this, Z, ws, Z.cols() - 1);
}

double Transformer::predict(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  for (std::size_t k = 0; k < layers.size(); ++k) {
    if (k + 1 < layers.size()) std::visit([&](const auto& l) { l.apply(Z, ws); }, layers[k]);
    else std::visit([&](const auto& l) { l.apply_query(Z, ws); }, layers[k]);
  }
  return prediction(Z);
}

void Transformer::forward(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
                          const std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)>* observe) const {
  int k = 0;
  for (const auto& layer : layers) {
    std::visit([&](const auto& l) { l.apply(Z, ws); }, layer);
    if (observe) (*observe)(++k, Z);
  }
}

}  // namespace icl
