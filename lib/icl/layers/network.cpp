#include "icl/layers/network.hpp"

#include "icl/layers/bilinear.hpp"
#include "icl/layers/lsa.hpp"

#include <stdexcept>
#include <string>

namespace icl {

void WeightGrads::zero() {
  for (auto& l : g) l.zero();
}

Network& Network::add(layers::LayerPtr layer) {
  if (!layer.get()) throw std::invalid_argument("Network::add: no layer");
  layers.push_back(std::move(layer));
  return *this;
}

Network& Network::add_lsa(bool masked, double scale) { return add(std::make_unique<layers::Lsa>(rows, masked, scale)); }

Network& Network::add_bilinear() { return add(std::make_unique<layers::Bilinear>(rows)); }

Network& Network::add_softmax(layers::SoftmaxAttention::Activation act, bool causal) {
  return add(std::make_unique<layers::SoftmaxAttention>(rows, act, causal));
}

Network Network::truncated(int k) const {
  if (k < 0 || k > size()) throw std::invalid_argument("Network::truncated: depth out of range");
  Network n;
  n.rows = rows;
  n.layers.assign(layers.begin(), layers.begin() + k);
  return n;
}

int Network::last_effective() const {
  for (int l = size() - 1; l >= 0; --l)
    if (layer(l).writes_prediction()) return l;
  return -1;
}

WeightGrads Network::make_grads(bool all) const {
  WeightGrads g;
  for (const auto& l : layers) g.g.push_back(l->make_grads(all));
  return g;
}

void Network::wrong_kind(int l, const char* wanted) const {
  throw std::invalid_argument("layer " + std::to_string(l) + " of the stack is a " + layer(l).kind() +
                              " layer, not a " + wanted + " layer");
}

double Network::predict(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  for (std::size_t k = 0; k < layers.size(); ++k) {
    if (k + 1 < layers.size()) layers[k]->apply(Z, ws);
    else layers[k]->apply_query(Z, ws);
  }
  return Z(Z.rows() - 1, Z.cols() - 1);
}

void Network::forward(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
                      const std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)>* observe) const {
  int k = 0;
  for (const auto& layer : layers) {
    layer->apply(Z, ws);
    if (observe) (*observe)(++k, Z);
  }
}

}  // namespace icl
