// Stacks of dense LSA (and bilinear) or softmax attention layers with random weights, for the tests of the executor's backends
// (tests/execute/test_portable.cpp, test_portable_backend.cpp, tests/gpu/cuda_equality.cpp).
#pragma once
#include "icl/layers/network.hpp"
#include "icl/model/rng.hpp"

#include <Eigen/Core>

#include <cstdint>

namespace icl::test {

// Every weight of every layer N(0, sd^2) (bilinear layers' W0, W1: N(0, (sd/2)^2)), layer l's from PromptRng(seed,
// 99, l).
inline void fill_random_weights(Network& net, std::uint64_t seed, double sd) {
  for (int l = 0; l < net.size(); ++l) {
    PromptRng rng(seed, 99, static_cast<std::uint64_t>(l));
    for (const auto& p : net.layer(l).params()) {
      Eigen::MatrixXd& W = net.weight(l, p.name);
      rng.fill_normal(W);
      W *= p.name[0] == 'W' ? sd / 2 : sd;
    }
  }
}

// `layers` dense LSA layers (masked or not, scale as Lsa's) with N(0, sd^2) weights drawn from a fixed generator
// (layer l's from PromptRng(seed, 99, l)); with `bilinear`, a bilinear layer before each LSA layer and one after the
// last (which cannot change the prediction), its weights N(0, (sd/2)^2).
inline Network random_lsa_stack(int rows, int layers, bool masked, double scale, std::uint64_t seed, double sd,
                                bool bilinear = false) {
  Network net;
  net.rows = rows;
  for (int l = 0; l < layers; ++l) {
    if (bilinear) net.add_bilinear();
    net.add_lsa(masked, scale);
  }
  if (bilinear) net.add_bilinear();
  fill_random_weights(net, seed, sd);
  return net;
}

// `layers` softmax attention layers (phi `act`, causal or not); with `lsa`, a dense masked LSA layer (scale 1/n)
// first; weights N(0, sd^2) as random_lsa_stack draws them.
inline Network random_softmax_stack(int rows, int layers, layers::SoftmaxAttention::Activation act, bool causal,
                                    std::uint64_t seed, double sd, bool lsa = false) {
  Network net;
  net.rows = rows;
  if (lsa) net.add_lsa();
  for (int l = 0; l < layers; ++l) net.add_softmax(act, causal);
  fill_random_weights(net, seed, sd);
  return net;
}

}  // namespace icl::test
