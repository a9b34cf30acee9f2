// Per-prompt ICL loss through the real forward pass: draw a task and a prompt from counter i, run the
// Transformer, and return the squared error of the sja/acds convention (yhat + y_q)^2 (sign = +1) or
// the zfb convention (yhat - y_q)^2 (sign = -1). One worker per thread; nothing allocated per prompt.
#pragma once
#include "icl/model/gaussian_model.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"

#include <Eigen/Dense>

#include <vector>

namespace icl {

class PromptLossWorker {
public:
  // fixed_w: use these coefficients for every prompt instead of drawing w ~ N(0, I).
  PromptLossWorker(const Transformer& model, const PolynomialTask& task, const InputDistribution& inputs,
                   const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                   const Eigen::VectorXd* fixed_w = nullptr, double sign = +1.0);

  double loss(std::uint64_t prompt_index);
  void operator()(std::uint64_t i, double* out) { out[0] = loss(i); }
  // The last prompt after Transformer::predict: every layer but the last applied, the last to the query
  // column only.
  const Eigen::MatrixXd& prompt() const { return Z_; }

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

// Monte Carlo through a real forward pass: draws w (always, so a fixed w sees the same stream), the
// inputs, the noise, builds the prompt with `shape`, runs `model`, returns (yhat + sign * y_q)^2.
// sign = +1: the sja/acds loss (yhat approximates -y); sign = -1: the zfb loss (yhat approximates y).
class ModelPromptWorker {
public:
  ModelPromptWorker(const Transformer& model, const GaussianIclModel& task, const PromptShape& shape,
                    std::uint64_t seed, std::uint64_t purpose, double sign = +1.0);
  double loss(std::uint64_t prompt_index);
  void operator()(std::uint64_t i, double* out) { out[0] = loss(i); }
  // The model's prediction of prompt i's query label: -sign x its output (the output approximates -sign y_q).
  double prediction(std::uint64_t prompt_index);
  // Draws prompt i into X (d x (n+1)) and y (n+1, with the query label at n), without running the model.
  void draw(std::uint64_t prompt_index);
  const Eigen::MatrixXd& inputs() const { return sampler_.inputs(); }
  const Eigen::RowVectorXd& labels() const { return sampler_.labels(); }
  const Eigen::VectorXd& coefficients() const { return sampler_.coefficients(); }  // the drawn w (used unless the task fixes w)
  Eigen::MatrixXd& prompt() { return Z_; }
  ForwardWorkspace& workspace() { return ws_; }

private:
  const Transformer* model_;
  GaussianPromptSampler sampler_;
  PromptShape shape_;
  std::uint64_t seed_, purpose_;
  double sign_;
  Eigen::MatrixXd Z_;
  ForwardWorkspace ws_;
};

// Prompts of K equally likely task laws, a finite mixture (xlssc Sec. 4.2's theta = +theta0 or -theta0): prompt i is
// prompt i / K of law i mod K, each law drawn from its own stream (model/prompt_source.hpp block_purpose(purpose,
// k)), so every K consecutive prompts hold one of each law. The mixture's mean is then estimated stratified, and the
// Student-t interval of the i.i.d. rule is conservative for it (stratification removes the between-laws variance).
// One law: ModelPromptWorker's prompts, bit for bit (its purpose unchanged). `laws` must outlive the worker.
class MixturePromptWorker {
public:
  MixturePromptWorker(const Transformer& model, const std::vector<GaussianIclModel>& laws, const PromptShape& shape,
                      std::uint64_t seed, std::uint64_t purpose, double sign = +1.0);
  double loss(std::uint64_t prompt_index) { return at(prompt_index).loss(prompt_index / k_); }
  void operator()(std::uint64_t i, double* out) { out[0] = loss(i); }
  double prediction(std::uint64_t prompt_index) { return at(prompt_index).prediction(prompt_index / k_); }
  void draw(std::uint64_t prompt_index) { at(prompt_index).draw(prompt_index / k_); }
  // Of the prompt drawn last (draw, prediction or loss).
  const Eigen::MatrixXd& inputs() const { return workers_[last_].inputs(); }
  const Eigen::RowVectorXd& labels() const { return workers_[last_].labels(); }

private:
  ModelPromptWorker& at(std::uint64_t prompt_index) {
    last_ = static_cast<std::size_t>(prompt_index % k_);
    return workers_[last_];
  }
  std::vector<ModelPromptWorker> workers_;
  std::uint64_t k_ = 1;
  std::size_t last_ = 0;
};

}  // namespace icl
