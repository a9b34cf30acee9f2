#include "icl/montecarlo/prompt_loss.hpp"

#include "icl/model/prompt_source.hpp"

#include <stdexcept>

namespace icl {

PromptLossWorker::PromptLossWorker(const Transformer& model, const PolynomialTask& task,
                                   const InputDistribution& inputs, const PromptShape& shape, std::uint64_t seed,
                                   std::uint64_t purpose, const Eigen::VectorXd* fixed_w, double sign)
    : model_(&model), task_(&task), inputs_(&inputs), shape_(shape), seed_(seed), purpose_(purpose),
      fixed_w_(fixed_w), sign_(sign) {
  X_.resize(shape.d, shape.examples());
  Z_.resize(shape.rows(), shape.cols());
  w_.resize(task.num_coefficients());
  y_.resize(shape.examples());
  ws_.reserve(shape.rows(), shape.cols());
}

double PromptLossWorker::loss(std::uint64_t i) {
  PromptRng rng(seed_, purpose_, i);
  rng.fill_normal(w_);  // drawn even when fixed, so the inputs see the same stream either way
  inputs_->sample(rng, X_);
  task_->evaluate(X_, fixed_w_ ? *fixed_w_ : w_, y_);
  embed(shape_, X_, y_, Z_);
  const double e = model_->predict(Z_, ws_) + sign_ * y_[shape_.n];
  return e * e;
}

ModelPromptWorker::ModelPromptWorker(const Transformer& model, const GaussianIclModel& task, const PromptShape& shape,
                                     std::uint64_t seed, std::uint64_t purpose, double sign)
    : model_(&model), sampler_(task, shape.examples()), shape_(shape), seed_(seed), purpose_(purpose), sign_(sign) {
  if (shape.d != task.d) throw std::invalid_argument("ModelPromptWorker: prompt and task dimensions differ");
  Z_.resize(shape.rows(), shape.cols());
  ws_.reserve(shape.rows(), shape.cols());
}

void ModelPromptWorker::draw(std::uint64_t i) {
  PromptRng rng(seed_, purpose_, i);
  sampler_.draw(rng);
}

double ModelPromptWorker::prediction(std::uint64_t i) {
  draw(i);
  embed(shape_, sampler_.inputs(), sampler_.labels(), Z_);
  return -sign_ * model_->predict(Z_, ws_);
}

MixturePromptWorker::MixturePromptWorker(const Transformer& model, const std::vector<GaussianIclModel>& laws,
                                         const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                                         double sign)
    : k_(laws.size()) {
  if (laws.empty()) throw std::invalid_argument("MixturePromptWorker: no task law");
  workers_.reserve(laws.size());
  for (std::size_t k = 0; k < laws.size(); ++k)
    workers_.emplace_back(model, laws[k], shape, seed, laws.size() == 1 ? purpose : block_purpose(purpose, k), sign);
}

// (y_q - prediction)^2 = (output + sign y_q)^2, bit for bit: the prediction is -sign x output, an exact negation.
double ModelPromptWorker::loss(std::uint64_t i) {
  const double e = prediction(i) - sampler_.labels()[shape_.n];
  return e * e;
}

}  // namespace icl
