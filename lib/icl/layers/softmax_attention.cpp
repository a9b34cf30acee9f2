#include "icl/layers/softmax_attention.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>

// The in-place kernel.
namespace icl {

namespace {

using Activation = layers::SoftmaxAttention::Activation;

void softmax_apply(const Eigen::MatrixXd& V, const Eigen::MatrixXd& K, Activation activation, bool causal,
                   bool allow_uniform_shortcut, Eigen::Ref<Eigen::MatrixXd> Z, bool last_column_only) {
  const Eigen::Index r = Z.rows(), N = Z.cols();
  if (V.rows() != r || V.cols() != r || K.rows() != r || K.cols() != r)
    throw std::invalid_argument("SoftmaxAttention: V, K must be (rows of Z) square");
  const Eigen::Index first = last_column_only ? N - 1 : 0;
  Eigen::MatrixXd out(r, N - first);  // V Z phi(.) for columns first..N-1, from the input Z
  if (activation == Activation::softmax && allow_uniform_shortcut && K.isZero(0.0)) {
    // All scores 0: softmax is uniform over the visible tokens, exactly.
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(r);
    if (causal) {
      for (Eigen::Index j = 0; j < N; ++j) {
        sum += Z.col(j);
        if (j >= first) out.col(j - first) = sum / static_cast<double>(j + 1);
      }
    } else {
      const Eigen::VectorXd mean = Z.rowwise().sum() / static_cast<double>(N);
      for (Eigen::Index j = first; j < N; ++j) out.col(j - first) = mean;
    }
    Z.rightCols(N - first) += V * out;
    return;
  }
  Eigen::VectorXd kz(r), s(N), w(N);
  for (Eigen::Index j = first; j < N; ++j) {
    const Eigen::Index visible = causal ? j + 1 : N;
    kz.noalias() = K * Z.col(j);
    s.head(visible).noalias() = Z.leftCols(visible).transpose() * kz;  // s_i = z_i^T K z_j
    if (activation == Activation::softmax) {
      const double m = s.head(visible).maxCoeff();
      double total = 0;
      for (Eigen::Index i = 0; i < visible; ++i) total += (w[i] = std::exp(s[i] - m));
      w.head(visible) /= total;
    } else {
      w.head(visible) = s.head(visible);
    }
    out.col(j - first).noalias() = Z.leftCols(visible) * w.head(visible);
  }
  Z.rightCols(N - first) += V * out;
}

}  // namespace

void SoftmaxAttention::apply(Eigen::Ref<Eigen::MatrixXd> Z, bool last_column_only) const {
  softmax_apply(V, K, activation, causal, allow_uniform_shortcut, Z, last_column_only);
}

std::unique_ptr<layers::SoftmaxAttention> make_layer(const SoftmaxAttention& spec) {
  return std::make_unique<layers::SoftmaxAttention>(spec);
}

}  // namespace icl

// The trainable form.
namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {

constexpr int kV = 0, kK = 1;

Index visible(bool causal, Index j, Index N) { return causal ? j + 1 : N; }

// Column-wise masked softmax (or identity) of the score matrix S into W (entries outside the mask 0).
void attention_weights(SoftmaxAttention::Activation act, bool causal, const MatrixXd& S, MatrixXd& W) {
  const Index N = S.cols();
  W.setZero(N, N);
  for (Index j = 0; j < N; ++j) {
    const Index v = visible(causal, j, N);
    if (act == SoftmaxAttention::Activation::softmax) {
      const double m = S.col(j).head(v).maxCoeff();
      double total = 0;
      for (Index i = 0; i < v; ++i) total += (W(i, j) = std::exp(S(i, j) - m));
      W.col(j).head(v) /= total;
    } else {
      W.col(j).head(v) = S.col(j).head(v);
    }
  }
}

}  // namespace

SoftmaxAttention::SoftmaxAttention(Index rows, Activation act, bool causal_) : activation(act), causal(causal_) {
  add_param("V", rows, rows);
  add_param("K", rows, rows);
}

SoftmaxAttention::SoftmaxAttention(const icl::SoftmaxAttention& spec)
    : SoftmaxAttention(spec.V.rows(), spec.activation, spec.causal) {
  if (spec.V.cols() != spec.V.rows() || spec.K.rows() != spec.V.rows() || spec.K.cols() != spec.V.rows())
    throw std::invalid_argument("SoftmaxAttention: V, K must be square and of one size");
  param(kV) = spec.V;
  param(kK) = spec.K;
  allow_uniform_shortcut = spec.allow_uniform_shortcut;
}

icl::SoftmaxAttention SoftmaxAttention::spec() const {
  return {param(kV), param(kK), activation, causal, allow_uniform_shortcut};
}

void SoftmaxAttention::apply(Eigen::Ref<MatrixXd> Z, ForwardWorkspace&) const {
  icl::softmax_apply(param(kV), param(kK), activation, causal, allow_uniform_shortcut, Z, false);
}
void SoftmaxAttention::apply_query(Eigen::Ref<MatrixXd> Z, ForwardWorkspace&) const {
  icl::softmax_apply(param(kV), param(kK), activation, causal, allow_uniform_shortcut, Z, true);
}

void SoftmaxAttention::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch& s) const {
  s.KZ.noalias() = param(kK) * Z;             // K Z
  s.S.noalias() = Z.transpose() * s.KZ;       // S_ij = z_i^T K z_j
  attention_weights(activation, causal, s.S, c.m[0]);  // W
  c.m[1].noalias() = Z * c.m[0];              // C = Z W
  out = Z;
  out.noalias() += param(kV) * c.m[1];
}

void SoftmaxAttention::backward(const MatrixXd& Z, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  const Index N = Z.cols();
  const MatrixXd& Wt = c.m[0];  // attention weights
  const MatrixXd& C = c.m[1];
  if (g.want(kV)) g[kV].noalias() += R * C.transpose();
  s.H.noalias() = param(kV).transpose() * R;  // dC (r x N)
  s.R2 = R;
  s.R2.noalias() += s.H * Wt.transpose();
  s.S.noalias() = Z.transpose() * s.H;  // dW (N x N)
  s.dS.setZero(N, N);
  for (Index j = 0; j < N; ++j) {
    const Index v = visible(causal, j, N);
    if (activation == Activation::softmax) {
      const double dot = Wt.col(j).head(v).dot(s.S.col(j).head(v));
      for (Index i = 0; i < v; ++i) s.dS(i, j) = Wt(i, j) * (s.S(i, j) - dot);
    } else {
      s.dS.col(j).head(v) = s.S.col(j).head(v);
    }
  }
  s.F.noalias() = Z * s.dS;  // Z dS (r x N)
  if (g.want(kK)) g[kK].noalias() += s.F * Z.transpose();
  s.KZ.noalias() = param(kK) * Z;  // K Z
  s.R2.noalias() += s.KZ * s.dS.transpose();
  s.R2.noalias() += param(kK).transpose() * s.F;
  R.swap(s.R2);
}

double SoftmaxAttention::forward_query(const MatrixXd& Z, Cache& c, Scratch&) const {
  const Index D = Z.rows(), N = Z.cols();
  Eigen::VectorXd &Kq = c.v[0], &w = c.v[1], &ctx = c.v[2];
  Kq.noalias() = param(kK) * Z.col(N - 1);  // K z_q
  w.noalias() = Z.transpose() * Kq;         // scores
  if (activation == Activation::softmax) {
    const double m = w.maxCoeff();
    w = (w.array() - m).exp();
    w /= w.sum();
  }
  ctx.noalias() = Z * w;  // c = Z w
  return Z(D - 1, N - 1) + param(kV).row(D - 1).dot(ctx);
}

void SoftmaxAttention::backward_query(const MatrixXd& Z, Cache& c, Scratch& s, double dy, MatrixXd& R,
                                      Grads& g) const {
  const Index D = Z.rows(), N = Z.cols();
  const Eigen::VectorXd &Kq = c.v[0], &w = c.v[1], &ctx = c.v[2];
  R.setZero(D, N);
  R(D - 1, N - 1) = dy;
  // yhat = Z(D-1, N-1) + v^T c, c = Z w, w = phi(Z^T K z_q).
  const auto v = param(kV).row(D - 1).transpose();
  if (g.want(kV)) g[kV].row(D - 1) += dy * ctx.transpose();
  s.v1 = dy * v;                           // dc
  R.noalias() += s.v1 * w.transpose();     // dZ += dc w^T
  Eigen::VectorXd& dw = s.v2;
  dw.noalias() = Z.transpose() * s.v1;
  if (activation == Activation::softmax) {
    const double dot = w.dot(dw);
    dw = w.cwiseProduct((dw.array() - dot).matrix());
  }
  // s_i = z_i^T K z_q: dK = (Z ds) z_q^T, dZ += (K z_q) ds^T, dz_q += K^T Z ds.
  Eigen::VectorXd& Zds = s.v3;
  Zds.noalias() = Z * dw;
  if (g.want(kK)) g[kK].noalias() += Zds * Z.col(N - 1).transpose();
  R.noalias() += Kq * dw.transpose();
  R.col(N - 1).noalias() += param(kK).transpose() * Zds;
}

}  // namespace icl::layers
