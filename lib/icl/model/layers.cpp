#include "icl/model/layers.hpp"

#include "icl/model/prompt.hpp"

namespace icl {

double Transformer::predict(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  for (std::size_t k = 0; k < layers.size(); ++k) {
    if (k + 1 < layers.size()) std::visit([&](const auto& l) { l.apply(Z, ws); }, layers[k]);
    else std::visit([&](const auto& l) { l.apply_query(Z, ws); }, layers[k]);
  }
  return prediction(Z);
}

void Transformer::forward(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
                          const std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)>* observe) const {
  int k = 0;
  for (const auto& layer : layers) {
    std::visit([&](const auto& l) { l.apply(Z, ws); }, layer);
    if (observe) (*observe)(++k, Z);
  }
}


}  // namespace icl
