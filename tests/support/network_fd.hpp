// The finite-difference check of a whole network (learn/network.hpp): the adjoint of its prediction against central
// differences of learn::forward, for every parameter entry of every layer and every prompt entry.
#pragma once
#include "icl/learn/network.hpp"
#include "tests/support/layer_fd.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

namespace icl::test {

inline double network_prediction(const learn::Network& net, const Eigen::MatrixXd& Z) {
  learn::Tape t;
  return learn::forward(net, Z, t);
}

// Returns the number of parameter entries checked; *dZ_out (if given) receives the adjoint with respect to Z.
inline int check_network_gradients(learn::Network net, const Eigen::MatrixXd& Z, Eigen::MatrixXd* dZ_out = nullptr) {
  learn::Tape tape;
  learn::forward(net, Z, tape);
  learn::WeightGrads g = net.make_grads();
  Eigen::MatrixXd dZ(Z.rows(), Z.cols());
  learn::backward(net, tape, 1.0, g, &dZ);
  int checked = 0;
  for (int l = 0; l < net.size(); ++l)
    for (int s = 0; s < net.layer(l).param_count(); ++s) {
      Eigen::MatrixXd& W = net.layer(l).param(s);
      for (Eigen::Index i = 0; i < W.rows(); ++i)
        for (Eigen::Index j = 0; j < W.cols(); ++j) {
          const double w0 = W(i, j), h = kFdStep * std::max(1.0, std::abs(w0));
          W(i, j) = w0 + h;
          const double fp = network_prediction(net, Z);
          W(i, j) = w0 - h;
          const double fm = network_prediction(net, Z);
          W(i, j) = w0;
          const double fd = (fp - fm) / (2 * h), ad = g.g[static_cast<std::size_t>(l)][s](i, j);
          INFO("layer ", l, " (", net.layer(l).kind(), ") ", net.layer(l).params()[static_cast<std::size_t>(s)].name,
               "(", i, ",", j, "): adjoint ", ad, " finite difference ", fd);
          REQUIRE(std::abs(fd - ad) <= kFdTol * (1 + std::abs(ad)));
          ++checked;
        }
    }
  Eigen::MatrixXd Zp = Z;
  for (Eigen::Index i = 0; i < Z.rows(); ++i)
    for (Eigen::Index j = 0; j < Z.cols(); ++j) {
      const double z0 = Z(i, j), h = kFdStep * std::max(1.0, std::abs(z0));
      Zp(i, j) = z0 + h;
      const double fp = network_prediction(net, Zp);
      Zp(i, j) = z0 - h;
      const double fm = network_prediction(net, Zp);
      Zp(i, j) = z0;
      const double fd = (fp - fm) / (2 * h);
      INFO("prompt entry (", i, ",", j, "): adjoint ", dZ(i, j), " finite difference ", fd);
      REQUIRE(std::abs(fd - dZ(i, j)) <= kFdTol * (1 + std::abs(dZ(i, j))));
    }
  if (dZ_out) *dZ_out = dZ;
  return checked;
}

}  // namespace icl::test
