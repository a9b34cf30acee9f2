#include "icl/layers/layer_norm.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>

namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {
constexpr int kGamma = 0, kBeta = 1;
}

std::vector<Param> layer_norm_params(Index rows) {
  if (rows <= 0) throw std::invalid_argument("LayerNorm: the row count must be positive");
  return {{"gamma", MatrixXd::Ones(rows, 1)}, {"beta", MatrixXd::Zero(rows, 1)}};
}

void layer_norm_forward(const MatrixXd& gamma, const MatrixXd& beta, double eps, const MatrixXd& Z, MatrixXd& out,
                        MatrixXd& xhat, VectorXd& inv_std) {
  const Index r = Z.rows(), N = Z.cols();
  if (r != gamma.rows()) throw std::invalid_argument("LayerNorm: input rows differ from the layer's");
  xhat.resize(r, N);
  inv_std.resize(N);
  out.resize(r, N);
  const double rr = static_cast<double>(r);
  for (Index j = 0; j < N; ++j) {
    const double mu = Z.col(j).sum() / rr;
    xhat.col(j) = Z.col(j).array() - mu;
    const double var = xhat.col(j).squaredNorm() / rr;
    inv_std[j] = 1.0 / std::sqrt(var + eps);
    xhat.col(j) *= inv_std[j];
    out.col(j) = gamma.col(0).cwiseProduct(xhat.col(j)) + beta.col(0);
  }
}

void layer_norm_backward(const MatrixXd& gamma, const MatrixXd& xhat, const VectorXd& inv_std, MatrixXd& R,
                         MatrixXd* dgamma, MatrixXd* dbeta) {
  const Index r = R.rows(), N = R.cols();
  const double rr = static_cast<double>(r);
  for (Index j = 0; j < N; ++j) {
    auto dy = R.col(j);
    if (dgamma) dgamma->col(0) += dy.cwiseProduct(xhat.col(j));
    if (dbeta) dbeta->col(0) += dy;
    dy = dy.cwiseProduct(gamma.col(0));  // u
    const double mean_u = dy.sum() / rr;
    const double mean_ux = dy.dot(xhat.col(j)) / rr;
    dy = inv_std[j] * (dy.array() - mean_u - mean_ux * xhat.col(j).array()).matrix();
  }
}

LayerNorm::LayerNorm(Index rows, double eps_) : eps(eps_) { params_ = layer_norm_params(rows); }

void LayerNorm::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch&) const {
  layer_norm_forward(param(kGamma), param(kBeta), eps, Z, out, c.m[0], c.v[0]);
}

void LayerNorm::backward(const MatrixXd&, Cache& c, Scratch&, MatrixXd& R, Grads& g) const {
  layer_norm_backward(param(kGamma), c.m[0], c.v[0], R, g.want(kGamma) ? &g[kGamma] : nullptr,
                      g.want(kBeta) ? &g[kBeta] : nullptr);
}

}  // namespace icl::layers
