#include "claims/common/sja_training.hpp"

#include "icl/model/prompt.hpp"
#include "icl/montecarlo/statistics.hpp"
#include "icl/report/quantities.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace icl::sja_train {

Settings Settings::from_case(const Case& c) {
  Settings s;
  for (const auto& [k, v] : c.params) {
    if (k == "steps") s.steps = static_cast<int>(v);
    if (k == "batch") s.batch = static_cast<std::uint64_t>(v);
    if (k == "trials") s.trials = static_cast<int>(v);
    if (k == "lr") s.learning_rate = v;
    if (k == "init_sd") s.init_sd = v;
    if (k == "clip") s.clip = v;
  }
  return s;
}

std::vector<ParamSpec> with_training_params(std::vector<ParamSpec> model, const std::optional<DecidingTraining>& deciding) {
  const std::string steps_help =
      deciding ? fmt::format("Adam steps (paper 20000; deciding {}, {})", deciding->steps, deciding->why) : "Adam steps (paper 20000)";
  std::string clip_help = "per-matrix gradient-norm clipping, 0 for none (the paper states none";
  clip_help += deciding && deciding->clip > 0
                   ? fmt::format("; deciding {:g}: without it the models froze in the pilots at batch 64 and 128, bench/deciding_pilots.md)", deciding->clip)
                   : ")";
  std::vector<ParamSpec> training = {
      with_paper(ParamSpec{"steps", {200}, {40}, 1, 1e6, true, steps_help}, {20000}),
      with_paper(ParamSpec{"batch", {200}, {64}, 1, 1e6, true, "prompts per step, fresh every step (paper 4000)"}, {4000}),
      with_paper(ParamSpec{"trials", {3}, {3}, 2, 20, true, "training runs per model (paper 5)"}, {5}),
      with_paper(ParamSpec{"lr", {1e-3}, {1e-3}, 1e-6, 1, false, "Adam learning rate (paper 1e-3)"}, {1e-3}),
      ParamSpec{"init_sd", {0.02}, {0.02}, 1e-6, 1, false,
                "every trained entry starts ~ N(0, init_sd^2) (the paper does not state its initialisation)"},
      ParamSpec{"clip", {0}, {0}, 0, 1e6, false, clip_help}};
  if (deciding) {
    for (auto& p : model) p = with_deciding(p, p.paper.empty() ? p.defaults : p.paper);
    training[0] = with_deciding(training[0], {static_cast<double>(deciding->steps)});
    training[1] = with_deciding(training[1], {static_cast<double>(deciding->batch)});
    training[2] = with_deciding(training[2], {static_cast<double>(deciding->trials)});
    training[3] = with_deciding(training[3], {1e-3});
    if (deciding->clip > 0) training[5] = with_deciding(training[5], {deciding->clip});
  }
  model.insert(model.end(), training.begin(), training.end());
  return model;
}

std::string Settings::differences() const {
  std::vector<std::string> parts;
  if (batch != 4000) parts.push_back(fmt::format("batch {} (paper 4000)", batch));
  if (steps != 20000) parts.push_back(fmt::format("{} steps (paper 20000)", steps));
  if (trials != 5) parts.push_back(fmt::format("{} trials (paper 5)", trials));
  if (learning_rate != 1e-3) parts.push_back(fmt::format("learning rate {:g} (paper 1e-3)", learning_rate));
  if (clip > 0) parts.push_back(fmt::format("gradient clipping at norm {:g} per matrix (paper: none stated)", clip));
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

learn::TrainConfig train_trials(const ClaimContext& ctx, Model& model, const GaussianIclModel& task,
                                const PromptShape& shape, const Settings& s, const std::string& data_tag) {
  learn::TrainConfig c;
  c.optimizer = "adam";
  c.learning_rate = s.learning_rate;
  c.clip = s.clip;
  c.batch = s.batch;
  c.steps = s.steps;
  c.resample_every = 1;
  c.test_batch = std::min<std::uint64_t>(1000, std::max<std::uint64_t>(200, s.batch));
  c.curve_points = 60;
  c.threads = ctx.threads;
  c.purpose = ctx.purpose("train/" + data_tag);
  const learn::PromptSource src = learn::gaussian_prompts(task, shape);
  model.runs.clear();
  model.seeds.clear();
  for (int k = 0; k < s.trials; ++k) {
    c.seed = ctx.seed + static_cast<std::uint64_t>(k);
    c.label = fmt::format("{} {} trial {}", ctx.claim_id, model.name, k + 1);
    const Eigen::VectorXd theta0 =
        learn::normal_theta(model.params, s.init_sd, c.seed, ctx.purpose("init/" + model.name));
    learn::TrainResult r = learn::train(model.params, theta0, src, learn::LossSpec::sja(), c);
    // A run whose weights stay finite but whose loss blew up (deep product layers) counts as diverged.
    double first = NAN;
    for (double v : r.curve.test_loss)
      if (std::isfinite(v)) {
        first = v;
        break;
      }
    if (r.ok() && std::isfinite(first) && !(r.final_test_loss <= kBlowUp * first)) {
      r.status = learn::TrainStatus::diverged;
      r.reason = fmt::format("loss blow-up: held-out loss {:.3g} at the end, more than {:g} times its first value {:.3g}",
                             r.final_test_loss, kBlowUp, first);
    }
    model.runs.push_back(std::move(r));
    model.seeds.push_back(c.seed);
  }
  return c;
}

std::vector<double> TestLosses::means() const {
  std::vector<double> m;
  for (const auto& e : per_trial) m.push_back(e.mean);
  return m;
}

int TestLosses::finished() const {
  int k = 0;
  for (const auto& e : per_trial) k += std::isfinite(e.mean) ? 1 : 0;
  return k;
}

double TestLosses::mean() const {
  double s = 0;
  int k = 0;
  for (const auto& e : per_trial)
    if (std::isfinite(e.mean)) s += e.mean, ++k;
  return k ? s / k : NAN;
}

double TestLosses::sd() const {
  const double m = mean();
  double s = 0;
  int k = 0;
  for (const auto& e : per_trial)
    if (std::isfinite(e.mean)) s += (e.mean - m) * (e.mean - m), ++k;
  return k > 1 ? std::sqrt(s / (k - 1)) : NAN;
}

TestLosses test_losses(const ClaimContext& ctx, const Model& model, const GaussianIclModel& task, int dbar, int n_test,
                       int layers) {
  TestLosses t;
  t.n_test = n_test;
  const learn::PromptSource src = learn::gaussian_prompts(task, sja_shape(task.d, dbar, n_test));
  const std::uint64_t purpose = ctx.purpose(fmt::format("test/n={}", n_test));
  for (std::size_t k = 0; k < model.runs.size(); ++k) {
    const auto& r = model.runs[k];
    if (!r.ok()) {
      Estimate e;
      e.mean = e.ci_low = e.ci_high = e.stderr_ = e.sd = NAN;
      t.per_trial.push_back(e);
      continue;
    }
    learn::Network net = model.params.network(r.theta);
    if (layers > 0) net = net.truncated(layers);
    Estimate e = learn::mc_loss(net, src, learn::LossSpec::sja(), model.seeds[k], purpose,
                                std::max<std::uint64_t>(ctx.samples, 256), ctx.threads);
    if (!std::isfinite(e.mean) || !std::isfinite(e.ci_high)) e.mean = e.ci_low = e.ci_high = e.stderr_ = e.sd = NAN;
    t.per_trial.push_back(e);
  }
  return t;
}

std::vector<Estimate> paired_differences(const ClaimContext& ctx, const Model& lower, const Model& higher,
                                         const GaussianIclModel& task, int dbar, int n_test) {
  const learn::PromptSource src = learn::gaussian_prompts(task, sja_shape(task.d, dbar, n_test));
  const std::uint64_t purpose = ctx.purpose(fmt::format("test/n={}", n_test));
  std::vector<Estimate> out;
  const std::size_t T = std::min(lower.runs.size(), higher.runs.size());
  for (std::size_t k = 0; k < T; ++k) {
    Estimate e;
    e.mean = e.ci_low = e.ci_high = e.stderr_ = e.sd = NAN;
    if (lower.runs[k].ok() && higher.runs[k].ok() && lower.seeds[k] == higher.seeds[k]) {
      const learn::Network a = lower.params.network(lower.runs[k].theta), b = higher.params.network(higher.runs[k].theta);
      e = learn::mc_loss_difference(a, b, src, learn::LossSpec::sja(), lower.seeds[k], purpose,
                                    std::max<std::uint64_t>(ctx.samples, 256), ctx.threads);
      if (!std::isfinite(e.mean) || !std::isfinite(e.stderr_)) e.mean = e.ci_low = e.ci_high = e.stderr_ = e.sd = NAN;
    }
    out.push_back(e);
  }
  return out;
}

nlohmann::ordered_json paired_json(const std::vector<Estimate>& d) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& e : d) {
    if (!std::isfinite(e.mean)) {
      j.push_back(nullptr);
      continue;
    }
    j.push_back({{"mean", e.mean}, {"stderr", e.stderr_}, {"ci_low", e.ci_low}, {"ci_high", e.ci_high},
                 {"confidence", e.confidence}, {"samples", e.samples}});
  }
  return j;
}

nlohmann::ordered_json losses_json(const TestLosses& t) {
  nlohmann::ordered_json j;
  j["n_test"] = t.n_test;
  j["finished_trials"] = t.finished();
  j["mean_over_trials"] = std::isfinite(t.mean()) ? nlohmann::ordered_json(t.mean()) : nlohmann::ordered_json(nullptr);
  j["sd_over_trials"] = std::isfinite(t.sd()) ? nlohmann::ordered_json(t.sd()) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json per = nlohmann::ordered_json::array();
  for (const auto& e : t.per_trial) {
    if (!std::isfinite(e.mean)) {
      per.push_back(nullptr);
      continue;
    }
    per.push_back({{"mean", e.mean}, {"ci_low", e.ci_low}, {"ci_high", e.ci_high}, {"confidence", e.confidence},
                   {"samples", e.samples}});
  }
  j["per_trial"] = per;
  return j;
}

void first_trial_mc(CaseJson& j, const TestLosses& t) {
  for (const auto& e : t.per_trial)
    if (std::isfinite(e.mean)) {
      j.quantity("mc", e);
      return;
    }
}

void mean_loss_quantity(CaseJson& j, const std::string& name, const TestLosses& t, double alpha) {
  if (t.finished() >= 2)
    j.quantity(name, over_runs(t.means(), 1 - alpha));
  else if (std::isfinite(t.mean()))
    j.quantity(name, t.mean());
}

CaseJson comparison_case(nlohmann::ordered_json params, const std::string& part, const std::string& decision_name,
                         const Decision& dec, double alpha, const std::string& lower_name, const TestLosses& lower,
                         const std::string& higher_name, const TestLosses& higher) {
  CaseJson j(std::move(params));
  j.part(part);
  first_trial_mc(j, lower);
  mean_loss_quantity(j, lower_name + "_mean_loss", lower, alpha);
  mean_loss_quantity(j, higher_name + "_mean_loss", higher, alpha);
  j.field(lower_name + "_test_loss", losses_json(lower));
  j.field(higher_name + "_test_loss", losses_json(higher));
  j.decision(decision_name, dec);
  j.verdict(dec.verdict, dec.why,
            dec.verdict == Verdict::inconclusive ? std::vector<std::string>{} : std::vector<std::string>{decision_name});
  return j;
}

std::string interval_over_trials(double alpha) {
  return fmt::format("{:.4g}% Student-t", 100 * (1 - alpha));
}

nlohmann::ordered_json model_json(const Model& m, const std::map<int, TestLosses>& losses) {
  nlohmann::ordered_json j;
  j["model"] = m.name;
  j["parameters"] = m.params.size();
  nlohmann::ordered_json tl = nlohmann::ordered_json::array();
  for (const auto& [nt, l] : losses) tl.push_back(losses_json(l));
  j["test_loss"] = tl;
  j["runs"] = runs_json(m);
  return j;
}

nlohmann::ordered_json runs_json(const Model& m) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < m.runs.size(); ++k) {
    auto r = learn::curve_json(m.runs[k]);
    r["seed"] = m.seeds[k];
    r["seconds"] = m.runs[k].seconds;
    j.push_back(std::move(r));
  }
  return j;
}

bool paired_rule(const ClaimContext& ctx) { return ctx.budget == Budget::deciding || ctx.budget == Budget::paper; }

Decision paired_decision(const ClaimContext& ctx, const Settings& s, const std::vector<Estimate>& differences, double alpha,
                         const std::string& what) {
  constexpr int kMinPairedTrials = 2;
  const bool paper = s.is_paper();
  const std::string note =
      paper ? std::string("at the paper's settings") : fmt::format("at the {} budget: {}", to_string(ctx.budget), s.differences());
  return judge_paired_every_trial(differences, alpha, kMinPairedTrials, paper, what, note);
}

double quadratic_label_moment(int d) { return 1.0 + d + d * (d - 1) / 2.0 + 3.0 * d; }

std::vector<TailedLoss> tailed_losses(const ClaimContext& ctx, const Model& model, const GaussianIclModel& task, int dbar,
                                      int n_test, double cap, int layers) {
  const learn::PromptSource src = learn::gaussian_prompts(task, sja_shape(task.d, dbar, n_test));
  const std::uint64_t purpose = ctx.purpose(fmt::format("test/n={}", n_test));
  std::vector<TailedLoss> out;
  for (std::size_t k = 0; k < model.runs.size(); ++k) {
    TailedLoss t;
    t.cap = cap;
    t.full.mean = t.capped.mean = t.full.stderr_ = t.capped.stderr_ = NAN;
    if (model.runs[k].ok()) {
      learn::Network net = model.params.network(model.runs[k].theta);
      if (layers > 0) net = net.truncated(layers);
      t = learn::tailed_loss(net, src, learn::LossSpec::sja(), model.seeds[k], purpose,
                             std::max<std::uint64_t>(ctx.samples, 256), ctx.threads, cap);
    }
    out.push_back(t);
  }
  return out;
}

TailedSides::TailedSides(const ClaimContext& ctx, const std::vector<Model>& models, int d, int dbar)
    : ctx_(&ctx), models_(&models),
      task_(GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d))), dbar_(dbar),
      cap_(kTailCap * quadratic_label_moment(d)) {}

const std::vector<TailedLoss>& TailedSides::get(std::size_t i, int n_test, int layers) {
  const auto key = std::make_tuple(i, n_test, layers);
  auto it = memo_.find(key);
  if (it == memo_.end()) it = memo_.emplace(key, tailed_losses(*ctx_, (*models_)[i], task_, dbar_, n_test, cap_, layers)).first;
  return it->second;
}

std::vector<TailedLoss> constant_side(double value, std::size_t trials) {
  TailedLoss t;
  t.full.mean = t.full.ci_low = t.full.ci_high = value;
  t.full.stderr_ = t.full.sd = 0;
  t.full.samples = 2;  // an interval of zero width (one_sided_lower/upper need 2 samples)
  t.capped = t.full;
  t.cap = INFINITY;
  return std::vector<TailedLoss>(trials, t);
}

Decision tailed_decision(const ClaimContext& ctx, const Settings& s, const std::vector<TailedLoss>& lower,
                         const std::vector<TailedLoss>& higher, double alpha, const std::string& what) {
  constexpr int kMinTrials = 2;
  std::vector<std::pair<TailedLoss, TailedLoss>> trials;
  for (std::size_t k = 0; k < std::min(lower.size(), higher.size()); ++k) trials.emplace_back(lower[k], higher[k]);
  const bool paper = s.is_paper();
  const std::string note =
      paper ? std::string("at the paper's settings") : fmt::format("at the {} budget: {}", to_string(ctx.budget), s.differences());
  return judge_tailed_every_trial(trials, alpha, kMinTrials, paper, what, note);
}

std::string tailed_rule_text() {
  return fmt::format("the heavy-tail rule per trial (the higher side's mean of min(loss, {:g} E[y^2]), one-sided lower bound, "
                     "above the lower side's one-sided t upper bound, each at alpha/2; no upper bound from a side whose largest "
                     "0.1% of prompts carry {:.0f}% or more of its loss), confirmed where every trial shows it",
                     kTailCap, 100 * kTailShareLimit);
}

nlohmann::ordered_json tailed_json(const std::vector<TailedLoss>& lower, const std::vector<TailedLoss>& higher, double alpha) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < std::min(lower.size(), higher.size()); ++k) {
    const TailedLoss &lo = lower[k], &hi = higher[k];
    if (!std::isfinite(lo.full.mean) || !std::isfinite(hi.capped.mean)) {
      j.push_back(nullptr);
      continue;
    }
    j.push_back({{"lower", {{"mean", lo.full.mean}, {"stderr", lo.full.stderr_}, {"upper_bound", one_sided_upper(lo.full, alpha / 2)},
                            {"tail_share", lo.tail_share}, {"tail_fraction", lo.tail_fraction}, {"samples", lo.full.samples}}},
                 {"higher", {{"cap", hi.cap}, {"capped_mean", hi.capped.mean}, {"stderr", hi.capped.stderr_},
                             {"lower_bound", one_sided_lower(hi.capped, alpha / 2)}, {"mean", hi.full.mean},
                             {"tail_share", hi.tail_share}, {"samples", hi.capped.samples}}},
                 {"one_sided_level", alpha / 2}});
  }
  return j;
}

nlohmann::ordered_json training_block(const learn::TrainConfig& c, const Settings& s, const std::vector<std::uint64_t>& seeds,
                                      const std::string& claim_id, const std::string& extra_differences) {
  const std::string diff = s.differences();
  const bool paper = s.is_paper() && extra_differences.empty();
  auto j = learn::training_json(c, seeds, paper, claim_id + ".training.svg");
  std::string all = diff;
  if (!extra_differences.empty()) all += (all.empty() ? "" : "; ") + extra_differences;
  j["paper_settings_differences"] = paper ? "none" : all;
  j["initialisation"] = fmt::format("every trained entry ~ N(0, {:g}^2) (the paper does not state its initialisation)",
                                    s.init_sd);
  j["trial_seeds"] = "trial k trains with seed + k (initialisation, minibatches and its test prompts)";
  return j;
}

std::string curves_svg(const std::string& title, const std::vector<const Model*>& models) {
  std::vector<std::pair<std::string, const learn::TrainResult*>> runs;
  for (const Model* m : models)
    if (!m->runs.empty()) runs.emplace_back(m->name + " (trial 1)", &m->runs.front());
  return learn::training_svg(title, runs);
}

}  // namespace icl::sja_train
