// What depth buys: the ICL loss after every block of a deep stack, measured through the real forward
// pass, beside ordinary least squares over a full feature space on the same prompts.
//
// Prompt i draws w ~ N(0, I) and x ~ N(0, I) as PromptLossWorker does; the stack runs once and the
// prediction Z[last, last] is read after each attention layer (block). out[l] = (yhat^(l+1) + y_q)^2 for
// the sja/acds sign convention; out[blocks] = (phi(x_q)^T w_ols + y_q)^2, with w_ols the least-squares
// fit of -y on the features `ols_features` of the context (the limit of block-coordinate descent with
// exact block steps, reached when n >= the number of features).
#pragma once
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <Eigen/Dense>
#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

namespace icl {

class DepthProfileWorker {
public:
  DepthProfileWorker(const Transformer& model, int blocks, const PolynomialTask& task, const PromptShape& shape,
                     std::vector<Exponent> ols_features, std::uint64_t seed, std::uint64_t purpose)
      : model_(&model), blocks_(blocks), task_(&task), shape_(shape), ols_(std::move(ols_features)), seed_(seed),
        purpose_(purpose), X_(shape.d, shape.cols()), Z_(shape.rows(), shape.cols()), w_(task.num_coefficients()),
        y_(shape.cols()) {}

  void operator()(std::uint64_t i, double* out) {
    PromptRng rng(seed_, purpose_, i);
    rng.fill_normal(w_);
    rng.fill_normal(X_);
    task_->evaluate(X_, w_, y_);
    const double yq = y_[shape_.n];
    embed(shape_, X_, y_, Z_);
    int block = 0;
    std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> observe =
        [&](int k, const Eigen::Ref<const Eigen::MatrixXd>& Zk) {
          if (k % 2 == 0 && block < blocks_) {
            const double e = prediction(Zk) + yq;
            out[block++] = e * e;
          }
        };
    model_->forward(Z_, ws_, &observe);
    const Eigen::MatrixXd F = monomial_features<double>(ols_, X_);
    const Eigen::VectorXd wols =
        F.leftCols(shape_.n).transpose().colPivHouseholderQr().solve(-y_.head(shape_.n).transpose());
    const double e = F.col(shape_.n).dot(wols) + yq;
    out[blocks_] = e * e;
  }

private:
  const Transformer* model_;
  int blocks_;
  const PolynomialTask* task_;
  PromptShape shape_;
  std::vector<Exponent> ols_;
  std::uint64_t seed_, purpose_;
  Eigen::MatrixXd X_, Z_;
  Eigen::VectorXd w_;
  Eigen::RowVectorXd y_;
  ForwardWorkspace ws_;
};

// DepthProfileWorker over prompts 0..prompts-1 on `threads` threads (same numbers whatever the threads).
inline Accumulator depth_profile(const Transformer& model, int blocks, const PolynomialTask& task,
                                 const PromptShape& shape, const std::vector<Exponent>& ols_features,
                                 const SamplingPlan& plan, std::uint64_t purpose) {
  MonteCarlo mc(blocks + 1, plan.threads);
  mc.extend_to(plan.samples, [&] {
    return DepthProfileWorker(model, blocks, task, shape, ols_features, plan.seed, purpose);
  });
  return mc.total();
}

// The rows of a depth table from a DepthProfileWorker run: loss and standard error after each block,
// then the OLS line.
inline nlohmann::ordered_json depth_rows_json(const Accumulator& a, int blocks) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (int l = 0; l <= blocks; ++l) {
    const Estimate e = make_estimate(a, l, 0.95);
    nlohmann::ordered_json r;
    r["blocks"] = l < blocks ? nlohmann::ordered_json(l + 1) : nlohmann::ordered_json("OLS, all monomials");
    r["loss"] = e.mean;
    r["stderr"] = e.stderr_;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace icl
