#include "icl/execute/portable_path.hpp"

#include "icl/algebra/flat_polynomial.hpp"
#include "icl/execute/executor.hpp"
#include "icl/model/rng.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace icl::execute {

namespace {

// The prompt of a Gaussian task: what GaussianPromptSampler reads of the task, in its form.
void plan_gaussian_prompt(const GaussianIclModel& task, const PromptShape& shape, portable::Plan& p) {
  const int d = task.d;
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
  portable::GaussianPromptDesc& g = p.prompt.gaussian;
  g.d = d;
  g.rows = p.prompt.rows;
  g.cols = p.prompt.cols;
  g.n = shape.n;
  g.r0 = shape.embedding == Embedding::sja ? 1 : 0;
  g.M = task.num_coefficients();
  g.chol = p.chol.empty() ? nullptr : p.chol.data();
  g.fixed_w = task.random_w ? nullptr : p.fixed_w.data();
  g.noise_sd = task.noise_sd;
  g.term_begin = p.term_begin.data();
  g.coef = p.coef.data();
  g.exps = p.exps.data();
  p.prompt.kind = portable::kGaussianPrompt;
  p.prompt.extra = g.M;
}

// Unstructured prompts (icl::unstructured_prompts).
void plan_unstructured_prompt(const icl::UnstructuredLaw& law, portable::Plan& p) {
  p.theta0.assign(law.theta0.data(), law.theta0.data() + law.theta0.size());
  p.theta0.push_back(0.0);  // (a valid pointer)
  p.prompt.kind = portable::kUnstructuredPrompt;
  p.prompt.extra = law.d;
  p.prompt.unstructured = {law.d, law.D, law.theta0.size() ? p.theta0.data() : nullptr};
}

// The network: dense LSA, bilinear and softmax-attention layers, up to the last one that writes the prediction
// (Network::last_effective; the layers after it cannot change it: portable/stack.hpp).
void plan_network(const icl::Network& net, const std::string& who, portable::Plan& p) {
  const int D = p.prompt.rows, N = p.prompt.cols;
  for (int l = 0; l < net.size(); ++l) {
    const auto& layer = net.layer(l);
    if (!dynamic_cast<const layers::Lsa*>(&layer) && !dynamic_cast<const layers::Bilinear*>(&layer) &&
        !dynamic_cast<const layers::SoftmaxAttention*>(&layer))
      throw Unsupported("the " + who + " does not support layer " + std::to_string(l) + " (a " + layer.kind() +
                        " layer); it runs stacks of dense lsa, bilinear and softmax attention layers only");
  }
  const int last = net.last_effective();
  for (int l = 0; l <= last; ++l) {
    const auto& layer = net.layer(l);
    const auto* lsa = dynamic_cast<const layers::Lsa*>(&layer);
    const auto* soft = dynamic_cast<const layers::SoftmaxAttention*>(&layer);
    const char* names[2] = {lsa ? "P" : soft ? "V" : "W0", lsa ? "Q" : soft ? "K" : "W1"};
    const int n = lsa || soft ? D : D - 1;
    p.offset.push_back(static_cast<long long>(p.weights.size()));
    p.kind.push_back(lsa ? portable::kLsa : soft ? portable::kSoftmax : portable::kBilinear);
    for (const char* name : names) {
      const Eigen::MatrixXd& W = layer.param(name);
      if (W.rows() != n || W.cols() != n)
        throw std::invalid_argument("the " + who + ": layer " + std::to_string(l) + "'s " + name + " is not " +
                                    std::to_string(n) + " x " + std::to_string(n));
      p.weights.insert(p.weights.end(), W.data(), W.data() + W.size());
    }
    p.masked.push_back((lsa && lsa->masked) || (soft && soft->causal) ? 1 : 0);
    p.act.push_back(soft && soft->activation == layers::SoftmaxAttention::Activation::linear ? portable::kLinearPhi
                                                                                              : portable::kSoftmaxPhi);
    p.scale.push_back(lsa ? lsa->scale : 0.0);
  }
  p.weight_count = static_cast<long long>(p.weights.size());
  p.weights.push_back(0.0);  // (valid pointers for an empty stack)
  p.offset.push_back(0);
  p.kind.push_back(0);
  p.masked.push_back(0);
  p.act.push_back(0);
  p.scale.push_back(0.0);
  p.net.layers = last + 1;
  p.net.rows = D;
  p.net.cols = N;
  p.net.weights = p.weights.data();
  p.net.offset = p.offset.data();
  p.net.kind = p.kind.data();
  p.net.masked = p.masked.data();
  p.net.act = p.act.data();
  p.net.scale = p.scale.data();
}

}  // namespace

std::unique_ptr<portable::Plan> plan_portable(const icl::Network& net, const icl::PromptSource& source,
                                              icl::LossSpec loss, const char* backend,
                                              portable::Precision precision) {
  const std::string who = backend;
  if (!source.gaussian_task && !source.unstructured)
    throw Unsupported("the " + who + " draws only the prompts of a Gaussian task (icl::gaussian_prompts) and "
                      "unstructured prompts (icl::unstructured_prompts)");
  if (net.rows != 0 && net.rows != source.rows)
    throw std::invalid_argument("the " + who + ": the prompts' rows differ from the network's");
  auto plan = std::make_unique<portable::Plan>();
  auto& p = *plan;
  const int D = source.rows, N = source.cols;
  p.prompt.rows = D;
  p.prompt.cols = N;
  if (source.gaussian_task)
    plan_gaussian_prompt(*source.gaussian_task, source.shape, p);
  else
    plan_unstructured_prompt(*source.unstructured, p);
  plan_network(net, who, p);
  p.net.loss_sign = loss.sign;
  p.net.loss_factor = loss.factor;
  p.precision = precision;
  p.weights32.assign(p.weights.begin(), p.weights.end());  // each weight rounded to float
  p.net32 = portable::with_weights(p.net, p.weights32.data());
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
  std::vector<double> extra(static_cast<std::size_t>(plan.prompt.extra) + 1);
  Z.resize(plan.prompt.rows, plan.prompt.cols);
  return portable::draw_prompt(plan.prompt, rng, {extra.data(), 1}, {Z.data(), 1});
}

PromptScratch::PromptScratch(const portable::Plan& plan, bool grad)
    : d(static_cast<std::size_t>(grad ? plan.grad_scratch_per_prompt() : plan.scratch_per_prompt())),
      f(static_cast<std::size_t>(grad ? plan.grad_scratch32_per_prompt() : plan.scratch32_per_prompt())),
      g(grad && plan.precision == portable::Precision::f32 ? static_cast<std::size_t>(plan.grad_size()) : 0) {}

namespace {

// Prompt i's loss in the plan's precision.
double prompt_loss_of(const portable::Plan& plan, portable::StreamKey key, std::uint64_t i, PromptScratch& scratch) {
  return plan.precision == portable::Precision::f32
             ? portable::prompt_loss(plan.prompt, plan.net32, plan.ziggurat(), key, i, scratch.d.data(),
                                     scratch.f.data(), 1)
             : portable::prompt_loss(plan.prompt, plan.net, plan.ziggurat(), key, i, scratch.d.data(), nullptr, 1);
}

}  // namespace

void portable_loss_range(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t last,
                         PromptScratch& scratch, double* out) {
  for (std::uint64_t i = first; i < last; ++i) out[i - first] = prompt_loss_of(plan, key, i, scratch);
}

void portable_losses(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose, std::uint64_t count,
                     std::vector<double>& out) {
  PromptScratch scratch(plan, false);
  out.assign(static_cast<std::size_t>(count), 0.0);
  portable_loss_range(plan, portable_stream_key(seed, purpose), 0, count, scratch, out.data());
}

double portable_minibatch_chunk(const portable::Plan& plan, portable::StreamKey key, std::uint64_t c,
                                std::uint64_t count, PromptScratch& scratch, double* dW_c) {
  const std::uint64_t chunk = Executor::kBatchChunk;
  const bool f32 = plan.precision == portable::Precision::f32;
  double sum = 0;
  for (std::uint64_t i = c * chunk; i < std::min(count, (c + 1) * chunk); ++i) {
    if (!dW_c)
      sum += prompt_loss_of(plan, key, i, scratch);
    else if (!f32)  // the prompt's gradient added into the chunk's sum (one addition per entry: stack.hpp)
      sum += portable::prompt_loss_grad(plan.prompt, plan.net, plan.ziggurat(), key, i, scratch.d.data(), nullptr, 1,
                                        {dW_c, 1});
    else {  // float: the prompt's gradient on its own (0 + g = g), then added into the chunk's double sum
      std::fill(scratch.g.begin(), scratch.g.end(), 0.0f);
      sum += portable::prompt_loss_grad(plan.prompt, plan.net32, plan.ziggurat(), key, i, scratch.d.data(),
                                        scratch.f.data(), 1, portable::StridedT<float>{scratch.g.data(), 1});
      for (std::size_t e = 0; e < scratch.g.size(); ++e) dW_c[e] += static_cast<double>(scratch.g[e]);
    }
  }
  return sum;
}

void portable_minibatch_chunks(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose,
                               std::uint64_t count, std::vector<double>& loss, std::vector<double>* dW) {
  const portable::StreamKey key = portable_stream_key(seed, purpose);
  const std::uint64_t chunk = Executor::kBatchChunk, chunks = (count + chunk - 1) / chunk;
  const auto G = static_cast<std::size_t>(plan.grad_size());
  PromptScratch scratch(plan, dW != nullptr);
  loss.assign(static_cast<std::size_t>(chunks), 0.0);
  if (dW) dW->assign(static_cast<std::size_t>(chunks) * G, 0.0);
  for (std::uint64_t c = 0; c < chunks; ++c)
    loss[static_cast<std::size_t>(c)] =
        portable_minibatch_chunk(plan, key, c, count, scratch, dW ? dW->data() + c * G : nullptr);
}

double minibatch_from_chunks(const portable::Plan& plan, const icl::Parameterisation& params,
                             const std::vector<double>& loss, const std::vector<double>* dW, Eigen::VectorXd* grad) {
  double total = 0;
  for (double l : loss) total += l;
  if (!grad) return total;
  grad->setZero(params.size());
  if (!dW) throw std::logic_error("minibatch_from_chunks: a gradient asked without the chunks' gradients");
  const auto G = static_cast<std::size_t>(plan.grad_size());
  icl::WeightGrads wg = params.make_grads();
  Eigen::VectorXd chunk_grad(params.size());
  for (std::size_t c = 0; c < loss.size(); ++c) {
    for (int l = 0; l < plan.net.layers; ++l) {  // (the layers after the stack's last have no gradient: zero)
      const auto& layer = params.base().layer(l);
      const int n = plan.kind[static_cast<std::size_t>(l)] == portable::kBilinear ? plan.net.rows - 1 : plan.net.rows;
      layers::Grads& g = wg.g[static_cast<std::size_t>(l)];
      for (int k = 0; k < static_cast<int>(layer.params().size()); ++k) {
        if (!g.want(k)) continue;
        const std::string& name = layer.params()[static_cast<std::size_t>(k)].name;
        const int second = name == "Q" || name == "W1" || name == "K";
        if (!second && name != "P" && name != "W0" && name != "V")
          throw std::logic_error("minibatch_from_chunks: a parameter " + name);
        const long long off = plan.offset[static_cast<std::size_t>(l)] + second * static_cast<long long>(n) * n;
        g[k] = Eigen::Map<const Eigen::MatrixXd>(dW->data() + c * G + off, n, n);
      }
    }
    chunk_grad.setZero();
    params.pullback(wg, chunk_grad);
    *grad += chunk_grad;
  }
  return total;
}

double portable_minibatch(const portable::Plan& plan, const icl::Parameterisation& params, std::uint64_t seed,
                          std::uint64_t purpose, std::uint64_t count, Eigen::VectorXd* grad) {
  std::vector<double> loss, dW;
  portable_minibatch_chunks(plan, seed, purpose, count, loss, grad ? &dW : nullptr);
  return minibatch_from_chunks(plan, params, loss, grad ? &dW : nullptr, grad);
}

}  // namespace icl::execute
