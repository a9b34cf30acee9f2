// The reverse-mode gradient of a stack of layers (layers/network.hpp; each layer type owns its named parameters,
// forward pass and adjoint).
//
// The layers the papers train: lsa (layers/lsa.hpp: P, Q), bilinear (layers/bilinear.hpp: W0, W1), softmax
// (layers/softmax_attention.hpp: V, K); the GPT-2 pieces of layers/ stack the same way. forward() here is the
// layers' forward()/forward_query() (what the adjoint needs); Network::predict is their in-place apply() (tests
// check the two give the same outputs to rounding).
// The prediction is the last entry of the last layer's output; the per-prompt loss is model/loss.hpp's.
//
// Only the prediction matters, so the last layer that can change it runs its query path (for lsa on the query
// column alone, its adjoint starting from the single entry dL/dyhat: O(D N) instead of O(D^2 N)); the layers after
// it (writes_prediction() false: bilinear) are skipped. Tests (tests/learn/, tests/layers/) check every layer and
// stacks against central finite differences.
#pragma once
#include "icl/layers/layer.hpp"
#include "icl/layers/network.hpp"

#include <Eigen/Dense>

#include <string>
#include <string_view>
#include <vector>

namespace icl {

// Stored activations and scratch for one prompt; one per thread, sized on first use, no allocation after.
struct Tape {
  std::vector<Eigen::MatrixXd> Z;      // Z[l]: the input of layer l
  std::vector<layers::Cache> cache;    // what layer l's adjoint needs
  layers::Scratch scratch;
  Eigen::MatrixXd adj;                 // the running adjoint dL/dZ during backward()
  int last = -1;
};

// Forward pass of the whole stack on Z (Z becomes the full output of every layer; its shape must not change).
void forward_full(const Network& net, Eigen::Ref<Eigen::MatrixXd> Z);
// Forward pass storing what the backward pass needs; returns the prediction. Z is not modified.
double forward(const Network& net, const Eigen::Ref<const Eigen::MatrixXd>& Z, Tape& tape);
// Backward pass after forward(): adds dyhat * d(yhat)/d(weights) into grads (wanted parameters only). If dZ0 is
// given it receives d(yhat)/dZ * dyhat (the gradient with respect to the prompt, for tests).
void backward(const Network& net, Tape& tape, double dyhat, WeightGrads& grads, Eigen::MatrixXd* dZ0 = nullptr);

}  // namespace icl
