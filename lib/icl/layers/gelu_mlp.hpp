// GPT-2's feed-forward sublayer (HF GPT2MLP: c_fc, gelu_new, c_proj; hidden = 4 rows in GPT-2), no residual
// (see residual_blocks.hpp):
//   A = W1 Z + b1 1^T (hidden x N),  H = gelu(A),  out = W2 H + b2 1^T (rows x N),
// gelu the tanh approximation GPT-2 uses (HF "gelu_new"):
//   gelu(x) = x/2 (1 + tanh(c (x + k x^3))),  c = sqrt(2/pi), k = 0.044715,
//   gelu'(x) = (1 + t)/2 + x/2 (1 - t^2) c (1 + 3 k x^2),  t = tanh(c (x + k x^3)).
// Parameters: W1 (hidden x rows), b1 (hidden x 1), W2 (rows x hidden), b2 (rows x 1).
// Adjoint, R = dL/d(out): dW2 = R H^T, db2 = R 1, dA = (W2^T R) .* gelu'(A), dW1 = dA Z^T, db1 = dA 1,
// dZ = W1^T dA. The mathematics is in the free functions below, shared with residual_blocks.hpp.
#pragma once
#include "icl/layers/layer.hpp"

namespace icl::layers {

double gelu_tanh(double x);
double gelu_tanh_derivative(double x);

// GeluMlp's parameters in order (all zero), named without prefix.
std::vector<Param> gelu_mlp_params(Eigen::Index rows, Eigen::Index hidden);

struct GeluMlpWeights {
  const Eigen::MatrixXd &W1, &b1, &W2, &b2;
};
struct GeluMlpGrads {  // accumulators; null: not wanted
  Eigen::MatrixXd *W1, *b1, *W2, *b2;
};

// out = W2 gelu(W1 Z + b1) + b2; keeps G = gelu'(A) and H = gelu(A) for the adjoint (both from one tanh per entry,
// the same formulas as gelu_tanh and gelu_tanh_derivative).
void gelu_mlp_forward(const GeluMlpWeights& w, const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Eigen::MatrixXd& G,
                      Eigen::MatrixXd& H);
// R: dL/d(out) on entry, dL/dZ on exit. G, H: as gelu_mlp_forward left them. Uses s.H.
void gelu_mlp_backward(const GeluMlpWeights& w, const Eigen::MatrixXd& Z, const Eigen::MatrixXd& G,
                       const Eigen::MatrixXd& H, Scratch& s, Eigen::MatrixXd& R, const GeluMlpGrads& g);

class GeluMlp final : public LayerBase<GeluMlp> {
public:
  static constexpr const char* kKind = "gelu_mlp";
  GeluMlp(Eigen::Index rows, Eigen::Index hidden);

  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
};

}  // namespace icl::layers
