// A stack of layers (any types of this folder), the one model type of the library: the papers' constructions
// (built from their weights: Network{{LinearSelfAttention{P, Q}, BilinearLayer{W0, W1}, ...}}), the trained
// networks of learn/ and the GPT-2-style models are all Networks, and every forward pass runs through the layers'
// own functions: forward()/backward() for training and the executor (layers/backprop.hpp), apply()/apply_query() in
// place for the Monte Carlo workers (forward() and predict() below).
//
// The prediction is the last entry of the last layer's output (the query column's label row).
#pragma once
#include "icl/layers/bilinear.hpp"
#include "icl/layers/layer.hpp"
#include "icl/layers/lsa.hpp"
#include "icl/layers/softmax_attention.hpp"
#include "icl/layers/workspace.hpp"

#include <Eigen/Core>

#include <functional>
#include <string_view>
#include <vector>

namespace icl {

// Per-layer gradient accumulators (g[l][p]: layer l's parameter p); a parameter is only touched when wanted.
struct WeightGrads {
  std::vector<layers::Grads> g;
  void zero();
};

struct Network {
  int rows = 0;  // D: prompt rows (the label row last); 0 where a construction lists its layers directly
  std::vector<layers::LayerPtr> layers;

  int size() const { return static_cast<int>(layers.size()); }
  layers::Layer& layer(int l) { return *layers[static_cast<std::size_t>(l)]; }
  const layers::Layer& layer(int l) const { return *layers[static_cast<std::size_t>(l)]; }
  // Layer l's parameter `name` ("P", "Q", "W0", ...); throws if it has none.
  Eigen::MatrixXd& weight(int l, std::string_view name) { return layer(l).param(name); }
  const Eigen::MatrixXd& weight(int l, std::string_view name) const { return layer(l).param(name); }
  // Layer l as type L (layers::Lsa, layers::Bilinear, ...); throws std::invalid_argument naming both kinds if not.
  template <class L>
  const L& layer_as(int l) const {
    const auto* p = dynamic_cast<const L*>(&layer(l));
    if (!p) wrong_kind(l, L::kKind);
    return *p;
  }
  // Appends a layer (any type of layers/, or a construction's weights); returns *this.
  Network& add(layers::LayerPtr layer);
  // Appends a layer with zero weights of the right shape (needs rows).
  Network& add_lsa(bool masked = true, double scale = 0.0);
  Network& add_bilinear();
  Network& add_softmax(layers::SoftmaxAttention::Activation act = layers::SoftmaxAttention::Activation::softmax,
                       bool causal = true);
  // The first k layers (the intermediate predictions of sja Thm. 7 / App. I).
  Network truncated(int k) const;
  // The last layer that can change the prediction (-1 if none).
  int last_effective() const;
  WeightGrads make_grads(bool all = true) const;

  // In place, nothing kept for an adjoint: every layer's apply(). `observe`, if set, sees Z after each layer
  // (index from 1).
  void forward(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
               const std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)>* observe = nullptr) const;
  // The prediction alone (the prediction after forward(), bit for bit): every layer but the last runs on the whole
  // prompt, the last on the query column only (apply_query()), so Z's other columns are left as the last layer's
  // input. The Monte Carlo loss workers use it.
  double predict(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;

private:
  [[noreturn]] void wrong_kind(int l, const char* wanted) const;
};

// The papers call a stack of attention and feed-forward layers a Transformer.
using Transformer = Network;

}  // namespace icl
