#include "icl/layers/positional.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>
#include <string>

namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

MatrixXd sincos_positional_table(Index rows, Index tokens, double lambda, bool vaswani) {
  MatrixXd E(rows, tokens);
  const double p = static_cast<double>(rows);
  for (Index k = 0; k < rows; ++k) {
    const double i = static_cast<double>(k / 2 + (vaswani ? 0 : 1));  // formula (2)'s i (1-based) or i - 1
    const double freq = std::pow(lambda, -2.0 * i / p);
    for (Index t = 0; t < tokens; ++t) {
      const double x = static_cast<double>(t) * freq;
      E(k, t) = k % 2 == 0 ? std::sin(x) : std::cos(x);
    }
  }
  return E;
}

PositionalEncoding::PositionalEncoding(Index rows, Index max_tokens, Kind kind, double lambda)
    : rows_(rows), max_tokens_(max_tokens), kind_(kind), lambda_(lambda) {
  if (rows <= 0 || max_tokens <= 0)
    throw std::invalid_argument("PositionalEncoding: rows and max_tokens must be positive");
  if (kind == Kind::trainable) add_param("E", rows, max_tokens);
  if (kind == Kind::sincos || kind == Kind::sincos_vaswani) {
    if (!(lambda > 0)) throw std::invalid_argument("PositionalEncoding: Lambda must be positive");
    fixed_ = sincos_positional_table(rows, max_tokens, lambda, kind == Kind::sincos_vaswani);
  }
}

MatrixXd PositionalEncoding::table() const {
  switch (kind_) {
    case Kind::trainable: return param(0);
    case Kind::sincos:
    case Kind::sincos_vaswani: return fixed_;
    case Kind::none: break;
  }
  return MatrixXd::Zero(rows_, max_tokens_);
}

void PositionalEncoding::check(const MatrixXd& Z) const {
  if (Z.rows() != rows_)
    throw std::invalid_argument("PositionalEncoding: input has " + std::to_string(Z.rows()) + " rows, the layer " +
                                std::to_string(rows_));
  if (Z.cols() > max_tokens_)
    throw std::invalid_argument("PositionalEncoding: " + std::to_string(Z.cols()) + " tokens, at most " +
                                std::to_string(max_tokens_));
}

void PositionalEncoding::forward(const MatrixXd& Z, MatrixXd& out, Cache&, Scratch&) const {
  check(Z);
  out = Z;
  if (kind_ == Kind::trainable) out += param(0).leftCols(Z.cols());
  else if (kind_ != Kind::none) out += fixed_.leftCols(Z.cols());
}

void PositionalEncoding::backward(const MatrixXd&, Cache&, Scratch&, MatrixXd& R, Grads& g) const {
  if (kind_ == Kind::trainable && g.want(0)) g[0].leftCols(R.cols()) += R;
}

}  // namespace icl::layers
