// Layer normalisation over the features of each token (torch.nn.LayerNorm(rows, eps), GPT-2's ln_1, ln_2, ln_f):
// for each column z (r rows)
//   mu = (1/r) 1^T z,  var = (1/r) |z - mu 1|^2 (biased),  s = 1 / sqrt(var + eps),  xhat = s (z - mu 1),
//   out = gamma .* xhat + beta.
// Parameters: gamma (r x 1, initialised to ones), beta (r x 1, zeros).
// Adjoint, per column with dy = dL/d(out) and u = gamma .* dy:
//   dgamma += dy .* xhat,  dbeta += dy,  dz = s (u - mean(u) 1 - mean(u .* xhat) xhat).
// The mathematics is in the free functions below, shared with the residual blocks (residual_blocks.hpp).
#pragma once
#include "icl/layers/layer.hpp"

namespace icl::layers {

// LayerNorm's parameters in order (gamma = ones, beta = zeros), named without prefix.
std::vector<Param> layer_norm_params(Eigen::Index rows);

// out = LN(Z); keeps xhat (r x N) and inv_std (s of each column) for the adjoint.
void layer_norm_forward(const Eigen::MatrixXd& gamma, const Eigen::MatrixXd& beta, double eps,
                        const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Eigen::MatrixXd& xhat,
                        Eigen::VectorXd& inv_std);
// R: dL/d(out) on entry, dL/dZ on exit (in place, no scratch). dgamma / dbeta: accumulators, or null.
void layer_norm_backward(const Eigen::MatrixXd& gamma, const Eigen::MatrixXd& xhat, const Eigen::VectorXd& inv_std,
                         Eigen::MatrixXd& R, Eigen::MatrixXd* dgamma, Eigen::MatrixXd* dbeta);

class LayerNorm final : public LayerBase<LayerNorm> {
public:
  static constexpr const char* kKind = "layer_norm";
  explicit LayerNorm(Eigen::Index rows, double eps = 1e-5);
  double eps = 1e-5;

  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
};

}  // namespace icl::layers
