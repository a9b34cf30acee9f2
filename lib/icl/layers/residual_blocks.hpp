// The two pre-LayerNorm residual sublayers of a GPT-2 block (HF GPT2Block: x + attn(ln_1(x)), then
// x + mlp(ln_2(x))), each one layer owning all its parameters:
//   AttentionBlock(p, h, causal):  out = Z + MHA(LN(Z)),  Y = LN(Z) (layer_norm.hpp), MHA (multi_head_attention.hpp)
//   MlpBlock(p, hidden):           out = Z + MLP(LN(Z)),  MLP = W2 gelu(W1 Y + b1) + b2 (gelu_mlp.hpp)
// Parameters, the pieces' own in their order with a prefix: AttentionBlock "ln.gamma", "ln.beta", "attn.Wq",
// "attn.bq", "attn.Wk", "attn.bk", "attn.Wv", "attn.bv", "attn.Wo", "attn.bo"; MlpBlock "ln.gamma", "ln.beta",
// "mlp.W1", "mlp.b1", "mlp.W2", "mlp.b2" (gamma initialised to ones, the rest zero).
// Adjoint, R = dL/d(out): dZ = R + LN^T(f^T(R)), f^T the branch piece's adjoint (its formulas in its header), LN^T
// LayerNorm's, both at Y and Z; the parameter gradients are the pieces'.
//
// Design. A block computes through the same free functions as the single-piece layers LayerNorm,
// MultiHeadAttention and GeluMlp (layer_norm_forward/backward, mha_forward/backward, gelu_mlp_forward/backward,
// each taking its weight matrices by reference): one implementation of each piece's mathematics. A generic
// Residual(std::vector<LayerPtr> inner) was rejected because with the current Layer interface it cannot both
//   - expose the inner parameters through Layer::param(name) / param(i) (non-virtual, reading this layer's own
//     params_), which parameterisations and optimisers write into, and
//   - run the inner layers, whose forward()/backward() read the inner layers' own params_:
// keeping two copies goes stale after a write into residual.param("1.Wq"); copying them into the inner layers
// inside forward() mutates shared state in a const function that several threads call concurrently; building
// inner layers per call allocates on every prompt. A generic Residual needs a hook in Layer so that a layer's
// parameter storage can be addressed through a composite (see the report of this change), not available here.
//
// Cache: m[0] = Y = LN(Z), m[1] = xhat, v[0] = LayerNorm's 1/std; AttentionBlock m[2..4] = [Q; K; V], attention
// weights, C (c.m grows to 5); MlpBlock m[2], m[3] = gelu'(A), H (gelu_mlp_forward). Backward uses s.M1 for the
// branch adjoint, besides the scratch the pieces use (s.F, s.H, s.S, s.dS).
#pragma once
#include "icl/layers/layer.hpp"

namespace icl::layers {

class AttentionBlock final : public LayerBase<AttentionBlock> {
public:
  static constexpr const char* kKind = "attention_block";
  AttentionBlock(Eigen::Index rows, Eigen::Index heads, bool causal = true, double ln_eps = 1e-5);
  Eigen::Index heads() const { return heads_; }
  bool causal = true;
  double ln_eps = 1e-5;

  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;

private:
  Eigen::Index heads_;
};

class MlpBlock final : public LayerBase<MlpBlock> {
public:
  static constexpr const char* kKind = "mlp_block";
  MlpBlock(Eigen::Index rows, Eigen::Index hidden, double ln_eps = 1e-5);
  double ln_eps = 1e-5;

  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
};

}  // namespace icl::layers
