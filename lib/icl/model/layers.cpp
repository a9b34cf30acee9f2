#include "icl/model/layers.hpp"

#include <algorithm>
#include <stdexcept>

namespace icl {

namespace {

// Grows m to at least r x c (keeps it when large enough: no allocation once sized by reserve()).
void ensure(Eigen::MatrixXd& m, Eigen::Index r, Eigen::Index c) {
  if (m.rows() < r || m.cols() < c) m.resize(std::max(m.rows(), r), std::max(m.cols(), c));
}

// Indices of the nonzero rows and of the nonzero columns of M.
void nonzero_pattern(const Eigen::MatrixXd& M, std::vector<int>& rows, std::vector<int>& cols) {
  rows.clear();
  cols.clear();
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    if ((M.row(i).array() != 0.0).any()) rows.push_back(static_cast<int>(i));
  for (Eigen::Index j = 0; j < M.cols(); ++j)
    if ((M.col(j).array() != 0.0).any()) cols.push_back(static_cast<int>(j));
}

// dst(0:|rows|, 0:|cols|) = M(rows, cols), dst(0:|rows|, 0:N) = Z(rows, 0:N): gathers into scratch.
void gather(const Eigen::Ref<const Eigen::MatrixXd>& M, const std::vector<int>& rows, const std::vector<int>& cols,
            Eigen::MatrixXd& dst) {
  ensure(dst, static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t b = 0; b < cols.size(); ++b)
    for (std::size_t a = 0; a < rows.size(); ++a)
      dst(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = M(rows[a], cols[b]);
}
void gather_rows(const Eigen::Ref<const Eigen::MatrixXd>& Z, const std::vector<int>& rows, Eigen::Index ncols,
                 Eigen::MatrixXd& dst) {
  ensure(dst, static_cast<Eigen::Index>(rows.size()), ncols);
  for (Eigen::Index j = 0; j < ncols; ++j)
    for (std::size_t a = 0; a < rows.size(); ++a) dst(static_cast<Eigen::Index>(a), j) = Z(rows[a], j);
}

// One head: ws.U(0:|R|, :) = (P Z M Z^T Q Z)(R, :) with ws.R the nonzero rows of P (the other rows of
// the update are zero). Only the rows K of Z M Z^T that P reads are formed. Returns the scale.
double attention_update(const LinearSelfAttention& h, const Eigen::Ref<const Eigen::MatrixXd>& Z, ForwardWorkspace& ws) {
  const Eigen::Index D = Z.rows(), N = Z.cols();
  if (h.P.rows() != D || h.P.cols() != D || h.Q.rows() != D || h.Q.cols() != D)
    throw std::invalid_argument("LinearSelfAttention: P, Q must be (rows of Z) square");
  const Eigen::Index keys = h.masked ? N - 1 : N;
  nonzero_pattern(h.P, ws.R, ws.K);
  const auto r = static_cast<Eigen::Index>(ws.R.size()), k = static_cast<Eigen::Index>(ws.K.size());
  if (r > 0) {
    gather(h.P, ws.R, ws.K, ws.W);                   // P(R, K)
    gather_rows(Z, ws.K, keys, ws.ZK);                // Z(K, keys)
    ensure(ws.G, k, D);
    ensure(ws.S, r, D);
    ensure(ws.T, r, D);
    ensure(ws.U, r, N);
    ws.G.topLeftCorner(k, D).noalias() = ws.ZK.topLeftCorner(k, keys) * Z.leftCols(keys).transpose();  // (Z M Z^T)(K, :)
    ws.S.topLeftCorner(r, D).noalias() = ws.W.topLeftCorner(r, k) * ws.G.topLeftCorner(k, D);          // (P Z M Z^T)(R, :)
    ws.T.topLeftCorner(r, D).noalias() = ws.S.topLeftCorner(r, D) * h.Q;                               // ... Q
    ws.U.topLeftCorner(r, N).noalias() = ws.T.topLeftCorner(r, D) * Z;                                 // ... Z
  }
  return h.scale != 0.0 ? h.scale : 1.0 / static_cast<double>(N - 1);
}

}  // namespace

void LinearAttentionHeads::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  const Eigen::Index D = Z.rows(), N = Z.cols();
  ensure(ws.A, D, N);
  ws.A.topLeftCorner(D, N).setZero();
  for (const auto& h : heads) {
    const double s = attention_update(h, Z, ws);
    for (std::size_t a = 0; a < ws.R.size(); ++a)
      ws.A.row(ws.R[a]).head(N) += s * ws.U.row(static_cast<Eigen::Index>(a)).head(N);
  }
  Z += ws.A.topLeftCorner(D, N);
}

void LinearSelfAttention::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  const double s = attention_update(*this, Z, ws);
  const Eigen::Index N = Z.cols();
  for (std::size_t a = 0; a < ws.R.size(); ++a) Z.row(ws.R[a]) += s * ws.U.row(static_cast<Eigen::Index>(a)).head(N);
}

void BilinearLayer::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  const Eigen::Index dbar = Z.rows() - 1, N = Z.cols();
  if (W0.rows() != dbar || W0.cols() != dbar || W1.rows() != dbar || W1.cols() != dbar)
    throw std::invalid_argument("BilinearLayer: W0, W1 must be dbar x dbar");
  // Rows where both W0 and W1 are nonzero get (W0 Z)(r) .* (W1 Z)(r); the others get 0.
  nonzero_pattern(W0, ws.R, ws.K);
  nonzero_pattern(W1, ws.R1, ws.K1);
  std::size_t r = 0;  // ws.R <- ws.R intersected with ws.R1 (both sorted)
  for (std::size_t a = 0, b = 0; a < ws.R.size() && b < ws.R1.size();) {
    if (ws.R[a] < ws.R1[b]) ++a;
    else if (ws.R1[b] < ws.R[a]) ++b;
    else { ws.R[r++] = ws.R[a]; ++a; ++b; }
  }
  ws.R.resize(r);
  if (r == 0) return;
  const auto rr = static_cast<Eigen::Index>(r), k0 = static_cast<Eigen::Index>(ws.K.size()),
             k1 = static_cast<Eigen::Index>(ws.K1.size());
  gather(W0, ws.R, ws.K, ws.W);
  gather(W1, ws.R, ws.K1, ws.W1s);
  gather_rows(Z, ws.K, N, ws.ZK);
  gather_rows(Z, ws.K1, N, ws.ZK1);
  ensure(ws.A, rr, N);
  ensure(ws.B, rr, N);
  ws.A.topLeftCorner(rr, N).noalias() = ws.W.topLeftCorner(rr, k0) * ws.ZK.topLeftCorner(k0, N);
  ws.B.topLeftCorner(rr, N).noalias() = ws.W1s.topLeftCorner(rr, k1) * ws.ZK1.topLeftCorner(k1, N);
  for (Eigen::Index j = 0; j < N; ++j)
    for (Eigen::Index a = 0; a < rr; ++a) Z(ws.R[static_cast<std::size_t>(a)], j) += ws.A(a, j) * ws.B(a, j);
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
