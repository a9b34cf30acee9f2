#include "icl/layers/gelu_mlp.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {
constexpr int kW1 = 0, kB1 = 1, kW2 = 2, kB2 = 3;
const double kC = std::sqrt(2.0 / std::numbers::pi);
constexpr double kK = 0.044715;
}  // namespace

double gelu_tanh(double x) { return 0.5 * x * (1.0 + std::tanh(kC * (x + kK * x * x * x))); }

double gelu_tanh_derivative(double x) {
  const double t = std::tanh(kC * (x + kK * x * x * x));
  return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kC * (1.0 + 3.0 * kK * x * x);
}

std::vector<Param> gelu_mlp_params(Index rows, Index hidden) {
  if (rows <= 0 || hidden <= 0) throw std::invalid_argument("GeluMlp: the row counts must be positive");
  return {{"W1", MatrixXd::Zero(hidden, rows)},
          {"b1", MatrixXd::Zero(hidden, 1)},
          {"W2", MatrixXd::Zero(rows, hidden)},
          {"b2", MatrixXd::Zero(rows, 1)}};
}

void gelu_mlp_forward(const GeluMlpWeights& w, const MatrixXd& Z, MatrixXd& out, MatrixXd& G, MatrixXd& H) {
  if (Z.rows() != w.W1.cols()) throw std::invalid_argument("GeluMlp: input rows differ from the layer's");
  G.noalias() = w.W1 * Z;
  G.colwise() += w.b1.col(0);
  H.resize(G.rows(), G.cols());
  // One tanh per entry for both gelu(A) and gelu'(A) (the adjoint's factor, kept in place of A).
  double* g = G.data();
  double* h = H.data();
  for (Index i = 0; i < G.size(); ++i) {
    const double x = g[i];
    const double t = std::tanh(kC * (x + kK * x * x * x));
    h[i] = 0.5 * x * (1.0 + t);
    g[i] = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * kC * (1.0 + 3.0 * kK * x * x);
  }
  out.noalias() = w.W2 * H;
  out.colwise() += w.b2.col(0);
}

void gelu_mlp_backward(const GeluMlpWeights& w, const MatrixXd& Z, const MatrixXd& G, const MatrixXd& H, Scratch& s,
                       MatrixXd& R, const GeluMlpGrads& g) {
  if (g.W2) g.W2->noalias() += R * H.transpose();
  if (g.b2) g.b2->col(0) += R.rowwise().sum();
  MatrixXd& dA = s.H;
  dA.noalias() = w.W2.transpose() * R;
  dA.array() *= G.array();
  if (g.W1) g.W1->noalias() += dA * Z.transpose();
  if (g.b1) g.b1->col(0) += dA.rowwise().sum();
  R.noalias() = w.W1.transpose() * dA;
}

GeluMlp::GeluMlp(Index rows, Index hidden) { params_ = gelu_mlp_params(rows, hidden); }

void GeluMlp::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch&) const {
  gelu_mlp_forward({param(kW1), param(kB1), param(kW2), param(kB2)}, Z, out, c.m[0], c.m[1]);
}

void GeluMlp::backward(const MatrixXd& Z, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  const auto want = [&g](int p) { return g.want(p) ? &g[p] : nullptr; };
  gelu_mlp_backward({param(kW1), param(kB1), param(kW2), param(kB2)}, Z, c.m[0], c.m[1], s, R,
                    {want(kW1), want(kB1), want(kW2), want(kB2)});
}

}  // namespace icl::layers
