// Affine token map (torch.nn.Linear applied to every token): out = W Z + b 1^T, one column per token. Garg et
// al.'s in-context-learning model uses it twice: the read-in (`_read_in`, (d+1) -> p, the embedding M_in of
// Xing et al. Sec. 3) and the read-out (`_read_out`, p -> 1, whose last-column entry is the prediction).
// Parameters: W (out x in), b (out x 1, only when `bias`).
// Adjoint, R = dL/d(out) (out x N): dW = R Z^T, db = R 1, dZ = W^T R (in x N: the layer changes the row count).
#pragma once
#include "icl/layers/layer.hpp"

namespace icl::layers {

class Linear final : public LayerBase<Linear> {
public:
  static constexpr const char* kKind = "linear";
  Linear(Eigen::Index in_rows, Eigen::Index out_rows, bool bias = true);
  Eigen::Index in_rows() const { return param(0).cols(); }
  bool has_bias() const { return param_count() == 2; }

  // Throws std::invalid_argument unless rows == in_rows().
  Eigen::Index out_rows(Eigen::Index rows) const override;
  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
};

}  // namespace icl::layers
