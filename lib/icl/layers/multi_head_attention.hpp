// GPT-2's multi-head self-attention (HF GPT2Attention: c_attn, causal mask, c_proj), no residual (see
// residual_blocks.hpp). Xing et al. eq. (3) with the biases GPT-2 has; rows p, h heads of m = p/h rows each:
//   Q = Wq Z + bq 1^T,  K = Wk Z + bk 1^T,  V = Wv Z + bv 1^T            (p x N each),
//   per head a (rows a m .. a m + m - 1 of Q, K, V):
//     S_a = K_a^T Q_a / sqrt(m)   (N x N; S_ij: key i, query j),
//     W_a = phi(S_a + M),  phi the column softmax, M_ij = -inf when causal and i > j (key i visible to query j
//                          iff i <= j), 0 otherwise,
//     C_a = V_a W_a            (m x N),
//   C = [C_1; ...; C_h] (the heads' rows concatenated),  out = Wo C + bo 1^T.
// Parameters: Wq, bq, Wk, bk, Wv, bv, Wo, bo (p x p and p x 1). Throws std::invalid_argument when p % h != 0.
// Adjoint, R = dL/d(out): dWo = R C^T, dbo = R 1, dC = Wo^T R; per head dV_a = dC_a W_a^T, dW_a = V_a^T dC_a,
//   dS_a = W_a .* (dW_a - 1 (1^T (W_a .* dW_a))) / sqrt(m)   (column softmax; masked entries have W = 0),
//   dQ_a = K_a dS_a, dK_a = Q_a dS_a^T;
// dWx = dX Z^T, dbx = dX 1 (x = q, k, v), dZ = Wq^T dQ + Wk^T dK + Wv^T dV.
// The mathematics is in the free functions below, shared with residual_blocks.hpp.
#pragma once
#include "icl/layers/layer.hpp"

namespace icl::layers {

// MultiHeadAttention's parameters in order (all zero), named without prefix; checks rows % heads == 0.
std::vector<Param> multi_head_attention_params(Eigen::Index rows, Eigen::Index heads);

struct MhaWeights {
  const Eigen::MatrixXd &Wq, &bq, &Wk, &bk, &Wv, &bv, &Wo, &bo;
};
struct MhaGrads {  // accumulators; null: not wanted
  Eigen::MatrixXd *Wq, *bq, *Wk, *bk, *Wv, *bv, *Wo, *bo;
};

// out = MHA(Z); keeps QKV = [Q; K; V] (3p x N), the attention weights Wt = [W_1 ... W_h] (N x hN) and C (p x N).
// Uses s.S.
void mha_forward(const MhaWeights& w, Eigen::Index heads, bool causal, const Eigen::MatrixXd& Z,
                 Eigen::MatrixXd& out, Eigen::MatrixXd& QKV, Eigen::MatrixXd& Wt, Eigen::MatrixXd& C, Scratch& s);
// R: dL/d(out) on entry, dL/dZ on exit. Uses s.F, s.H, s.S, s.dS.
void mha_backward(const MhaWeights& w, Eigen::Index heads, const Eigen::MatrixXd& Z, const Eigen::MatrixXd& QKV,
                  const Eigen::MatrixXd& Wt, const Eigen::MatrixXd& C, Scratch& s, Eigen::MatrixXd& R,
                  const MhaGrads& g);

class MultiHeadAttention final : public LayerBase<MultiHeadAttention> {
public:
  static constexpr const char* kKind = "multi_head_attention";
  MultiHeadAttention(Eigen::Index rows, Eigen::Index heads, bool causal = true);
  Eigen::Index heads() const { return heads_; }
  bool causal = true;

  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;

private:
  Eigen::Index heads_;
};

}  // namespace icl::layers
