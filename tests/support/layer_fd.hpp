// The finite-difference check every layer type gets (tests/layers/): the adjoint of one layer against central
// differences, for every parameter entry and every input entry, on its full forward pass (the scalar
// sum(R .* out) for a random R) and on its query path (the prediction out(last, last) alone).
#pragma once
#include "icl/layers/layer.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

namespace icl::test {

// Central differences with step h = kFdStep * max(1, |w|); the adjoint must agree within kFdTol * (1 + |adjoint|)
// (truncation ~h^2, rounding ~1e-16 / h: both far below it).
constexpr double kFdStep = 1e-5;
constexpr double kFdTol = 1e-6;

// Every parameter of `layer` set to scale * N(0, 1) entries (stream seed).
inline void randomise_layer(layers::Layer& layer, double scale, std::uint64_t seed) {
  for (int p = 0; p < layer.param_count(); ++p) {
    auto& W = layer.param(p);
    W = scale * random_matrix(static_cast<int>(W.rows()), static_cast<int>(W.cols()), seed + 10 * static_cast<std::uint64_t>(p));
  }
}

// Every entry of X against central differences of f (each entry perturbed in place and restored): the adjoint's
// entry must agree within kFdTol * (1 + |adjoint|). `what` names X in the failure message. Returns X's size.
inline Eigen::Index check_entries(Eigen::MatrixXd& X, const Eigen::MatrixXd& adjoint, const std::function<double()>& f,
                                  const std::string& what) {
  for (Eigen::Index i = 0; i < X.rows(); ++i)
    for (Eigen::Index j = 0; j < X.cols(); ++j) {
      const double x0 = X(i, j), h = kFdStep * std::max(1.0, std::abs(x0));
      X(i, j) = x0 + h;
      const double fp = f();
      X(i, j) = x0 - h;
      const double fm = f();
      X(i, j) = x0;
      const double fd = (fp - fm) / (2 * h), ad = adjoint(i, j);
      INFO(what, "(", i, ",", j, "): adjoint ", ad, " finite difference ", fd);
      REQUIRE(std::abs(fd - ad) <= kFdTol * (1 + std::abs(ad)));
    }
  return X.size();
}

// Compares the analytic derivative of f with respect to every entry of every parameter and of Z with central
// differences of f; `grads` and `dZ` hold the adjoint's answer at the unperturbed point.
inline void compare_with_differences(layers::Layer& layer, Eigen::MatrixXd Z, const layers::Grads& grads,
                                     const Eigen::MatrixXd& dZ,
                                     const std::function<double(const layers::Layer&, const Eigen::MatrixXd&)>& f,
                                     const char* what) {
  const std::function<double()> at = [&] { return f(layer, Z); };
  const std::string prefix = std::string(layer.kind()) + " " + what + ": ";
  for (int p = 0; p < layer.param_count(); ++p)
    check_entries(layer.param(p), grads[p], at, prefix + "parameter " + layer.params()[static_cast<std::size_t>(p)].name);
  check_entries(Z, dZ, at, prefix + "input ");
}

// The whole check for one layer at input Z: full forward/backward and the query path.
inline void check_layer_adjoint(layers::Layer& layer, const Eigen::MatrixXd& Z, std::uint64_t seed) {
  layers::Scratch s;
  layers::Cache c;
  Eigen::MatrixXd out;
  layer.forward(Z, out, c, s);
  REQUIRE(out.rows() == layer.out_rows(Z.rows()));
  REQUIRE(out.cols() == Z.cols());
  const Eigen::MatrixXd Rout = random_matrix(static_cast<int>(out.rows()), static_cast<int>(out.cols()), seed + 999);
  {
    layers::Grads g = layer.make_grads();
    Eigen::MatrixXd R = Rout;
    layer.backward(Z, c, s, R, g);
    REQUIRE(R.rows() == Z.rows());
    REQUIRE(R.cols() == Z.cols());
    compare_with_differences(
        layer, Z, g, R,
        [&](const layers::Layer& l, const Eigen::MatrixXd& X) {
          layers::Scratch s2;
          layers::Cache c2;
          Eigen::MatrixXd o;
          l.forward(X, o, c2, s2);
          return (o.array() * Rout.array()).sum();
        },
        "full pass");
  }
  {
    layers::Cache cq;
    const double y = layer.forward_query(Z, cq, s);
    CHECK(y == doctest::Approx(out(out.rows() - 1, out.cols() - 1)).epsilon(1e-12));
    layers::Grads g = layer.make_grads();
    Eigen::MatrixXd R;
    layer.backward_query(Z, cq, s, 1.0, R, g);
    REQUIRE(R.rows() == Z.rows());
    REQUIRE(R.cols() == Z.cols());
    compare_with_differences(
        layer, Z, g, R,
        [](const layers::Layer& l, const Eigen::MatrixXd& X) {
          layers::Scratch s2;
          layers::Cache c2;
          return l.forward_query(X, c2, s2);
        },
        "query path");
  }
}

}  // namespace icl::test
