// Single-head softmax (or linear) attention on the prompt, xlssc eqs. (1), (3): Z + V Z phi(Z^T K Z + M), phi the
// column softmax (or the identity, "linear"), M the look-ahead mask when causal (token j sees tokens 0..j).
// Parameters: V, K (rows x rows).
// Adjoint: S = Z^T K Z, W = phi(S) (masked), C = Z W; dV = R C^T, dC = V^T R, dZ = R + dC W^T, dW = Z^T dC,
// dS = W .* (dW - 1 (1^T (W .* dW))) (softmax; linear: dS = dW), dK = Z dS Z^T, dZ += (K Z) dS^T + K^T Z dS.
// Query path: only the query column's scores (O(D N)).
//
// One layer type, layers::SoftmaxAttention (parameters "V", "K" by name): forward()/backward() for training, and the
// in-place apply() the Monte Carlo workers run (the last column alone for the last layer of a stack, running sums
// when K = 0 if allowed). A construction writes its weights as icl::SoftmaxAttention (a plain value; a stack turns
// it into this layer; its own apply() runs the same kernel on the values).
#pragma once
#include "icl/layers/layer.hpp"

#include <memory>

namespace icl {
struct SoftmaxAttention;
}

namespace icl::layers {

class SoftmaxAttention final : public LayerBase<SoftmaxAttention> {
public:
  static constexpr const char* kKind = "softmax";
  enum class Activation { softmax, linear };
  SoftmaxAttention(Eigen::Index rows, Activation activation = Activation::softmax, bool causal = true);
  explicit SoftmaxAttention(const icl::SoftmaxAttention& spec);
  Activation activation = Activation::softmax;
  bool causal = true;
  bool allow_uniform_shortcut = false;  // apply(): running sums when K == 0 (softmax only)
  icl::SoftmaxAttention spec() const;

  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const override;
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const override;
  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
  double forward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s) const override;
  void backward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, double dy, Eigen::MatrixXd& R,
                      Grads& g) const override;
};

}  // namespace icl::layers

namespace icl {

struct SoftmaxAttention {
  using Activation = layers::SoftmaxAttention::Activation;
  Eigen::MatrixXd V, K;  // (d+1) x (d+1)
  Activation activation = Activation::softmax;
  bool causal = true;
  bool allow_uniform_shortcut = true;  // use running sums when K == 0 (softmax only)
  // Z <- Z + V Z phi(...). With last_column_only, only the last column is updated (the others are
  // left as they were: use it only for the last layer of a stack).
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, bool last_column_only = false) const;
};

std::unique_ptr<layers::SoftmaxAttention> make_layer(const SoftmaxAttention& spec);

}  // namespace icl
