#include "icl/layers/lsa.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <stdexcept>

// The in-place kernels (Lsa::apply, LsaHeads::apply, and LinearSelfAttention/LinearAttentionHeads::apply on the values).
namespace icl {

namespace {

using detail::ensure;

constexpr Eigen::Index kMaxUnrolled = 64;  // rows of Z up to which a row of T is copied to the stack

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
// One head's weights as the kernels read them (a construction's LinearSelfAttention or a layers::Lsa's parameters).
struct HeadView {
  const Eigen::MatrixXd& P;
  const Eigen::MatrixXd& Q;
  bool masked;
  double scale;
};
HeadView view(const LinearSelfAttention& h) { return {h.P, h.Q, h.masked, h.scale}; }

struct AttentionPlan {
  bool fast;            // the hand-written kernels (one nonzero row and column of P, sizes as above)
  Eigen::Index offset;  // U's column j - offset holds column j of the update
};

AttentionPlan attention_update(const HeadView& h, const Eigen::Ref<const Eigen::MatrixXd>& Z,
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

double attention_scale(const HeadView& h, Eigen::Index N) {
  return h.scale != 0.0 ? h.scale : 1.0 / static_cast<double>(N - 1);
}

// Z(:, first:N) += the heads' summed updates, through the accumulator ws.A (zero first; the heads use
// the other scratch matrices).
// head(i) gives head i's HeadView.
template <class Head>
void heads_apply(std::size_t count, Head head, Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws, Eigen::Index first) {
  const Eigen::Index D = Z.rows(), N = Z.cols(), m = N - first;
  ensure(ws.A, D, m);
  ws.A.topLeftCorner(D, m).setZero();
  for (std::size_t i = 0; i < count; ++i) {
    const HeadView h = head(i);
    const AttentionPlan plan = attention_update(h, Z, ws, first);
    const double s = attention_scale(h, N);
    for (std::size_t a = 0; a < ws.R.size(); ++a)
      for (Eigen::Index j = first; j < N; ++j)
        ws.A(ws.R[a], j - first) += s * ws.U(static_cast<Eigen::Index>(a), j - plan.offset);
  }
  Z.rightCols(m) += ws.A.topLeftCorner(D, m);
}

void attention_apply(const HeadView& h, Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
                     Eigen::Index first) {
  const AttentionPlan plan = attention_update(h, Z, ws, first);
  const double s = attention_scale(h, Z.cols());
  const Eigen::Index N = Z.cols();
  for (std::size_t a = 0; a < ws.R.size(); ++a)
    for (Eigen::Index j = first; j < N; ++j) Z(ws.R[a], j) += s * ws.U(static_cast<Eigen::Index>(a), j - plan.offset);
}

void spec_heads_apply(const LinearAttentionHeads& l, Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
                      Eigen::Index first) {
  heads_apply(l.heads.size(), [&](std::size_t i) { return view(l.heads[i]); }, Z, ws, first);
}

}  // namespace

void LinearAttentionHeads::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  spec_heads_apply(*this, Z, ws, 0);
}
void LinearAttentionHeads::apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  spec_heads_apply(*this, Z, ws, Z.cols() - 1);
}
void LinearSelfAttention::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  attention_apply(view(*this), Z, ws, 0);
}
void LinearSelfAttention::apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  attention_apply(view(*this), Z, ws, Z.cols() - 1);
}

std::unique_ptr<layers::Lsa> make_layer(const LinearSelfAttention& spec) { return std::make_unique<layers::Lsa>(spec); }
std::unique_ptr<layers::LsaHeads> make_layer(const LinearAttentionHeads& spec) {
  return std::make_unique<layers::LsaHeads>(spec);
}

}  // namespace icl

// The trainable form.
namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {
constexpr int kP = 0, kQ = 1;
}

Lsa::Lsa(Index rows, bool masked_, double scale_) : masked(masked_), scale(scale_) {
  add_param("P", rows, rows);
  add_param("Q", rows, rows);
}

Lsa::Lsa(const LinearSelfAttention& spec) : Lsa(spec.P.rows(), spec.masked, spec.scale) {
  if (spec.P.cols() != spec.P.rows() || spec.Q.rows() != spec.P.rows() || spec.Q.cols() != spec.P.rows())
    throw std::invalid_argument("LinearSelfAttention: P, Q must be square and of one size");
  param(kP) = spec.P;
  param(kQ) = spec.Q;
}

LinearSelfAttention Lsa::spec() const { return {param(kP), param(kQ), masked, scale}; }

void Lsa::apply(Eigen::Ref<MatrixXd> Z, ForwardWorkspace& ws) const {
  icl::attention_apply({param(kP), param(kQ), masked, scale}, Z, ws, 0);
}
void Lsa::apply_query(Eigen::Ref<MatrixXd> Z, ForwardWorkspace& ws) const {
  icl::attention_apply({param(kP), param(kQ), masked, scale}, Z, ws, Z.cols() - 1);
}

static double lsa_scale(double scale, Index N) { return scale != 0.0 ? scale : 1.0 / static_cast<double>(N - 1); }

void Lsa::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch& s) const {
  const Index N = Z.cols();
  const Index K = masked ? N - 1 : N;
  MatrixXd& G = c.m[0];
  MatrixXd& T = c.m[1];
  G.noalias() = Z.leftCols(K) * Z.leftCols(K).transpose();
  s.M1.noalias() = param(kP) * G;
  T.noalias() = s.M1 * param(kQ);
  out = Z;
  out.noalias() += lsa_scale(scale, N) * (T * Z);
}

void Lsa::backward(const MatrixXd& Z, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  const Index N = Z.cols();
  const Index K = masked ? N - 1 : N;
  const double sc = lsa_scale(scale, N);
  const MatrixXd& P = param(kP);
  const MatrixXd& Q = param(kQ);
  const MatrixXd& G = c.m[0];
  const MatrixXd& T = c.m[1];
  s.F.noalias() = sc * (R * Z.transpose());  // dT
  if (g.want(kP)) {
    s.M1.noalias() = Q.transpose() * G;
    g[kP].noalias() += s.F * s.M1;
  }
  if (g.want(kQ)) {
    s.M1.noalias() = G * P.transpose();
    g[kQ].noalias() += s.M1 * s.F;
  }
  s.M1.noalias() = P.transpose() * s.F;
  s.H.noalias() = s.M1 * Q.transpose();  // dG
  s.R2 = R;
  s.R2.noalias() += sc * (T.transpose() * R);
  s.F = s.H + s.H.transpose();
  s.R2.leftCols(K).noalias() += s.F * Z.leftCols(K);
  R.swap(s.R2);
}

double Lsa::forward_query(const MatrixXd& Z, Cache& c, Scratch&) const {
  const Index D = Z.rows(), N = Z.cols();
  const Index K = masked ? N - 1 : N;
  MatrixXd& G = c.m[0];
  G.noalias() = Z.leftCols(K) * Z.leftCols(K).transpose();
  c.v[0].noalias() = param(kQ) * Z.col(N - 1);  // q = Q z_q
  c.v[1].noalias() = G * c.v[0];                // G q
  return Z(D - 1, N - 1) + lsa_scale(scale, N) * param(kP).row(D - 1).dot(c.v[1]);
}

void Lsa::backward_query(const MatrixXd& Z, Cache& c, Scratch& s, double dy, MatrixXd& R, Grads& g) const {
  const Index D = Z.rows(), N = Z.cols();
  const Index K = masked ? N - 1 : N;
  R.setZero(D, N);
  R(D - 1, N - 1) = dy;
  const double cs = lsa_scale(scale, N) * dy;
  const MatrixXd& G = c.m[0];
  // yhat = Z(D-1, N-1) + s p^T G q, p = P row D-1, q = Q z_q.
  const auto p = param(kP).row(D - 1).transpose();
  if (g.want(kP)) g[kP].row(D - 1) += cs * c.v[1].transpose();  // d/dp = s G q
  s.v1.noalias() = G * p;                                         // G p
  if (g.want(kQ)) g[kQ].noalias() += cs * s.v1 * Z.col(N - 1).transpose();
  R.col(N - 1).noalias() += cs * (param(kQ).transpose() * s.v1);  // via q = Q z_q
  // via G: dG = c p q^T, dZ_K += (dG + dG^T) Z_K = c [p (q^T Z_K) + q (p^T Z_K)]
  s.v2.noalias() = Z.leftCols(K).transpose() * c.v[0];  // Z_K^T q
  R.leftCols(K).noalias() += cs * p * s.v2.transpose();
  s.v2.noalias() = Z.leftCols(K).transpose() * p;  // Z_K^T p
  R.leftCols(K).noalias() += cs * c.v[0] * s.v2.transpose();
}

// Several heads: parameters P0, Q0, P1, Q1, ... (head h's P at 2h, its Q at 2h + 1); head h's Gram matrix and
// T = P G Q in the cache at 2h and 2h + 1.
LsaHeads::LsaHeads(Index rows, int heads, bool masked_, double scale_)
    : masked(static_cast<std::size_t>(heads), masked_), scale(static_cast<std::size_t>(heads), scale_) {
  if (heads < 1) throw std::invalid_argument("LsaHeads: at least one head");
  for (int h = 0; h < heads; ++h) {
    add_param("P" + std::to_string(h), rows, rows);
    add_param("Q" + std::to_string(h), rows, rows);
  }
}

LsaHeads::LsaHeads(const LinearAttentionHeads& spec)
    : LsaHeads(spec.heads.empty() ? 0 : spec.heads[0].P.rows(), static_cast<int>(spec.heads.size())) {
  for (std::size_t h = 0; h < spec.heads.size(); ++h) {
    const auto& x = spec.heads[h];
    if (x.P.rows() != param(0).rows() || x.P.cols() != x.P.rows() || x.Q.rows() != x.P.rows() ||
        x.Q.cols() != x.P.rows())
      throw std::invalid_argument("LinearAttentionHeads: every head's P, Q must be square and of one size");
    param(static_cast<int>(2 * h)) = x.P;
    param(static_cast<int>(2 * h + 1)) = x.Q;
    masked[h] = x.masked;
    scale[h] = x.scale;
  }
}

LinearAttentionHeads LsaHeads::spec() const {
  LinearAttentionHeads s;
  for (int h = 0; h < heads(); ++h)
    s.heads.push_back({param(2 * h), param(2 * h + 1), masked[static_cast<std::size_t>(h)] != 0, scale[static_cast<std::size_t>(h)]});
  return s;
}

void LsaHeads::apply(Eigen::Ref<MatrixXd> Z, ForwardWorkspace& ws) const {
  icl::heads_apply(masked.size(), [&](std::size_t h) { return icl::HeadView{param(static_cast<int>(2 * h)),
                                        param(static_cast<int>(2 * h + 1)), masked[h] != 0, scale[h]}; }, Z, ws, 0);
}
void LsaHeads::apply_query(Eigen::Ref<MatrixXd> Z, ForwardWorkspace& ws) const {
  icl::heads_apply(masked.size(), [&](std::size_t h) { return icl::HeadView{param(static_cast<int>(2 * h)),
                                        param(static_cast<int>(2 * h + 1)), masked[h] != 0, scale[h]}; }, Z, ws, Z.cols() - 1);
}

void LsaHeads::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch& s) const {
  const Index N = Z.cols();
  const auto H = static_cast<std::size_t>(heads());
  if (c.m.size() < 2 * H) c.m.resize(2 * H);
  out = Z;
  for (std::size_t h = 0; h < H; ++h) {
    const Index K = masked[h] ? N - 1 : N;
    MatrixXd& G = c.m[2 * h];
    MatrixXd& T = c.m[2 * h + 1];
    G.noalias() = Z.leftCols(K) * Z.leftCols(K).transpose();
    s.M1.noalias() = param(static_cast<int>(2 * h)) * G;
    T.noalias() = s.M1 * param(static_cast<int>(2 * h + 1));
    out.noalias() += lsa_scale(scale[h], N) * (T * Z);
  }
}

void LsaHeads::backward(const MatrixXd& Z, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  const Index N = Z.cols();
  s.R2 = R;
  for (int h = 0; h < heads(); ++h) {
    const auto hs = static_cast<std::size_t>(h);
    const int p = 2 * h, q = 2 * h + 1;
    const Index K = masked[hs] ? N - 1 : N;
    const double sc = lsa_scale(scale[hs], N);
    const MatrixXd& G = c.m[2 * hs];
    const MatrixXd& T = c.m[2 * hs + 1];
    s.F.noalias() = sc * (R * Z.transpose());  // dT
    if (g.want(p)) {
      s.M1.noalias() = param(q).transpose() * G;
      g[p].noalias() += s.F * s.M1;
    }
    if (g.want(q)) {
      s.M1.noalias() = G * param(p).transpose();
      g[q].noalias() += s.M1 * s.F;
    }
    s.M1.noalias() = param(p).transpose() * s.F;
    s.H.noalias() = s.M1 * param(q).transpose();  // dG
    s.R2.noalias() += sc * (T.transpose() * R);
    s.F = s.H + s.H.transpose();
    s.R2.leftCols(K).noalias() += s.F * Z.leftCols(K);
  }
  R.swap(s.R2);
}

}  // namespace icl::layers
