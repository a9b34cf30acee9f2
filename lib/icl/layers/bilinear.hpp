// Bilinear (GLU without activation) feed-forward layer, sja eq. (3): the top D-1 rows X <- X + (W0 X) .* (W1 X),
// the label row untouched (so it never changes the prediction: writes_prediction() is false, and a stack's
// trailing bilinear layers are skipped). Parameters: W0, W1 ((D-1) x (D-1)).
// Adjoint: A = W0 X, B = W1 X; dW0 = (R .* B) X^T, dW1 = (R .* A) X^T, dX = R + W0^T (R .* B) + W1^T (R .* A).
//
// One layer type, layers::Bilinear (parameters "W0", "W1" by name). Its in-place pass apply() (what the Monte Carlo
// workers run) sums only the nonzero weights' terms (compiled once per weights); forward()/backward() keep what the
// adjoint needs. A construction writes its weights as icl::BilinearLayer (a plain value; a stack turns it into this
// layer; its own apply() runs the same kernel on the values).
#pragma once
#include "icl/layers/layer.hpp"
#include "icl/layers/workspace.hpp"

#include <memory>

namespace icl::layers {
class Bilinear;
}

namespace icl {

// Bilinear (GLU without activation) feed-forward layer, sja eq. (3):
//   Z + (diag(W0, 0) Z) .* (diag(W1, 0) Z): W0, W1 are dbar x dbar; the label row is masked.
struct BilinearLayer {
  Eigen::MatrixXd W0, W1;
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;  // column N-1 only, as apply()
};

std::unique_ptr<layers::Bilinear> make_layer(const BilinearLayer& spec);

}  // namespace icl

namespace icl::layers {

class Bilinear final : public LayerBase<Bilinear> {
public:
  static constexpr const char* kKind = "bilinear";
  explicit Bilinear(Eigen::Index rows);  // rows of the prompt (D); the weights are (D-1) x (D-1)
  explicit Bilinear(const BilinearLayer& spec);
  BilinearLayer spec() const;
  bool writes_prediction() const override { return false; }
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const override;
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const override;
  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
};

}  // namespace icl::layers
