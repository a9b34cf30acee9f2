#include "icl/learn/trainer.hpp"

#include "icl/execute/executor.hpp"
#include "icl/execute/precision.hpp"
#include "icl/execute/ranks.hpp"
#include "icl/learn/checkpoint.hpp"
#include "icl/learn/training_estimate.hpp"
#include "icl/execute/progress_line.hpp"
#include "icl/io/svg_plot.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace icl::learn {

const char* to_string(TrainStatus s) {
  switch (s) {
    case TrainStatus::finished: return "finished";
    case TrainStatus::diverged: return "diverged";
    case TrainStatus::stalled: return "stalled";
  }
  return "?";
}

namespace {

void validate(const TrainConfig& c, const Parameterisation& p, const Eigen::VectorXd& theta0) {
  if (c.optimizer != "adam" && c.optimizer != "sgd" && c.optimizer != "lbfgs")
    throw std::invalid_argument("train: optimizer must be adam, sgd or lbfgs, got '" + c.optimizer + "'");
  if (!(c.learning_rate > 0)) throw std::invalid_argument("train: learning_rate must be > 0");
  if (c.batch < 1) throw std::invalid_argument("train: batch must be >= 1");
  if (c.steps < 0) throw std::invalid_argument("train: steps must be >= 0");
  if (c.resample_every < 1) throw std::invalid_argument("train: resample_every must be >= 1");
  if (c.clip < 0) throw std::invalid_argument("train: clip must be >= 0");
  if (theta0.size() != p.size()) throw std::invalid_argument("train: theta0 has the wrong size");
}

// The training progress line (execute/progress_line.hpp: on a terminal only, within its width, cleared exactly).
class Progress {
public:
  Progress(const TrainConfig& c) : on_(c.progress), label_(c.label), steps_(c.steps) {}
  void update(int step, double loss, double seconds) {
    if (!on_ || !line_.enabled() || seconds - last_ < 0.25) return;
    last_ = seconds;
    if (first_step_ < 0) {
      first_step_ = step;
      first_seconds_ = seconds;
    }
    const double rate = step > first_step_ ? (seconds - first_seconds_) / (step - first_step_) : 0.0;
    line_.show(fmt::format("[{}] step {}/{}  loss {:.4g}  {:.0f} s{}", label_, step, steps_, loss, seconds,
                           rate > 0 ? fmt::format(", about {:.0f} s left", rate * (steps_ - step)) : ""));
  }

private:
  bool on_;
  std::string label_;
  int steps_;
  double last_ = -1;
  int first_step_ = -1;  // the first step shown and its time: the rate for the time left
  double first_seconds_ = 0;
  ProgressLine line_;  // its destructor clears what it drew
};

}  // namespace

namespace {

// --estimate (training_estimate below): what the runs trained while it is on have measured and predicted.
struct EstimateTally {
  std::mutex m;
  std::atomic<bool> on{false};
  TrainingEstimate e;
};
EstimateTally& tally() {
  static EstimateTally t;
  return t;
}

TrainResult train_steps(const Parameterisation& params, Eigen::VectorXd theta, const PromptSource& source, LossSpec loss,
                        const TrainConfig& cfg);

}  // namespace

void begin_training_estimate() {
  std::lock_guard<std::mutex> lock(tally().m);
  tally().e = {};
  tally().on = true;
}

TrainingEstimate end_training_estimate() {
  std::lock_guard<std::mutex> lock(tally().m);
  tally().on = false;
  return tally().e;
}

bool training_estimate_active() { return tally().on.load(); }

void add_training_estimate(double step_seconds, long long steps, double calibration_seconds) {
  std::lock_guard<std::mutex> lock(tally().m);
  tally().e.predicted_seconds += step_seconds * static_cast<double>(steps);
  tally().e.calibration_seconds += calibration_seconds;
  tally().e.runs += 1;
  tally().e.steps += steps;
  tally().e.step_seconds_max = std::max(tally().e.step_seconds_max, step_seconds);
}

TrainResult train(const Parameterisation& params, Eigen::VectorXd theta, const PromptSource& source, LossSpec loss,
                  const TrainConfig& cfg) {
  if (!tally().on || cfg.steps <= 3) return train_steps(params, std::move(theta), source, loss, cfg);
  // Calibration: one step (the warm-up: scratch sized, the first test evaluation), then three; the difference is
  // two steps' cost at this minibatch, backend and thread count. The run is predicted as its steps times that cost
  // (the test evaluations along the curve are not counted); the claim goes on with the three-step weights.
  validate(cfg, params, theta);
  TrainConfig c = cfg;
  c.progress = false;
  c.curve_points = 1;
  const auto clock = [] { return std::chrono::steady_clock::now(); };
  c.steps = 1;
  const auto t0 = clock();
  (void)train_steps(params, theta, source, loss, c);
  const auto t1 = clock();
  c.steps = 3;
  TrainResult r = train_steps(params, std::move(theta), source, loss, c);
  const auto t2 = clock();
  const double one = std::chrono::duration<double>(t1 - t0).count(), three = std::chrono::duration<double>(t2 - t1).count();
  const double per_step = std::max(0.0, (three - one) / 2);
  std::lock_guard<std::mutex> lock(tally().m);
  tally().e.predicted_seconds += per_step * cfg.steps;
  tally().e.calibration_seconds += one + three;
  tally().e.runs += 1;
  tally().e.steps += cfg.steps;
  tally().e.step_seconds_max = std::max(tally().e.step_seconds_max, per_step);
  return r;
}

namespace {

TrainResult train_steps(const Parameterisation& params, Eigen::VectorXd theta, const PromptSource& source, LossSpec loss,
                        const TrainConfig& cfg) {
  validate(cfg, params, theta);
  // Checkpoints (checkpoint.hpp): a run found finished returns its result; one found part-way goes on from its step.
  const bool ck = !checkpoints().dir.empty();
  const std::uint64_t key = ck ? training_key(params, theta, source, loss, cfg) : 0;
  if (ck)
    if (auto done = load_finished(key)) return *done;
  const bool saves_state = ck && cfg.optimizer != "lbfgs";
  const auto t0 = std::chrono::steady_clock::now();
  double earlier = 0;  // seconds spent before a resume
  auto seconds = [&] {
    return earlier + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  BatchObjective obj(params, source, loss, cfg.threads);
  const std::uint64_t test_purpose = block_purpose(cfg.purpose, std::numeric_limits<std::uint64_t>::max());
  const int P = params.size();
  const int record_every = std::max(1, cfg.steps / std::max(1, cfg.curve_points));
  TrainResult res;
  res.curve.extra_names = cfg.observe_names;
  res.curve.extra.resize(cfg.observe_names.size());
  Progress progress(cfg);

  auto test_loss = [&](int step, bool force) -> double {
    if (cfg.test_batch == 0) return NAN;
    if (!force && cfg.eval_every > 0 && step % cfg.eval_every != 0) return NAN;
    return obj.evaluate(theta, cfg.seed, test_purpose, cfg.test_batch, nullptr);
  };
  std::vector<double> extra;
  auto record = [&](int step, double train_mean, double gnorm, bool force_test) {
    res.curve.step.push_back(step);
    res.curve.train_loss.push_back(train_mean);
    res.curve.test_loss.push_back(test_loss(step, force_test));
    res.curve.grad_norm.push_back(gnorm);
    if (cfg.observe) {
      extra.assign(cfg.observe_names.size(), NAN);
      cfg.observe(step, theta, extra);
      for (std::size_t k = 0; k < extra.size() && k < res.curve.extra.size(); ++k) res.curve.extra[k].push_back(extra[k]);
    }
  };

  Adam adam{cfg.beta1, cfg.beta2, cfg.epsilon, {}, {}, 0};
  adam.reset(P);
  LbfgsState lb;
  LbfgsOptions lbo;
  lbo.history = cfg.lbfgs_history;
  lbo.initial_step = cfg.learning_rate;
  std::uint64_t lb_block = std::numeric_limits<std::uint64_t>::max();
  Eigen::VectorXd g(P), good = theta;
  double window = 0;
  int window_n = 0, t = 0;
  double gnorm = 0, last_loss = NAN;
  record(0, NAN, NAN, true);  // the starting point (its minibatch loss is filled in at step 0)
  int ranks_before = 1;
  if (saves_state)
    if (auto s = load_state(key)) {
      t = s->t;
      theta = s->theta;
      good = s->good;
      adam.m = s->adam_m;
      adam.v = s->adam_v;
      adam.t = s->adam_t;
      window = s->window;
      window_n = s->window_n;
      gnorm = s->gnorm;
      last_loss = s->last_loss;
      earlier = s->seconds;
      ranks_before = s->ranks;
      res.curve = s->curve;
    }
  double last_save = seconds();
  auto save = [&](int steps_done) {
    TrainState s;
    s.t = steps_done;
    s.theta = theta;
    s.good = good;
    s.adam_m = adam.m;
    s.adam_v = adam.v;
    s.adam_t = adam.t;
    s.window = window;
    s.window_n = window_n;
    s.gnorm = gnorm;
    s.last_loss = last_loss;
    s.seconds = seconds();
    s.ranks = std::max(ranks_before, obj.ranks());
    s.curve = res.curve;
    save_state(key, s);
    last_save = seconds();
  };
  for (; t < cfg.steps; ++t) {
    const std::uint64_t block = static_cast<std::uint64_t>(t / cfg.resample_every);
    const std::uint64_t purpose = block_purpose(cfg.purpose, block);
    const double lr = cfg.lr_decay_every > 0 ? cfg.learning_rate * std::pow(cfg.lr_decay, t / cfg.lr_decay_every)
                                             : cfg.learning_rate;
    double L = 0;
    if (cfg.optimizer == "lbfgs") {
      if (block != lb_block) {
        lb.reset();
        lb_block = block;
      }
      const Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& th, Eigen::VectorXd& grad) {
        return obj.evaluate(th, cfg.seed, purpose, cfg.batch, &grad);
      };
      std::string why;
      const bool had = lb.has_grad;
      const double before = lb.loss;
      good = theta;
      if (!lbfgs_step(f, theta, lb, lbo, why)) {
        theta = good;
        if (why == "loss or gradient not finite") {
          res.status = TrainStatus::diverged;
          res.reason = fmt::format("L-BFGS: loss or gradient not finite at step {}", t);
          break;
        }
        // No decrease on this block's minibatch: its minimum is reached; go on with the next block, or stop.
        const int next = static_cast<int>((block + 1) * cfg.resample_every);
        if (next >= cfg.steps) {
          res.status = TrainStatus::finished;
          res.reason = fmt::format("L-BFGS: {} at step {} (minibatch minimum reached)", why, t);
          L = lb.has_grad ? lb.loss : NAN;
          if (std::isfinite(L)) {
            window += L;
            ++window_n;
          }
          break;
        }
        t = next - 1;
        continue;
      }
      L = had ? before : lb.loss;  // the loss before this iteration's move, when known
      gnorm = lb.grad.lpNorm<2>();
    } else {
      L = obj.evaluate(theta, cfg.seed, purpose, cfg.batch, &g);
      if (!std::isfinite(L) || !g.allFinite()) {
        theta = good;
        res.status = TrainStatus::diverged;
        res.reason = fmt::format("{} not finite at step {} (minibatch of {}); the weights before it kept",
                                 std::isfinite(L) ? "gradient" : fmt::format("loss ({})", L), t, cfg.batch);
        break;
      }
      gnorm = clip_group_norms(params, g, cfg.clip);
      good = theta;
      if (cfg.optimizer == "adam")
        adam.step(theta, g, lr);
      else
        theta -= lr * g;
    }
    const double wmax = theta.size() ? theta.lpNorm<Eigen::Infinity>() : 0.0;
    if (!theta.allFinite() || wmax > cfg.max_weight) {
      theta = good;
      res.status = TrainStatus::diverged;
      res.reason = fmt::format("weights exploded at step {} (largest |weight| {:.3g} > {:.3g}); weights before it kept", t,
                               wmax, cfg.max_weight);
      break;
    }
    last_loss = L;
    window += L;
    ++window_n;
    if (t == 0) {
      res.curve.train_loss[0] = L;
      res.curve.grad_norm[0] = gnorm;
    }
    if ((t + 1) % record_every == 0 || t + 1 == cfg.steps) {
      record(t + 1, window / window_n, gnorm, t + 1 == cfg.steps);
      window = 0;
      window_n = 0;
    }
    progress.update(t + 1, L, seconds());
    if (saves_state) {
      // Under MPI every rank stops at the same step (each gets the signal at its own moment; a rank that stopped
      // alone would leave the others waiting in the next step's exchange).
      std::uint64_t stop_word = stop_requested().load() ? 1 : 0;
      if (rank_comm().size > 1 && rank_comm().or_all) rank_comm().or_all(&stop_word, 1);
      const bool stop = stop_word != 0;
      if (stop || seconds() - last_save >= checkpoints().every_seconds) save(t + 1);
      if (stop)
        throw Interrupted(fmt::format("{}: stopped at step {} of {}; its state is saved in {}", cfg.label, t + 1,
                                      cfg.steps, checkpoints().dir));
    }
  }
  res.steps_done = t;
  res.theta = theta;
  if (window_n > 0) record(t, window / window_n, gnorm, true);
  res.final_train_loss = res.curve.train_loss.empty() ? last_loss : res.curve.train_loss.back();
  if (cfg.test_batch > 0) {
    res.final_test_loss = res.curve.test_loss.empty() ? NAN : res.curve.test_loss.back();
    if (!std::isfinite(res.final_test_loss)) res.final_test_loss = test_loss(t, true);
  }
  res.seconds = seconds();
  res.ranks = std::max(ranks_before, obj.ranks());
  if (ck) save_finished(key, res);
  return res;
}

}  // namespace

nlohmann::ordered_json training_json(const TrainConfig& c, const std::vector<std::uint64_t>& seeds, bool paper_settings,
                                     const std::string& curve_file) {
  nlohmann::ordered_json j;
  j["optimizer"] = c.optimizer;
  j["learning_rate"] = c.learning_rate;
  j["batch"] = c.batch;
  j["steps"] = c.steps;
  j["trials"] = seeds.size();
  j["seeds"] = seeds;
  j["paper_settings"] = paper_settings;
  j["curve_file"] = curve_file;
  j["resample_every"] = c.resample_every;
  j["gradient_clip"] = c.clip > 0 ? nlohmann::ordered_json(c.clip) : nlohmann::ordered_json(nullptr);
  j["gradient_clip_kind"] = "Frobenius norm of each trained matrix's gradient";
  if (c.optimizer == "adam") j["adam"] = {{"beta1", c.beta1}, {"beta2", c.beta2}, {"epsilon", c.epsilon}};
  if (c.lr_decay_every > 0) j["lr_schedule"] = {{"factor", c.lr_decay}, {"every", c.lr_decay_every}};
  if (c.optimizer == "lbfgs") j["lbfgs_history"] = c.lbfgs_history;
  j["test_batch"] = c.test_batch;
  j["chunk"] = BatchObjective::kChunk;
  j["backend"] = execute::to_string(execute::default_backend());  // where the minibatches ran (execute/executor.hpp)
  j["precision"] = execute::to_string(execute::default_precision());
  return j;
}

nlohmann::ordered_json curve_json(const TrainResult& r) {
  nlohmann::ordered_json j;
  j["status"] = to_string(r.status);
  if (!r.reason.empty()) j["reason"] = r.reason;
  j["steps_done"] = r.steps_done;
  j["ranks"] = r.ranks;
  j["final_train_loss"] = r.final_train_loss;
  if (std::isfinite(r.final_test_loss)) j["final_test_loss"] = r.final_test_loss;
  nlohmann::ordered_json c;
  c["step"] = r.curve.step;
  c["train_loss"] = r.curve.train_loss;
  c["test_loss"] = r.curve.test_loss;
  c["grad_norm"] = r.curve.grad_norm;
  for (std::size_t k = 0; k < r.curve.extra_names.size(); ++k) c[r.curve.extra_names[k]] = r.curve.extra[k];
  j["curve"] = c;
  return j;
}

std::string training_svg(const std::string& title, const std::vector<std::pair<std::string, const TrainResult*>>& runs) {
  PlotSpec p;
  p.title = title;
  p.xlabel = "step";
  p.ylabel = "loss";
  p.log_x = false;
  p.log_y = true;
  for (const auto& [name, r] : runs) {
    PlotSeries tr{name + " (train)", {}, {}, false}, te{name + " (test)", {}, {}, true};
    for (std::size_t i = 0; i < r->curve.step.size(); ++i) {
      tr.t.push_back(r->curve.step[i]);
      tr.y.push_back(r->curve.train_loss[i]);
      if (std::isfinite(r->curve.test_loss[i])) {
        te.t.push_back(r->curve.step[i]);
        te.y.push_back(r->curve.test_loss[i]);
      }
    }
    p.series.push_back(std::move(tr));
    if (!te.t.empty()) p.series.push_back(std::move(te));
  }
  return svg_plot(p);
}

}  // namespace icl::learn
