#include "icl/learn/gpt2.hpp"

#include "icl/execute/chunks.hpp"
#include "icl/layers/layer_norm.hpp"
#include "icl/layers/linear.hpp"
#include "icl/layers/positional.hpp"
#include "icl/layers/residual_blocks.hpp"
#include "icl/learn/checkpoint.hpp"
#include "icl/learn/optimizers.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/learn/training_estimate.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/softmax_attention.hpp"
#include "icl/montecarlo/montecarlo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace icl::gpt2 {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

const char* to_string(Pe pe) {
  switch (pe) {
    case Pe::none: return "no PE";
    case Pe::trainable: return "trainable PE";
    case Pe::sincos: return "sin-cos PE";
  }
  return "?";
}

std::string ModelSpec::name() const {
  return fmt::format("{} layer{}, {}, {}", layers, layers == 1 ? "" : "s", mask ? "mask" : "no mask", to_string(pe));
}

Network build(const ModelSpec& s) {
  if (s.d < 1 || s.D < 1 || s.p < 1 || s.heads < 1 || s.layers < 1)
    throw std::invalid_argument("xlssc GPT-2 model: d, D, p, heads and layers must be >= 1");
  const auto kind = s.pe == Pe::none        ? layers::PositionalEncoding::Kind::none
                    : s.pe == Pe::trainable ? layers::PositionalEncoding::Kind::trainable
                                            : layers::PositionalEncoding::Kind::sincos;
  Network net;
  net.rows = s.d + 1;
  net.add(std::make_unique<layers::Linear>(s.d + 1, s.p));  // read-in
  net.add(std::make_unique<layers::PositionalEncoding>(s.p, s.tokens(), kind, s.lambda));
  for (int l = 0; l < s.layers; ++l) {
    net.add(std::make_unique<layers::AttentionBlock>(s.p, s.heads, s.mask));
    net.add(std::make_unique<layers::MlpBlock>(s.p, 4 * s.p));
  }
  net.add(std::make_unique<layers::LayerNorm>(s.p));   // ln_f
  net.add(std::make_unique<layers::Linear>(s.p, 1));  // read-out
  return net;
}

void initialise(Network& net, const ModelSpec& s, std::uint64_t seed, std::uint64_t purpose) {
  PromptRng rng(seed, purpose, 0);
  const double sd = 0.02, sd_proj = 0.02 / std::sqrt(2.0 * s.layers);
  for (int l = 0; l < net.size(); ++l) {
    layers::Layer& L = net.layer(l);
    const std::string_view kind = L.kind();
    for (auto& prm : L.params()) {
      MatrixXd& w = prm.value;
      const std::string& n = prm.name;
      if (kind == layers::Linear::kKind) {  // torch.nn.Linear: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for W and b
        const double a = 1.0 / std::sqrt(static_cast<double>(L.param(0).cols()));
        for (Index j = 0; j < w.cols(); ++j)
          for (Index i = 0; i < w.rows(); ++i) w(i, j) = a * (2.0 * rng.uniform() - 1.0);
      } else if (n == "E" || n == "attn.Wq" || n == "attn.Wk" || n == "attn.Wv" || n == "mlp.W1") {
        for (Index j = 0; j < w.cols(); ++j)
          for (Index i = 0; i < w.rows(); ++i) w(i, j) = sd * rng.normal();
      } else if (n == "attn.Wo" || n == "mlp.W2") {
        for (Index j = 0; j < w.cols(); ++j)
          for (Index i = 0; i < w.rows(); ++i) w(i, j) = sd_proj * rng.normal();
      } else if (n.size() >= 5 && n.compare(n.size() - 5, 5, "gamma") == 0) {
        w.setOnes();
      } else {
        w.setZero();  // biases, LayerNorm beta
      }
    }
  }
}

int parameter_count(const Network& net) {
  Index n = 0;
  for (int l = 0; l < net.size(); ++l)
    for (const auto& p : net.layer(l).params()) n += p.value.size();
  return static_cast<int>(n);
}

VectorXd pack(const Network& net) {
  VectorXd theta(parameter_count(net));
  Index o = 0;
  for (int l = 0; l < net.size(); ++l)
    for (const auto& p : net.layer(l).params()) {
      theta.segment(o, p.value.size()) = p.value.reshaped();
      o += p.value.size();
    }
  return theta;
}

void unpack(const Eigen::Ref<const VectorXd>& theta, Network& net) {
  if (theta.size() != parameter_count(net)) throw std::invalid_argument("gpt2::unpack: wrong parameter count");
  Index o = 0;
  for (int l = 0; l < net.size(); ++l)
    for (auto& p : net.layer(l).params()) {
      p.value.reshaped() = theta.segment(o, p.value.size());
      o += p.value.size();
    }
}

void add_flat(const WeightGrads& g, Eigen::Ref<VectorXd> out) {
  Index o = 0;
  for (const auto& lg : g.g)
    for (const auto& m : lg.g) {
      out.segment(o, m.size()) += m.reshaped();
      o += m.size();
    }
}

const MatrixXd& forward(const Network& net, const MatrixXd& Z, Tape& t) {
  const auto L = static_cast<std::size_t>(net.size());
  if (t.Z.size() != L + 1) t.Z.resize(L + 1);
  if (t.cache.size() != L) t.cache.resize(L);
  t.Z[0] = Z;
  for (std::size_t l = 0; l < L; ++l) net.layer(static_cast<int>(l)).forward(t.Z[l], t.Z[l + 1], t.cache[l], t.scratch);
  return t.Z[L];
}

double prompt_loss(const Network& net, const MatrixXd& Z, const VectorXd& y, Tape& t, WeightGrads* g) {
  const Index D = y.size() - 1;
  if (Z.cols() != 2 * D + 1) throw std::invalid_argument("gpt2::prompt_loss: the prompt needs 2D+1 tokens");
  const MatrixXd& out = forward(net, Z, t);
  const double w = 1.0 / static_cast<double>(D + 1);
  double loss = 0;
  if (g) t.R.setZero(1, Z.cols());
  for (Index i = 0; i <= D; ++i) {
    const double e = out(0, 2 * i) - y[i];
    loss += e * e;
    if (g) t.R(0, 2 * i) = 2.0 * w * e;
  }
  if (g)
    for (int l = net.size() - 1; l >= 0; --l) {
      const auto k = static_cast<std::size_t>(l);
      net.layer(l).backward(t.Z[k], t.cache[k], t.scratch, t.R, g->g[k]);
    }
  return w * loss;
}

void draw_prompt(int d, int D, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i, MatrixXd& Z, VectorXd& y,
                 int active) {
  // The draws of icl::unstructured_prompts (the same prompt for the same (seed, purpose, i)).
  PromptRng rng(seed, purpose, i);
  VectorXd th(d);
  rng.fill_normal(th);
  th /= std::sqrt(static_cast<double>(d));
  MatrixXd X(d, D + 1);
  rng.fill_normal(X);
  if (active > 0 && active < d) X.bottomRows(d - active).setZero();
  const Eigen::RowVectorXd yy = th.transpose() * X;
  Z.resize(d + 1, 2 * D + 1);
  embed_unstructured(X, yy.head(D), Z);
  y = yy.transpose();
}

namespace {

// Prompts per minibatch chunk: 16, not the executor's 64, so that Garg et al.'s minibatch of 64 (one prompt costs
// about 21M multiply-adds at p = 64, D = 30) splits over 4 threads or MPI ranks; a chunk's gradient sum (P numbers)
// is small beside its 16 prompts' work.
constexpr std::uint64_t kChunk = 16;

class Minibatch {
public:
  Minibatch(const ModelSpec& s, int threads, int P) : s_(s), threads_(std::max(1, threads)), P_(P) {
    workers_.resize(static_cast<std::size_t>(threads_));
  }
  // Mean loss over prompts 0..batch-1 of (seed, purpose); the mean gradient into grad.
  double run(const Network& net, std::uint64_t seed, std::uint64_t purpose, std::uint64_t batch, VectorXd& grad,
             int active, int examples) {
    const std::uint64_t chunks = (batch + kChunk - 1) / kChunk;
    loss_.assign(chunks, 0.0);
    if (grads_.size() < chunks) grads_.resize(chunks);
    for (auto& w : workers_)
      if (w.g.g.empty()) w.g = net.make_grads(true);
    // Under K MPI ranks each computes its chunks c = r mod K and every rank gets every chunk's numbers bit for bit
    // (execute/chunks.hpp), as the executor's minibatches: the same sums as one process.
    const int ranks = execute::sharing_ranks();
    execute::for_rank_chunks(0, chunks, threads_, ranks, [&](int w) {
      return [&, &k = workers_[static_cast<std::size_t>(w)]](std::uint64_t c) {
        k.g.zero();
        double sum = 0;
        for (std::uint64_t i = c * kChunk; i < std::min(batch, (c + 1) * kChunk); ++i) {
          draw_prompt(s_.d, examples, seed, purpose, i, k.Z, k.y, active);
          sum += prompt_loss(net, k.Z, k.y, k.tape, &k.g);
        }
        loss_[c] = sum;
        grads_[c].setZero(P_);
        add_flat(k.g, grads_[c]);
      };
    });
    if (ranks > 1) share(chunks, ranks);
    double total = 0;
    grad.setZero(P_);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      total += loss_[c];
      grad += grads_[c];
    }
    const double inv = 1.0 / static_cast<double>(batch);
    grad *= inv;
    return total * inv;
  }

private:
  void share(std::uint64_t chunks, int ranks) {
    const std::size_t per = 1 + static_cast<std::size_t>(P_);
    std::vector<std::uint64_t> w(per * chunks, 0);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      if (!execute::owns_chunk(c, ranks)) continue;
      std::uint64_t* o = w.data() + per * c;
      o[0] = std::bit_cast<std::uint64_t>(loss_[c]);
      for (int p = 0; p < P_; ++p) o[1 + p] = std::bit_cast<std::uint64_t>(grads_[c][p]);
    }
    execute::share_chunk_words(w, ranks);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      const std::uint64_t* o = w.data() + per * c;
      loss_[c] = std::bit_cast<double>(o[0]);
      grads_[c].resize(P_);
      for (int p = 0; p < P_; ++p) grads_[c][p] = std::bit_cast<double>(o[1 + p]);
    }
  }
  struct Worker {
    Tape tape;
    WeightGrads g;
    MatrixXd Z;
    VectorXd y;
  };
  ModelSpec s_;
  int threads_, P_;
  std::vector<Worker> workers_;
  std::vector<double> loss_;
  std::vector<VectorXd> grads_;
};

// FNV-1a over everything a run's numbers depend on (the thread count aside).
std::uint64_t run_key(const ModelSpec& s, const TrainSettings& ts, std::uint64_t seed, std::uint64_t purpose,
                      std::uint64_t init_purpose) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  };
  const auto num = [&mix](double v) { mix(&v, sizeof v); };
  const std::string tag = "xlssc_gpt2 v1";  // the name the checkpoints of runs before the move to lib/ carry
  mix(tag.data(), tag.size());
  for (double v : {double(s.d), double(s.D), double(s.p), double(s.heads), double(s.layers), double(s.mask),
                   double(static_cast<int>(s.pe)), s.lambda, double(ts.steps), double(ts.batch), ts.learning_rate,
                   ts.beta1, ts.beta2, ts.epsilon, double(ts.curve_points), double(kChunk)})
    num(v);
  // (absent when 0: the keys of runs without warm-up or curriculum unchanged)
  if (ts.warmup > 0) num(double(ts.warmup));
  if (ts.dims_start > 0) {
    num(double(ts.dims_start));
    num(double(ts.dims_interval));
  }
  if (ts.examples_start > 0) {
    num(double(ts.examples_start) + 0.5);
    num(double(ts.examples_interval));
  }
  for (std::uint64_t v : {seed, purpose, init_purpose}) mix(&v, sizeof v);
  return h;
}

// A run's state from its checkpoint: the step to go on from, the weights, Adam's moments, the loss window, the first
// loss, the seconds already spent and the curve so far.
void resume(const learn::TrainState& st, TrainRun& r, learn::Adam& adam, int& t, double& window, int& window_n,
            double& earlier, Network& net) {
  t = st.t;
  r.theta = st.theta;
  adam.m = st.adam_m;
  adam.v = st.adam_v;
  adam.t = st.adam_t;
  window = st.window;
  window_n = st.window_n;
  r.first_loss = st.last_loss;
  earlier = st.seconds;
  r.curve_step = st.curve.step;
  r.curve_loss = st.curve.train_loss;
  unpack(r.theta, net);
}

// The learning rate at step t: linear warm-up over the first ts.warmup steps, then constant.
double step_learning_rate(const TrainSettings& ts, int t) {
  return ts.warmup > 0 && t + 1 < ts.warmup
             ? ts.learning_rate * static_cast<double>(t + 1) / static_cast<double>(ts.warmup)
             : ts.learning_rate;
}

}  // namespace

TrainRun train(const ModelSpec& s, const TrainSettings& ts, std::uint64_t seed, std::uint64_t purpose,
               std::uint64_t init_purpose) {
  if (ts.steps < 0 || ts.batch < 1 || !(ts.learning_rate > 0))
    throw std::invalid_argument("gpt2::train: steps >= 0, batch >= 1, learning rate > 0");
  const auto t0 = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  Network net = build(s);
  initialise(net, s, seed, init_purpose);
  TrainRun r;
  r.theta = pack(net);
  const int P = static_cast<int>(r.theta.size());
  Minibatch mb(s, ts.threads, P);
  learn::Adam adam{ts.beta1, ts.beta2, ts.epsilon, {}, {}, 0};
  adam.reset(P);
  const bool estimate = learn::training_estimate_active() && ts.steps > 3;
  const int steps = estimate ? 3 : ts.steps;
  const int record_every = std::max(1, steps / std::max(1, ts.curve_points));
  VectorXd g(P), good = r.theta;
  double window = 0, first_step_seconds = 0, earlier = 0;
  int window_n = 0, t = 0;
  // Checkpoints (`--checkpoint DIR`, learn/checkpoint.hpp): the state is saved under a key of everything the run's
  // numbers depend on, every `every_seconds`, when a stop is requested and at the end; a run finds its state and
  // goes on from it (a finished one returns at once). TrainState's last_loss holds this loop's first loss.
  const bool ck = !estimate && !learn::checkpoints().dir.empty();
  const std::uint64_t key = ck ? run_key(s, ts, seed, purpose, init_purpose) : 0;
  if (ck)
    if (auto st = learn::load_state(key)) resume(*st, r, adam, t, window, window_n, earlier, net);
  const auto elapsed = [&] { return earlier + seconds(); };
  double last_save = elapsed();
  const auto save = [&](int done) {
    learn::TrainState st;
    st.t = done;
    st.theta = st.good = r.theta;
    st.adam_m = adam.m;
    st.adam_v = adam.v;
    st.adam_t = adam.t;
    st.window = window;
    st.window_n = window_n;
    st.last_loss = r.first_loss;
    st.seconds = elapsed();
    st.curve.step = r.curve_step;
    st.curve.train_loss = r.curve_loss;
    learn::save_state(key, st);
    last_save = elapsed();
  };
  for (; t < steps; ++t) {
    if (estimate && t == 1) first_step_seconds = seconds();
    const int active =
        ts.dims_start > 0 ? std::min(s.d, ts.dims_start + t / std::max(1, ts.dims_interval)) : s.d;
    const int examples =
        ts.examples_start > 0 ? std::min(s.D, ts.examples_start + t / std::max(1, ts.examples_interval)) : s.D;
    const double L =
        mb.run(net, seed, icl::block_purpose(purpose, static_cast<std::uint64_t>(t)), ts.batch, g, active, examples);
    if (!std::isfinite(L) || !g.allFinite()) {
      r.ok = false;
      r.reason = fmt::format("{} not finite at step {} (minibatch of {}); the weights before it kept",
                             std::isfinite(L) ? "gradient" : fmt::format("loss ({})", L), t, ts.batch);
      break;
    }
    if (t == 0) r.first_loss = L;
    good = r.theta;
    adam.step(r.theta, g, step_learning_rate(ts, t));
    if (!r.theta.allFinite()) {
      r.theta = good;
      r.ok = false;
      r.reason = fmt::format("weights not finite after step {}; the weights before it kept", t);
      break;
    }
    unpack(r.theta, net);
    window += L;
    ++window_n;
    if ((t + 1) % record_every == 0 || t + 1 == steps) {
      r.curve_step.push_back(t + 1);
      r.curve_loss.push_back(window / window_n);
      window = 0;
      window_n = 0;
    }
    if (ck) {
      const bool stop = learn::stop_requested().load();
      if (stop || elapsed() - last_save >= learn::checkpoints().every_seconds) save(t + 1);
      if (stop)
        throw learn::Interrupted(fmt::format("{}: stopped at step {} of {}; its state is saved in {}", s.name(), t + 1,
                                             steps, learn::checkpoints().dir));
    }
  }
  r.steps_done = t;
  r.final_train_loss = r.curve_loss.empty() ? NAN : r.curve_loss.back();
  r.seconds = elapsed();
  if (ck && r.ok) save(t);
  if (estimate && r.ok) {
    const double per_step = std::max(0.0, (r.seconds - first_step_seconds) / 2.0);  // steps 2 and 3 (step 1 warms up)
    learn::add_training_estimate(per_step, ts.steps, r.seconds);
  }
  return r;
}

namespace {
// One prompt's squared errors at k = 0..D (out[0..D]) and their mean (out[D+1]), as loss_by_examples reads them.
void prompt_errors(const Network& net, const ModelSpec& s, const MatrixXd& Z, const VectorXd& y, Tape& tape,
                   MatrixXd& Zk, double* out) {
  const int K = s.D + 1;
  if (s.mask) {
    const MatrixXd& o = forward(net, Z, tape);
    for (int k = 0; k < K; ++k) {
      const double e = o(0, 2 * k) - y[k];
      out[k] = e * e;
    }
  } else {
    for (int k = 0; k < K; ++k) {
      Zk = Z.leftCols(2 * k + 1);
      const MatrixXd& o = forward(net, Zk, tape);
      const double e = o(0, 2 * k) - y[k];
      out[k] = e * e;
    }
  }
  double mean = 0;
  for (int k = 0; k < K; ++k) mean += out[k];
  out[K] = mean / K;
}
}  // namespace

Estimate paired_by_examples(const Network& net_a, const ModelSpec& sa, int ka, const Network& net_b,
                            const ModelSpec& sb, int kb, std::uint64_t seed, std::uint64_t purpose,
                            std::uint64_t samples, int threads, double confidence) {
  if (sa.d != sb.d || sa.D != sb.D) throw std::invalid_argument("paired_by_examples: the two models' d and D differ");
  if (ka < 0 || ka > sa.D + 1 || kb < 0 || kb > sb.D + 1) throw std::invalid_argument("paired_by_examples: k in 0..D+1");
  const bool same = &net_a == &net_b && sa.mask == sb.mask;
  MonteCarlo mc(1, threads);
  mc.extend_to(samples, [&] {
    struct W {
      Tape tape;
      MatrixXd Z, Zk;
      VectorXd y;
      std::vector<double> a, b;
    };
    auto w = std::make_shared<W>();
    w->a.resize(static_cast<std::size_t>(sa.D + 2));
    w->b.resize(static_cast<std::size_t>(sb.D + 2));
    return [&, w, same](std::uint64_t i, double* out) {
      draw_prompt(sa.d, sa.D, seed, purpose, i, w->Z, w->y);
      prompt_errors(net_a, sa, w->Z, w->y, w->tape, w->Zk, w->a.data());
      const std::vector<double>* b = &w->a;
      if (!same) {
        prompt_errors(net_b, sb, w->Z, w->y, w->tape, w->Zk, w->b.data());
        b = &w->b;
      }
      out[0] = w->a[static_cast<std::size_t>(ka)] - (*b)[static_cast<std::size_t>(kb)];
    };
  });
  return make_estimate(mc.total(), 0, confidence);
}

std::vector<Estimate> loss_by_examples(const Network& net, const ModelSpec& s, std::uint64_t seed,
                                       std::uint64_t purpose, std::uint64_t samples, int threads, double confidence) {
  const int K = s.D + 1;
  MonteCarlo mc(K + 1, threads);  // k = 0..D, then the mean over k of the same prompt's errors
  mc.extend_to(samples, [&] {
    struct W {
      Tape tape;
      MatrixXd Z, Zk;
      VectorXd y;
    };
    auto w = std::make_shared<W>();
    return [&, w](std::uint64_t i, double* out) {
      draw_prompt(s.d, s.D, seed, purpose, i, w->Z, w->y);
      if (s.mask) {
        const MatrixXd& o = forward(net, w->Z, w->tape);
        for (int k = 0; k < K; ++k) {
          const double e = o(0, 2 * k) - w->y[k];
          out[k] = e * e;
        }
      } else {
        for (int k = 0; k < K; ++k) {
          w->Zk = w->Z.leftCols(2 * k + 1);
          const MatrixXd& o = forward(net, w->Zk, w->tape);
          const double e = o(0, 2 * k) - w->y[k];
          out[k] = e * e;
        }
      }
      double mean = 0;
      for (int k = 0; k < K; ++k) mean += out[k];
      out[K] = mean / K;
    };
  });
  const Accumulator acc = mc.total();
  std::vector<Estimate> est;
  for (int k = 0; k <= K; ++k) est.push_back(make_estimate(acc, k, confidence));
  return est;
}

}  // namespace icl::gpt2
