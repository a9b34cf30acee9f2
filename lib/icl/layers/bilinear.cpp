#include "icl/layers/bilinear.hpp"

#include <Eigen/Dense>

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
