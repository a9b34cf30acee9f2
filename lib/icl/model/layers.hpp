// A construction as a stack of layers, and its forward pass. Real matrix arithmetic on the whole prompt: every
// weight of a construction is exercised, nothing is replaced by the closed form it is supposed to compute. The
// layers are the construction forms of lib/icl/layers/ (lsa.hpp: LinearSelfAttention, LinearAttentionHeads;
// bilinear.hpp: BilinearLayer), run in place.
#pragma once
#include "icl/layers/bilinear.hpp"
#include "icl/layers/lsa.hpp"

#include <Eigen/Dense>

#include <functional>
#include <variant>
#include <vector>

namespace icl {

using Layer = std::variant<LinearSelfAttention, BilinearLayer, LinearAttentionHeads>;

// A stack of layers applied in order. `observe`, if set, sees Z after each layer (index from 1).
struct Transformer {
  std::vector<Layer> layers;
  void forward(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
               const std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)>* observe = nullptr) const;
  // The prediction alone (prediction(Z) after forward(), bit for bit): every layer but the last runs on
  // the whole prompt, the last on the query column only (the prediction reads nothing else), so Z's
  // other columns are left as the last layer's input. Monte Carlo loss workers use it.
  double predict(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
};

}  // namespace icl
