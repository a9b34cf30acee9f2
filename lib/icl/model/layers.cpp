#include "icl/model/layers.hpp"

#include <stdexcept>

namespace icl {

namespace {

// ws.U = P (Z M Z^T) Q Z for one head; returns its scale.
double attention_update(const LinearSelfAttention& h, const Eigen::Ref<const Eigen::MatrixXd>& Z, ForwardWorkspace& ws) {
  const Eigen::Index D = Z.rows(), N = Z.cols();
  const auto& P = h.P;
  const auto& Q = h.Q;
  if (P.rows() != D || P.cols() != D || Q.rows() != D || Q.cols() != D)
    throw std::invalid_argument("LinearSelfAttention: P, Q must be (rows of Z) square");
  const Eigen::Index keys = h.masked ? N - 1 : N;
  if (ws.G.rows() != D) ws.G.resize(D, D);
  if (ws.S.rows() != D) ws.S.resize(D, D);
  if (ws.T.rows() != D) ws.T.resize(D, D);
  if (ws.U.rows() != D || ws.U.cols() != N) ws.U.resize(D, N);
  ws.G.noalias() = Z.leftCols(keys) * Z.leftCols(keys).transpose();
  ws.S.noalias() = P * ws.G;
  ws.T.noalias() = ws.S * Q;
  ws.U.noalias() = ws.T * Z;
  return h.scale != 0.0 ? h.scale : 1.0 / static_cast<double>(N - 1);
}

}  // namespace

void LinearAttentionHeads::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  const Eigen::Index D = Z.rows(), N = Z.cols();
  if (ws.A.rows() != D || ws.A.cols() != N) ws.A.resize(D, N);
  ws.A.setZero();
  for (const auto& h : heads) {
    const double s = attention_update(h, Z, ws);
    ws.A += s * ws.U;
  }
  Z += ws.A;
}

void LinearSelfAttention::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  const Eigen::Index D = Z.rows(), N = Z.cols();
  if (P.rows() != D || P.cols() != D || Q.rows() != D || Q.cols() != D)
    throw std::invalid_argument("LinearSelfAttention: P, Q must be (rows of Z) square");
  const Eigen::Index keys = masked ? N - 1 : N;
  const double s = scale != 0.0 ? scale : 1.0 / static_cast<double>(N - 1);
  if (ws.G.rows() != D) ws.G.resize(D, D);
  if (ws.S.rows() != D) ws.S.resize(D, D);
  if (ws.T.rows() != D) ws.T.resize(D, D);
  if (ws.U.rows() != D || ws.U.cols() != N) ws.U.resize(D, N);
  ws.G.noalias() = Z.leftCols(keys) * Z.leftCols(keys).transpose();  // Z M Z^T
  ws.S.noalias() = P * ws.G;                                         // P Z M Z^T
  ws.T.noalias() = ws.S * Q;                                         // ... Q
  ws.U.noalias() = ws.T * Z;                                         // ... Z
  for (Eigen::Index j = 0; j < N; ++j) Z.col(j) += s * ws.U.col(j);  // Z += s U, column by column
}

void BilinearLayer::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  const Eigen::Index dbar = Z.rows() - 1, N = Z.cols();
  if (W0.rows() != dbar || W0.cols() != dbar || W1.rows() != dbar || W1.cols() != dbar)
    throw std::invalid_argument("BilinearLayer: W0, W1 must be dbar x dbar");
  if (ws.A.rows() != dbar || ws.A.cols() != N) ws.A.resize(dbar, N);
  if (ws.B.rows() != dbar || ws.B.cols() != N) ws.B.resize(dbar, N);
  ws.A.noalias() = W0 * Z.topRows(dbar);
  ws.B.noalias() = W1 * Z.topRows(dbar);
  // Z_top += A .* B, column by column (contiguous columns vectorise better than the strided block).
  for (Eigen::Index j = 0; j < N; ++j) Z.col(j).head(dbar) += ws.A.col(j).cwiseProduct(ws.B.col(j));
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
