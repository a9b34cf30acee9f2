#include "icl/learn/network.hpp"

#include "icl/layers/bilinear.hpp"
#include "icl/layers/lsa.hpp"
#include "icl/layers/softmax_attention.hpp"

#include <stdexcept>

namespace icl::learn {

using Eigen::MatrixXd;

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

Network& Network::add_softmax(SoftmaxAttention::Activation act, bool causal) {
  const auto a = act == SoftmaxAttention::Activation::softmax ? layers::SoftmaxAttention::Activation::softmax
                                                              : layers::SoftmaxAttention::Activation::linear;
  return add(std::make_unique<layers::SoftmaxAttention>(rows, a, causal));
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

Transformer Network::to_transformer() const {
  Transformer t;
  for (const auto& l : layers) {
    if (const auto* a = dynamic_cast<const layers::Lsa*>(l.get()))
      t.layers.emplace_back(LinearSelfAttention{a->param("P"), a->param("Q"), a->masked, a->scale});
    else if (const auto* b = dynamic_cast<const layers::Bilinear*>(l.get()))
      t.layers.emplace_back(BilinearLayer{b->param("W0"), b->param("W1")});
    else
      throw std::invalid_argument(std::string("Network::to_transformer: a ") + l->kind() +
                                  " layer has no Transformer counterpart");
  }
  return t;
}

AttentionStack Network::to_attention_stack() const {
  AttentionStack a;
  for (const auto& l : layers) {
    const auto* s = dynamic_cast<const layers::SoftmaxAttention*>(l.get());
    if (!s)
      throw std::invalid_argument("Network::to_attention_stack: only softmax layers have an AttentionStack counterpart");
    SoftmaxAttention layer;
    layer.V = s->param("V");
    layer.K = s->param("K");
    layer.activation = s->activation == layers::SoftmaxAttention::Activation::softmax
                           ? SoftmaxAttention::Activation::softmax
                           : SoftmaxAttention::Activation::linear;
    layer.causal = s->causal;
    layer.allow_uniform_shortcut = false;
    a.layers.push_back(layer);
  }
  return a;
}

namespace {

void ensure_tape(const Network& net, Tape& t) {
  const std::size_t L = net.layers.size();
  if (t.Z.size() != L + 1) t.Z.resize(L + 1);
  if (t.cache.size() != L) t.cache.resize(L);
}

}  // namespace

void forward_full(const Network& net, Eigen::Ref<Eigen::MatrixXd> Z) {
  Tape t;
  ensure_tape(net, t);
  MatrixXd in = Z, out;
  for (int l = 0; l < net.size(); ++l) {
    net.layer(l).forward(in, out, t.cache[static_cast<std::size_t>(l)], t.scratch);
    in.swap(out);
  }
  if (in.rows() != Z.rows() || in.cols() != Z.cols())
    throw std::invalid_argument("learn::forward_full: the stack changes the shape of its input");
  Z = in;
}

double forward(const Network& net, const Eigen::Ref<const Eigen::MatrixXd>& Z, Tape& t) {
  if (Z.rows() != net.rows) throw std::invalid_argument("learn::forward: prompt rows differ from the network's");
  ensure_tape(net, t);
  const int last = net.last_effective();
  t.last = last;
  if (last < 0) return Z(Z.rows() - 1, Z.cols() - 1);
  t.Z[0] = Z;
  for (int l = 0; l < last; ++l) {
    const auto k = static_cast<std::size_t>(l);
    net.layer(l).forward(t.Z[k], t.Z[k + 1], t.cache[k], t.scratch);
  }
  const auto k = static_cast<std::size_t>(last);
  return net.layer(last).forward_query(t.Z[k], t.cache[k], t.scratch);
}

void backward(const Network& net, Tape& t, double dyhat, WeightGrads& g, Eigen::MatrixXd* dZ0) {
  const int last = t.last;
  if (last < 0) {
    if (dZ0) {
      dZ0->setZero(net.rows, dZ0->cols());
      (*dZ0)(net.rows - 1, dZ0->cols() - 1) = dyhat;
    }
    return;
  }
  const auto k = static_cast<std::size_t>(last);
  net.layer(last).backward_query(t.Z[k], t.cache[k], t.scratch, dyhat, t.adj, g.g[k]);
  for (int l = last - 1; l >= 0; --l) {
    const auto j = static_cast<std::size_t>(l);
    net.layer(l).backward(t.Z[j], t.cache[j], t.scratch, t.adj, g.g[j]);
  }
  if (dZ0) *dZ0 = t.adj;
}

}  // namespace icl::learn
