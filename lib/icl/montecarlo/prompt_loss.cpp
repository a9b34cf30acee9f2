#include "icl/montecarlo/prompt_loss.hpp"

namespace icl {

PromptLossWorker::PromptLossWorker(const Transformer& model, const PolynomialTask& task,
                                   const InputDistribution& inputs, const PromptShape& shape, std::uint64_t seed,
                                   std::uint64_t purpose, const Eigen::VectorXd* fixed_w, double sign)
    : model_(&model), task_(&task), inputs_(&inputs), shape_(shape), seed_(seed), purpose_(purpose),
      fixed_w_(fixed_w), sign_(sign) {
  X_.resize(shape.d, shape.cols());
  Z_.resize(shape.rows(), shape.cols());
  w_.resize(task.num_coefficients());
  y_.resize(shape.cols());
  ws_.reserve(shape.rows(), shape.cols());
}

double PromptLossWorker::loss(std::uint64_t i) {
  PromptRng rng(seed_, purpose_, i);
  rng.fill_normal(w_);  // drawn even when fixed, so the inputs see the same stream either way
  inputs_->sample(rng, X_);
  task_->evaluate(X_, fixed_w_ ? *fixed_w_ : w_, y_);
  embed(shape_, X_, y_, Z_);
  model_->forward(Z_, ws_);
  const double e = prediction(Z_) + sign_ * y_[shape_.n];
  return e * e;
}

ModelPromptWorker::ModelPromptWorker(const Transformer& model, const GaussianIclModel& task, const PromptShape& shape,
                                     std::uint64_t seed, std::uint64_t purpose, double sign)
    : model_(&model), task_(&task), chol_(task.cholesky()), shape_(shape), seed_(seed), purpose_(purpose),
      sign_(sign) {
  if (shape.d != task.d) throw std::invalid_argument("ModelPromptWorker: prompt and task dimensions differ");
  for (const auto& g : task.basis) basis_.emplace_back(g);
  isotropic_ = task.sigma.isApprox(Eigen::MatrixXd::Identity(task.d, task.d), 0.0);
  X_.resize(shape.d, shape.cols());
  Z_.resize(shape.rows(), shape.cols());
  w_.resize(task.num_coefficients());
  y_.resize(shape.cols());
  xcol_.resize(task.d);
  ws_.reserve(shape.rows(), shape.cols());
}

void ModelPromptWorker::draw(std::uint64_t i) {
  PromptRng rng(seed_, purpose_, i);
  rng.fill_normal(w_);
  rng.fill_normal(X_);
  const Eigen::Index d = X_.rows();
  if (!isotropic_)
    for (Eigen::Index c = 0; c < X_.cols(); ++c)
      for (Eigen::Index r = d - 1; r >= 0; --r) {
        double s = 0;
        for (Eigen::Index j = 0; j <= r; ++j) s += chol_(r, j) * X_(j, c);
        X_(r, c) = s;
      }
  const Eigen::VectorXd& w = task_->random_w ? w_ : task_->fixed_w;
  for (Eigen::Index c = 0; c < X_.cols(); ++c) {
    for (Eigen::Index r = 0; r < d; ++r) xcol_[r] = X_(r, c);
    double y = 0;
    for (std::size_t m = 0; m < basis_.size(); ++m) y += w[static_cast<Eigen::Index>(m)] * basis_[m].evaluate(xcol_.data());
    if (task_->noise_sd > 0) y += task_->noise_sd * rng.normal();
    y_[c] = y;
  }
}

double ModelPromptWorker::loss(std::uint64_t i) {
  draw(i);
  embed(shape_, X_, y_, Z_);
  model_->forward(Z_, ws_);
  const double e = prediction(Z_) + sign_ * y_[shape_.n];
  return e * e;
}

}  // namespace icl
