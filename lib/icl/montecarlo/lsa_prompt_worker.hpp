// Monte Carlo of one unmasked linear self-attention layer on linear tasks (exact/lsa_population_loss.hpp
// gives the same loss in closed form): per prompt, the loss, the prediction and the gradient through the
// real forward pass, with the covariates drawn from a fixed or a random (per prompt) covariance.
#pragma once
#include "icl/exact/lsa_population_loss.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/prompt.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <vector>

namespace icl {

// Per-prompt loss and gradient through the real forward pass (one LinearSelfAttention, unmasked, scale
// 1/N). out = [1/2 (yhat - y)^2, yhat, y_q, d/dtheta of 1/2 (yhat - y)^2 (if with_gradient)].
struct LsaPromptModel {
  int d = 1;
  int N = 1;                 // context length: the layer's scale is 1/N
  Eigen::MatrixXd chol;      // x = chol z for a fixed covariance
  // If set: per prompt, Lambda_tau = diag(lambda_quantile(u_1), ..., lambda_quantile(u_d)), u_i uniform.
  std::function<double(double)> lambda_quantile;
  // If set (and lambda_quantile is not): entry k of Lambda_tau drawn from its own law, lambda_quantiles[k](u_k).
  std::vector<std::function<double(double)>> lambda_quantiles;
  double covariate_scale = 1.0;                 // every covariate (context and query) multiplied by c
  const Eigen::VectorXd* fixed_w = nullptr;     // task vector held fixed
  const Eigen::VectorXd* fixed_query = nullptr; // query held fixed (not scaled, not drawn)
  bool with_gradient = false;
  int dims() const { return 3 + (with_gradient ? theta_size(d) : 0); }
};

class LsaPromptWorker {
public:
  LsaPromptWorker(const LsaWeights& weights, const LsaPromptModel& model, std::uint64_t seed, std::uint64_t purpose);
  void operator()(std::uint64_t i, double* out);
  // The last prompt's covariates (d x (N+1), query last) and task vector.
  const Eigen::MatrixXd& inputs() const { return X_; }
  const Eigen::VectorXd& task() const { return model_.fixed_w ? *model_.fixed_w : task_; }

private:
  Transformer net_;
  LsaWeights w_;
  LsaPromptModel model_;
  PromptShape shape_;
  std::uint64_t seed_, purpose_;
  Eigen::MatrixXd X_, Xz_, E_, Z_, EEt_;
  Eigen::VectorXd task_, lam_, q_, t_, gp_, gk_;
  Eigen::RowVectorXd y_;
  ForwardWorkspace ws_;
};

}  // namespace icl
