// Monte Carlo of the ICL loss with the query integrated out exactly (conditional Monte Carlo).
//
// With masked attention the query column is never a key or a value, so after any stack of masked LSA
// layers the prediction is linear in the query's feature column: yhat = b^T u_q, b a function of the
// context only (sja Prop. 11's induction). The worker runs the real forward pass, reads b from the
// per-layer query maps I + s P G Q of that same pass (masked LSA stacks; any other stack: one pass per
// basis vector e_k fed as the query's features),
// and returns E_{x_q}[(b^T u(x_q) + sign * y_q)^2 | context, w] = c^T Psi c + noise^2, with
// c = (b, sign * w) and Psi = E[psi psi^T], psi = (u(x), g(x)) exact Gaussian moments. The query
// is the only part integrated exactly; the context goes through the forward pass. Its variance is far
// smaller than that of the plain squared error, which the worker also returns (on the actual random
// query), together with the squared difference between the actual prediction and b^T u_q: a check, per
// prompt, of the linearity this estimator rests on.
#pragma once
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/prompt_loss.hpp"

namespace icl {

// Psi = E[psi psi^T] with psi = (u_1..u_p, g_1..g_m)(x), x ~ N(0, Sigma) of `model`.
Eigen::MatrixXd query_moment_matrix(const GaussianIclModel& model, const std::vector<Poly>& u);

class QueryConditionalWorker {
public:
  // features: column-wise layers (bilinear FF) applied to the whole prompt; attention: the masked LSA
  // stack after them. p = shape.dbar feature rows.
  QueryConditionalWorker(const Transformer& features, const Transformer& attention, const GaussianIclModel& model,
                         const Eigen::MatrixXd& Psi, const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                         double sign = +1.0);
  // out[0] = plain squared error, out[1] = conditional expected squared error, out[2] = (yhat - b^T u_q)^2.
  void operator()(std::uint64_t i, double* out);
  static constexpr int dims = 3;

private:
  const Transformer* features_;
  const Transformer* attention_;
  const GaussianIclModel* model_;
  const Eigen::MatrixXd* Psi_;
  ModelPromptWorker draw_;
  PromptShape shape_;
  double sign_;
  Eigen::MatrixXd Zf_, Z_, Mq_, T_;
  Eigen::VectorXd c_;
};

}  // namespace icl
