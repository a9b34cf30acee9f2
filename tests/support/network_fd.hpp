// The finite-difference check of a whole network (layers/backprop.hpp): the adjoint of its prediction against central
// differences of icl::forward, for every parameter entry of every layer and every prompt entry.
#pragma once
#include "icl/layers/backprop.hpp"
#include "tests/support/layer_fd.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

namespace icl::test {

inline double network_prediction(const icl::Network& net, const Eigen::MatrixXd& Z) {
  icl::Tape t;
  return icl::forward(net, Z, t);
}

// Returns the number of parameter entries checked; *dZ_out (if given) receives the adjoint with respect to Z.
inline int check_network_gradients(icl::Network net, const Eigen::MatrixXd& Z, Eigen::MatrixXd* dZ_out = nullptr) {
  icl::Tape tape;
  icl::forward(net, Z, tape);
  icl::WeightGrads g = net.make_grads();
  Eigen::MatrixXd dZ(Z.rows(), Z.cols());
  icl::backward(net, tape, 1.0, g, &dZ);
  const std::function<double()> at = [&] { return network_prediction(net, Z); };
  int checked = 0;
  for (int l = 0; l < net.size(); ++l)
    for (int s = 0; s < net.layer(l).param_count(); ++s)
      checked += static_cast<int>(check_entries(net.layer(l).param(s), g.g[static_cast<std::size_t>(l)][s], at,
                                                "layer " + std::to_string(l) + " (" + net.layer(l).kind() + ") " +
                                                    net.layer(l).params()[static_cast<std::size_t>(s)].name));
  Eigen::MatrixXd Zp = Z;
  const std::function<double()> at_prompt = [&] { return network_prediction(net, Zp); };
  check_entries(Zp, dZ, at_prompt, "prompt entry ");
  if (dZ_out) *dZ_out = dZ;
  return checked;
}

}  // namespace icl::test
