#include "icl/execute/portable_path.hpp"

#include "icl/algebra/flat_polynomial.hpp"
#include "icl/model/rng.hpp"

#include <stdexcept>
#include <string>

namespace icl::execute {

std::unique_ptr<portable::Plan> plan_portable(const learn::Network& net, const learn::PromptSource& source,
                                              learn::LossSpec loss, const char* backend) {
  const std::string who = backend;
  if (!source.gaussian_task)
    throw std::invalid_argument("the " + who + " draws only the prompts of a Gaussian task (learn::gaussian_prompts)");
  const GaussianIclModel& task = *source.gaussian_task;
  const PromptShape& shape = source.shape;
  if (net.rows != 0 && net.rows != source.rows)
    throw std::invalid_argument("the " + who + ": the prompts' rows differ from the network's");
  auto plan = std::make_unique<portable::Plan>();
  auto& p = *plan;
  const int d = task.d, D = shape.rows(), N = shape.cols();
  // The prompt: what GaussianPromptSampler reads of the task, in its form.
  if (!task.sigma.isApprox(Eigen::MatrixXd::Identity(d, d), 0.0)) {  // GaussianPromptSampler's test, exactly
    const Eigen::MatrixXd L = task.cholesky();
    p.chol.assign(L.data(), L.data() + L.size());
  }
  if (!task.random_w) p.fixed_w.assign(task.fixed_w.data(), task.fixed_w.data() + task.fixed_w.size());
  p.term_begin.push_back(0);
  for (const auto& g : task.basis) {
    const FlatPoly f(g);
    p.coef.insert(p.coef.end(), f.coef.begin(), f.coef.end());
    p.exps.insert(p.exps.end(), f.exps.begin(), f.exps.end());
    p.term_begin.push_back(static_cast<int>(p.coef.size()));
  }
  if (p.exps.empty()) p.exps.push_back(0);  // (a valid pointer for a task without terms)
  p.prompt.d = d;
  p.prompt.rows = D;
  p.prompt.cols = N;
  p.prompt.n = shape.n;
  p.prompt.r0 = shape.embedding == Embedding::sja ? 1 : 0;
  p.prompt.M = task.num_coefficients();
  p.prompt.chol = p.chol.empty() ? nullptr : p.chol.data();
  p.prompt.fixed_w = task.random_w ? nullptr : p.fixed_w.data();
  p.prompt.noise_sd = task.noise_sd;
  p.prompt.term_begin = p.term_begin.data();
  p.prompt.coef = p.coef.data();
  p.prompt.exps = p.exps.data();
  // The network: dense LSA layers only; the prediction comes from the last one (an LSA layer always writes it).
  for (int l = 0; l < net.size(); ++l) {
    const auto* lsa = dynamic_cast<const layers::Lsa*>(&net.layer(l));
    if (!lsa)
      throw std::invalid_argument("the " + who + " does not support layer " + std::to_string(l) + " (a " +
                                  net.layer(l).kind() + " layer); it runs stacks of dense lsa layers only");
    const Eigen::MatrixXd& P = lsa->param("P");
    const Eigen::MatrixXd& Q = lsa->param("Q");
    if (P.rows() != D || Q.rows() != D)
      throw std::invalid_argument("the " + who + ": layer " + std::to_string(l) + "'s weights are not " +
                                  std::to_string(D) + " x " + std::to_string(D));
    p.weights.insert(p.weights.end(), P.data(), P.data() + P.size());
    p.weights.insert(p.weights.end(), Q.data(), Q.data() + Q.size());
    p.masked.push_back(lsa->masked ? 1 : 0);
    p.scale.push_back(lsa->scale);
  }
  p.weights.push_back(0.0);  // (valid pointers for an empty stack)
  p.masked.push_back(0);
  p.scale.push_back(0.0);
  p.net.layers = net.size();
  p.net.rows = D;
  p.net.cols = N;
  p.net.weights = p.weights.data();
  p.net.masked = p.masked.data();
  p.net.scale = p.scale.data();
  p.net.loss_sign = loss.sign;
  p.net.loss_factor = loss.factor;
  const auto& t = PromptRng::ziggurat();
  p.zig.insert(p.zig.end(), t.x, t.x + 257);
  p.zig.insert(p.zig.end(), t.f, t.f + 257);
  p.zig.insert(p.zig.end(), t.xs, t.xs + 257);
  p.zig.insert(p.zig.end(), t.sxs, t.sxs + 512);
  return plan;
}

portable::StreamKey portable_stream_key(std::uint64_t seed, std::uint64_t purpose) {
  const auto k = PromptRng::stream_key(seed, purpose);
  return {k[0], k[1], k[2]};
}

double portable_prompt(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i,
                       Eigen::MatrixXd& Z) {
  portable::PromptStream rng(portable_stream_key(seed, purpose), i, plan.ziggurat());
  std::vector<double> w(static_cast<std::size_t>(plan.prompt.M) + 1);
  Z.resize(plan.prompt.rows, plan.prompt.cols);
  return portable::draw_gaussian_prompt(plan.prompt, rng, {w.data(), 1}, {Z.data(), 1});
}

void portable_losses(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose, std::uint64_t count,
                     std::vector<double>& out) {
  const portable::StreamKey key = portable_stream_key(seed, purpose);
  std::vector<double> scratch(static_cast<std::size_t>(plan.scratch_per_prompt()));
  out.assign(static_cast<std::size_t>(count), 0.0);
  for (std::uint64_t i = 0; i < count; ++i)
    out[static_cast<std::size_t>(i)] =
        portable::prompt_loss(plan.prompt, plan.net, plan.ziggurat(), key, i, scratch.data(), 1);
}

}  // namespace icl::execute
