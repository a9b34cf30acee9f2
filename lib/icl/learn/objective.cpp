#include "icl/learn/objective.hpp"

#include "icl/backends/backends.hpp"
#include "icl/layers/backprop.hpp"
#include "icl/montecarlo/montecarlo.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace icl::learn {

BatchObjective::BatchObjective(const Parameterisation& params, PromptSource source, LossSpec loss, int threads)
    : params_(&params), source_(std::move(source)), loss_(loss), threads_(std::max(1, threads)),
      exec_(execute::make_executor(execute::default_backend(), threads_)) {
  if (source_.rows != params.base().rows)
    throw std::invalid_argument("BatchObjective: the prompts' rows differ from the network's");
}

BatchObjective::~BatchObjective() = default;

double BatchObjective::evaluate(const Eigen::Ref<const Eigen::VectorXd>& theta, std::uint64_t seed,
                                std::uint64_t purpose, std::uint64_t count, Eigen::VectorXd* grad) {
  if (count == 0) throw std::invalid_argument("BatchObjective: empty batch");
  const double total = exec_->minibatch(*params_, theta, source_, loss_, seed, purpose, count, grad);
  ranks_ = std::max(ranks_, exec_->last_ranks());
  const double inv = 1.0 / static_cast<double>(count);
  if (grad) *grad *= inv;
  return total * inv;
}

namespace {

// The per-prompt values v[0..count) (count whole chunks) accumulated as the Monte Carlo engine does
// (montecarlo.hpp): each chunk of MonteCarlo::kChunk prompts in prompt order, the chunks merged in chunk order; f
// maps a prompt's index to its value.
template <class F>
Estimate chunked_estimate(std::uint64_t count, F f, double confidence) {
  Accumulator total(1);
  for (std::uint64_t c = 0; c < count / MonteCarlo::kChunk; ++c) {
    Accumulator acc(1);
    for (std::uint64_t i = c * MonteCarlo::kChunk; i < (c + 1) * MonteCarlo::kChunk; ++i) {
      const double x = f(static_cast<std::size_t>(i));
      acc.add(&x);
    }
    total.merge(acc);
  }
  return make_estimate(total, 0, confidence);
}

std::uint64_t whole_chunks(std::uint64_t samples) {
  return (samples + MonteCarlo::kChunk - 1) / MonteCarlo::kChunk * MonteCarlo::kChunk;
}

// The share of the summed values carried by the largest ceil(fraction * size) of them (v sorted ascending).
double tail_share_of_sorted(const std::vector<double>& v, double fraction) {
  if (v.empty()) return 0;
  const std::size_t k = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(v.size()))));
  double total = 0, tail = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    total += v[i];
    if (i >= v.size() - k) tail += v[i];
  }
  return total > 0 ? tail / total : 0.0;
}

}  // namespace

Estimate mc_loss(const Network& net, const PromptSource& source, LossSpec loss, std::uint64_t seed,
                 std::uint64_t purpose, std::uint64_t samples, int threads, double confidence) {
  // The executor's per-prompt losses, accumulated as the Monte Carlo engine does.
  static_assert(MonteCarlo::kChunk == execute::Executor::kLossChunk);
  const std::uint64_t count = whole_chunks(samples);
  std::vector<double> v;
  execute::make_executor(execute::default_backend(), threads)->losses(net, source, loss, seed, purpose, count, v);
  return chunked_estimate(count, [&](std::size_t i) { return v[i]; }, confidence);
}

TailedLoss tailed_loss(const Network& net, const PromptSource& source, LossSpec loss, std::uint64_t seed,
                       std::uint64_t purpose, std::uint64_t samples, int threads, double cap, double confidence,
                       double tail_fraction) {
  if (!(cap > 0)) throw std::invalid_argument("tailed_loss: the cap must be positive");
  const std::uint64_t count = whole_chunks(samples);
  std::vector<double> v;
  execute::make_executor(execute::default_backend(), threads)->losses(net, source, loss, seed, purpose, count, v);
  TailedLoss t;
  t.cap = cap;
  t.tail_fraction = tail_fraction;
  t.full = chunked_estimate(count, [&](std::size_t i) { return v[i]; }, confidence);
  t.capped = chunked_estimate(count, [&](std::size_t i) { return std::min(v[i], cap); }, confidence);
  std::sort(v.begin(), v.end());
  t.tail_share = tail_share_of_sorted(v, tail_fraction);
  return t;
}

Estimate mc_loss_difference(const Network& a, const Network& b, const PromptSource& source, LossSpec loss,
                            std::uint64_t seed, std::uint64_t purpose, std::uint64_t samples, int threads,
                            double confidence) {
  const std::uint64_t count = whole_chunks(samples);
  std::vector<double> va, vb;
  const auto exec = execute::make_executor(execute::default_backend(), threads);
  exec->losses(a, source, loss, seed, purpose, count, va);
  exec->losses(b, source, loss, seed, purpose, count, vb);
  return chunked_estimate(count, [&](std::size_t i) { return va[i] - vb[i]; }, confidence);
}

LossDistribution loss_distribution(const Network& net, const PromptSource& source, LossSpec loss, std::uint64_t seed,
                                   std::uint64_t purpose, std::uint64_t samples, int threads, double tail_fraction) {
  // Every prompt's loss is kept (not only sums): the executor's per-prompt losses, in prompt order.
  std::vector<double> v;
  execute::make_executor(execute::default_backend(), threads)->losses(net, source, loss, seed, purpose, samples, v);
  LossDistribution r;
  r.samples = samples;
  r.tail_fraction = tail_fraction;
  if (v.empty()) return r;
  for (double x : v) r.mean += x;  // index order: the same at any thread count
  r.mean /= static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  auto q = [&](double p) { return v[static_cast<std::size_t>(std::floor(p * static_cast<double>(v.size() - 1)))]; };
  r.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  r.p90 = q(0.9);
  r.p99 = q(0.99);
  r.max = v.back();
  r.tail_share = tail_share_of_sorted(v, tail_fraction);  // v was sorted above
  return r;
}

nlohmann::ordered_json LossDistribution::to_json() const {
  return {{"mean", mean}, {"median", median}, {"p90", p90}, {"p99", p99}, {"max", max},
          {"tail_fraction", tail_fraction}, {"tail_share", tail_share}, {"samples", samples}};
}

GradientEstimate mc_gradient(const Parameterisation& params, const Eigen::Ref<const Eigen::VectorXd>& theta,
                             const PromptSource& source, LossSpec loss, std::uint64_t seed, std::uint64_t purpose,
                             std::uint64_t samples, int threads) {
  const Network net = params.network(theta);
  const int P = params.size();
  MonteCarlo mc(1 + P, threads);
  mc.extend_to(samples, [&] {
    struct W {
      PromptDrawer draw;
      Tape tape;
      WeightGrads grads;
      Eigen::MatrixXd Z;
      Eigen::VectorXd g;
    };
    auto w = std::make_shared<W>(W{source.make_drawer(), {}, params.make_grads(),
                                   Eigen::MatrixXd(source.rows, source.cols), Eigen::VectorXd(P)});
    return [&, w](std::uint64_t i, double* out) {
      const double yq = w->draw(seed, purpose, i, w->Z);
      const double yhat = forward(net, w->Z, w->tape);
      out[0] = loss(yhat, yq);
      w->grads.zero();
      backward(net, w->tape, loss.derivative(yhat, yq), w->grads);
      w->g.setZero();
      params.pullback(w->grads, w->g);
      for (int k = 0; k < P; ++k) out[1 + k] = w->g[k];
    };
  });
  const Accumulator acc = mc.total();
  GradientEstimate e;
  e.samples = acc.count;
  e.mean.resize(P);
  e.stderr_.resize(P);
  const double n = static_cast<double>(acc.count);
  for (int k = 0; k < P; ++k) {
    e.mean[k] = acc.mean[1 + k];
    e.stderr_[k] = std::sqrt(acc.variance(1 + k) / n);
  }
  e.loss_mean = acc.mean[0];
  e.loss_stderr = std::sqrt(acc.variance(0) / n);
  return e;
}

}  // namespace icl::learn
