#include "icl/layers/linear.hpp"

#include <Eigen/Dense>

#include <stdexcept>
#include <string>

namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {
constexpr int kW = 0, kB = 1;
}

Linear::Linear(Index in, Index out, bool bias) {
  if (in <= 0 || out <= 0) throw std::invalid_argument("Linear: the row counts must be positive");
  add_param("W", out, in);
  if (bias) add_param("b", out, 1);
}

Index Linear::out_rows(Index rows) const {
  if (rows != in_rows())
    throw std::invalid_argument("Linear: input has " + std::to_string(rows) + " rows, the layer takes " +
                                std::to_string(in_rows()));
  return param(kW).rows();
}

void Linear::forward(const MatrixXd& Z, MatrixXd& out, Cache&, Scratch&) const {
  out_rows(Z.rows());  // shape check
  out.noalias() = param(kW) * Z;
  if (has_bias()) out.colwise() += param(kB).col(0);
}

void Linear::backward(const MatrixXd& Z, Cache&, Scratch& s, MatrixXd& R, Grads& g) const {
  if (g.want(kW)) g[kW].noalias() += R * Z.transpose();
  if (has_bias() && g.want(kB)) g[kB].col(0) += R.rowwise().sum();
  s.R2.noalias() = param(kW).transpose() * R;
  R.swap(s.R2);
}

}  // namespace icl::layers
