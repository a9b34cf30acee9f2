// Per-prompt ICL loss through the real forward pass: draw a task and a prompt from counter i, run the
// Transformer, and return the squared error of the sja/acds convention (yhat + y_q)^2 (sign = +1) or
// the zfb convention (yhat - y_q)^2 (sign = -1). One worker per thread; nothing allocated per prompt.
#pragma once
#include "icl/layers.hpp"
#include "icl/prompt.hpp"
#include "icl/rng.hpp"
#include "icl/tasks.hpp"

#include <Eigen/Dense>

namespace icl {

class PromptLossWorker {
public:
  // fixed_w: use these coefficients for every prompt instead of drawing w ~ N(0, I).
  PromptLossWorker(const Transformer& model, const PolynomialTask& task, const InputDistribution& inputs,
                   const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                   const Eigen::VectorXd* fixed_w = nullptr, double sign = +1.0);

  double loss(std::uint64_t prompt_index);
  void operator()(std::uint64_t i, double* out) { out[0] = loss(i); }
  const Eigen::MatrixXd& prompt() const { return Z_; }  // after the forward pass of the last prompt

private:
  const Transformer* model_;
  const PolynomialTask* task_;
  const InputDistribution* inputs_;
  PromptShape shape_;
  std::uint64_t seed_, purpose_;
  const Eigen::VectorXd* fixed_w_;
  double sign_;
  Eigen::MatrixXd X_, Z_;
  Eigen::VectorXd w_;
  Eigen::RowVectorXd y_;
  ForwardWorkspace ws_;
};

}  // namespace icl
