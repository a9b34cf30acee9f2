#include "icl/learn/objective.hpp"

#include "icl/montecarlo/montecarlo.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace icl::learn {

WorkerPool::WorkerPool(int threads) {
  for (int w = 1; w < std::max(1, threads); ++w) threads_.emplace_back([this, w] { loop(w); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerPool::work(int worker) {
  for (;;) {
    std::uint64_t task;
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (next_ >= tasks_ || error_) return;
      task = next_++;
    }
    try {
      (*job_)(task, worker);
    } catch (...) {
      std::lock_guard<std::mutex> lk(mu_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

void WorkerPool::loop(int worker) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      start_.wait(lk, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      ++busy_;
    }
    work(worker);
    {
      std::lock_guard<std::mutex> lk(mu_);
      --busy_;
    }
    done_.notify_all();
  }
}

void WorkerPool::run(std::uint64_t tasks, const std::function<void(std::uint64_t, int)>& f) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    job_ = &f;
    tasks_ = tasks;
    next_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  start_.notify_all();
  work(0);
  std::exception_ptr err;
  {
    std::unique_lock<std::mutex> lk(mu_);
    done_.wait(lk, [&] { return busy_ == 0; });
    job_ = nullptr;
    err = error_;
  }
  if (err) std::rethrow_exception(err);
}

struct BatchObjective::Worker {
  PromptDrawer draw;
  Tape tape;
  WeightGrads grads;
  Eigen::MatrixXd Z;
};

BatchObjective::BatchObjective(const Parameterisation& params, PromptSource source, LossSpec loss, int threads)
    : params_(&params), source_(std::move(source)), loss_(loss), pool_(threads) {
  if (source_.rows != params.base().rows)
    throw std::invalid_argument("BatchObjective: the prompts' rows differ from the network's");
  for (int w = 0; w < pool_.size(); ++w) {
    auto k = std::make_unique<Worker>();
    k->draw = source_.make_drawer();
    k->grads = params.make_grads();
    k->Z.resize(source_.rows, source_.cols);
    workers_.push_back(std::move(k));
  }
  net_ = params.base();
}

BatchObjective::~BatchObjective() = default;

double BatchObjective::evaluate(const Eigen::Ref<const Eigen::VectorXd>& theta, std::uint64_t seed,
                                std::uint64_t purpose, std::uint64_t count, Eigen::VectorXd* grad) {
  if (count == 0) throw std::invalid_argument("BatchObjective: empty batch");
  params_->apply(theta, net_);
  const std::uint64_t chunks = (count + kChunk - 1) / kChunk;
  chunk_loss_.assign(chunks, 0.0);
  if (grad) {
    if (chunk_grad_.size() < chunks) chunk_grad_.resize(chunks);
    for (std::uint64_t c = 0; c < chunks; ++c) chunk_grad_[c].setZero(params_->size());
  }
  const std::function<void(std::uint64_t, int)> job = [&](std::uint64_t c, int w) {
    Worker& k = *workers_[w];
    if (grad) k.grads.zero();
    double sum = 0;
    const std::uint64_t end = std::min(count, (c + 1) * kChunk);
    for (std::uint64_t i = c * kChunk; i < end; ++i) {
      const double yq = k.draw(seed, purpose, i, k.Z);
      const double yhat = forward(net_, k.Z, k.tape);
      sum += loss_(yhat, yq);
      if (grad) backward(net_, k.tape, loss_.derivative(yhat, yq), k.grads);
    }
    chunk_loss_[c] = sum;
    if (grad) params_->pullback(k.grads, chunk_grad_[c]);
  };
  pool_.run(chunks, job);
  double total = 0;
  for (std::uint64_t c = 0; c < chunks; ++c) total += chunk_loss_[c];
  const double inv = 1.0 / static_cast<double>(count);
  if (grad) {
    grad->setZero(params_->size());
    for (std::uint64_t c = 0; c < chunks; ++c) *grad += chunk_grad_[c];
    *grad *= inv;
  }
  return total * inv;
}

Estimate mc_loss(const Network& net, const PromptSource& source, LossSpec loss, std::uint64_t seed,
                 std::uint64_t purpose, std::uint64_t samples, int threads, double confidence) {
  MonteCarlo mc(1, threads);
  mc.extend_to(samples, [&] {
    return [&, draw = source.make_drawer(), tape = std::make_shared<Tape>(),
            Z = std::make_shared<Eigen::MatrixXd>(source.rows, source.cols)](std::uint64_t i, double* out) {
      const double yq = draw(seed, purpose, i, *Z);
      out[0] = loss(forward(net, *Z, *tape), yq);
    };
  });
  return make_estimate(mc.total(), 0, confidence);
}

LossDistribution loss_distribution(const Network& net, const PromptSource& source, LossSpec loss, std::uint64_t seed,
                                   std::uint64_t purpose, std::uint64_t samples, int threads, double tail_fraction) {
  // Every prompt's loss is kept (not only sums), so this does not go through the Monte Carlo engine's chunk split
  // (under MPI every rank computes all of them: the same vector on every rank). Each index is written once.
  std::vector<double> v(static_cast<std::size_t>(samples));
  constexpr std::uint64_t chunk = 256;
  const std::uint64_t chunks = (samples + chunk - 1) / chunk;
  std::atomic<std::uint64_t> next{0};
  auto body = [&] {
    PromptDrawer draw = source.make_drawer();
    Tape tape;
    Eigen::MatrixXd Z(source.rows, source.cols);
    for (std::uint64_t c; (c = next.fetch_add(1)) < chunks;)
      for (std::uint64_t i = c * chunk; i < std::min(samples, (c + 1) * chunk); ++i) {
        const double yq = draw(seed, purpose, i, Z);
        v[static_cast<std::size_t>(i)] = loss(forward(net, Z, tape), yq);
      }
  };
  std::vector<std::thread> pool;
  const int t = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(std::max(1, threads)), std::max<std::uint64_t>(chunks, 1)));
  for (int k = 1; k < t; ++k) pool.emplace_back(body);
  body();
  for (auto& th : pool) th.join();
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
  const std::size_t k = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(tail_fraction * static_cast<double>(v.size()))));
  double total = 0, tail = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    total += v[i];
    if (i >= v.size() - k) tail += v[i];
  }
  r.tail_share = total > 0 ? tail / total : 0.0;
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
