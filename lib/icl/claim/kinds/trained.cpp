#include "icl/claim/kinds/trained.hpp"

#include "icl/montecarlo/statistics.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl::trained {

namespace {

// Trial k's network (its first `layers` layers where layers > 0).
icl::Network trial_network(const Model& m, std::size_t k, int layers) {
  icl::Network net = m.params.network(m.runs[k].theta);
  if (layers > 0) net = net.truncated(layers);
  return net;
}

// An estimate that did not come out finite: its numbers NaN (the rest, e.g. its sample count, kept).
Estimate not_finite(Estimate e = {}) {
  e.mean = e.ci_low = e.ci_high = e.stderr_ = e.sd = NAN;
  return e;
}

std::uint64_t test_purpose(const ClaimContext& ctx, int n_test) { return ctx.purpose(fmt::format("test/n={}", n_test)); }
std::uint64_t test_samples(const ClaimContext& ctx) { return std::max<std::uint64_t>(ctx.samples, 256); }

std::string budget_note(const ClaimContext& ctx, const AgainstPaper& p) {
  return p.paper ? std::string("at the paper's settings")
                 : fmt::format("at the {} budget: {}", to_string(ctx.budget), p.differences);
}

}  // namespace

learn::TrainConfig train_trials(const ClaimContext& ctx, Model& model, const icl::PromptSource& src,
                                const icl::LossSpec& loss, const Schedule& s, const std::string& data_tag) {
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
  model.runs.clear();
  model.seeds.clear();
  for (int k = 0; k < s.trials; ++k) {
    c.seed = ctx.seed + static_cast<std::uint64_t>(k);
    c.label = fmt::format("{} {} trial {}", ctx.claim_id, model.name, k + 1);
    const Eigen::VectorXd theta0 =
        icl::normal_theta(model.params, s.init_sd, c.seed, ctx.purpose("init/" + model.name));
    learn::TrainResult r = learn::train(model.params, theta0, src, loss, c);
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

TestLosses test_losses(const ClaimContext& ctx, const Model& model, const icl::PromptSource& src,
                       const icl::LossSpec& loss, int n_test, int layers) {
  TestLosses t;
  t.n_test = n_test;
  for (std::size_t k = 0; k < model.runs.size(); ++k) {
    if (!model.runs[k].ok()) {
      t.per_trial.push_back(not_finite());
      continue;
    }
    Estimate e = learn::mc_loss(trial_network(model, k, layers), src, loss, model.seeds[k], test_purpose(ctx, n_test),
                                test_samples(ctx), ctx.threads);
    if (!std::isfinite(e.mean) || !std::isfinite(e.ci_high)) e = not_finite(e);
    t.per_trial.push_back(e);
  }
  return t;
}

std::vector<Estimate> paired_differences(const ClaimContext& ctx, const Model& lower, const Model& higher,
                                         const icl::PromptSource& src, const icl::LossSpec& loss, int n_test) {
  std::vector<Estimate> out;
  const std::size_t T = std::min(lower.runs.size(), higher.runs.size());
  for (std::size_t k = 0; k < T; ++k) {
    Estimate e = not_finite();
    if (lower.runs[k].ok() && higher.runs[k].ok() && lower.seeds[k] == higher.seeds[k]) {
      e = learn::mc_loss_difference(trial_network(lower, k, 0), trial_network(higher, k, 0), src, loss, lower.seeds[k],
                                    test_purpose(ctx, n_test), test_samples(ctx), ctx.threads);
      if (!std::isfinite(e.mean) || !std::isfinite(e.stderr_)) e = not_finite(e);
    }
    out.push_back(e);
  }
  return out;
}

bool paired_rule(const ClaimContext& ctx) { return ctx.budget == Budget::deciding || ctx.budget == Budget::paper; }

Decision paired_decision(const ClaimContext& ctx, const AgainstPaper& p, const std::vector<Estimate>& differences,
                         double alpha, const std::string& what) {
  constexpr int kMinPairedTrials = 2;
  return judge_paired_every_trial(differences, alpha, kMinPairedTrials, p.paper, what, budget_note(ctx, p));
}

std::vector<TailedLoss> tailed_losses(const ClaimContext& ctx, const Model& model, const icl::PromptSource& src,
                                      const icl::LossSpec& loss, int n_test, double cap, int layers) {
  std::vector<TailedLoss> out;
  for (std::size_t k = 0; k < model.runs.size(); ++k) {
    TailedLoss t;
    t.cap = cap;
    t.full.mean = t.capped.mean = t.full.stderr_ = t.capped.stderr_ = NAN;
    if (model.runs[k].ok())
      t = learn::tailed_loss(trial_network(model, k, layers), src, loss, model.seeds[k], test_purpose(ctx, n_test),
                             test_samples(ctx), ctx.threads, cap);
    out.push_back(t);
  }
  return out;
}

TailedSides::TailedSides(const ClaimContext& ctx, const std::vector<Model>& models,
                         std::function<icl::PromptSource(int n_test)> prompts, icl::LossSpec loss, double cap)
    : ctx_(&ctx), models_(&models), prompts_(std::move(prompts)), loss_(loss), cap_(cap) {}

const std::vector<TailedLoss>& TailedSides::get(std::size_t i, int n_test, int layers) {
  const auto key = std::make_tuple(i, n_test, layers);
  auto it = memo_.find(key);
  if (it == memo_.end())
    it = memo_.emplace(key, tailed_losses(*ctx_, (*models_)[i], prompts_(n_test), loss_, n_test, cap_, layers)).first;
  return it->second;
}

Decision tailed_decision(const ClaimContext& ctx, const AgainstPaper& p, const std::vector<TailedLoss>& lower,
                         const std::vector<TailedLoss>& higher, double alpha, const std::string& what) {
  constexpr int kMinTrials = 2;
  std::vector<std::pair<TailedLoss, TailedLoss>> trials;
  for (std::size_t k = 0; k < std::min(lower.size(), higher.size()); ++k) trials.emplace_back(lower[k], higher[k]);
  return judge_tailed_every_trial(trials, alpha, kMinTrials, p.paper, what, budget_note(ctx, p));
}

Decision settle_over_runs(Decision d, const std::string& unfinished, const AgainstPaper& p, const std::string& open) {
  if (!unfinished.empty()) {
    d.verdict = Verdict::inconclusive;
    d.why = "a run did not finish (" + unfinished + "); " + d.why;
  } else if (d.verdict == Verdict::refuted && !p.paper) {
    d.verdict = Verdict::inconclusive;
    d.why = "not reproduced at reduced settings (" + p.differences + "), which cannot refute the paper's run: " + d.why;
  } else if (d.verdict == Verdict::refuted && !open.empty()) {
    d.verdict = Verdict::inconclusive;
    d.why = open + d.why;
  }
  return d;
}

CaseJson over_runs_case(const Case& c, const std::string& part, const std::vector<double>& values, double bound, double alpha) {
  CaseJson j(c);
  j.part(part);
  j.quantity("bound", bound);
  j.quantity("over_runs", over_runs(values, 1 - alpha));
  j.field("per_run", values);
  return j;
}

void over_runs_verdict(CaseJson& j, const Decision& d, const std::string& name) {
  j.verdict(d, {name});  // an inconclusive verdict records no basis (CaseJson::verdict)
  j.decision(name, d);
}

nlohmann::ordered_json training_block(const learn::TrainConfig& c, const AgainstPaper& p, double init_sd,
                                      const std::vector<std::uint64_t>& seeds, const std::string& claim_id,
                                      const std::string& extra_differences) {
  const bool paper = p.paper && extra_differences.empty();
  auto j = learn::training_json(c, seeds, paper, claim_id + ".training.svg");
  std::string all = p.differences;
  if (!extra_differences.empty()) all += (all.empty() ? "" : "; ") + extra_differences;
  j["paper_settings_differences"] = paper ? "none" : all;
  j["initialisation"] = fmt::format("every trained entry ~ N(0, {:g}^2) (the paper does not state its initialisation)",
                                    init_sd);
  j["trial_seeds"] = "trial k trains with seed + k (initialisation, minibatches and its test prompts)";
  return j;
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

TrainedGate trained_gate(const TestLosses& at_training_length, double level, const std::string& level_text) {
  TrainedGate g;
  g.level = level;
  g.level_text = level_text;
  for (std::size_t k = 0; k < at_training_length.per_trial.size(); ++k) {
    const double m = at_training_length.per_trial[k].mean;
    const bool ok = std::isfinite(m) && m <= level;
    g.trained.push_back(ok);
    g.why_not.push_back(ok ? ""
                        : std::isfinite(m) ? fmt::format("held-out loss {:.4g} above {}", m, level_text)
                                           : std::string("did not finish"));
  }
  return g;
}

namespace {

bool trial_trained(const TrainedGate* g, std::size_t k) { return !g || (k < g->trained.size() && g->trained[k]); }

template <class T>
std::vector<T> kept_trials(const std::vector<T>& v, const std::vector<std::size_t>& kept) {
  std::vector<T> out;
  for (std::size_t k : kept)
    if (k < v.size()) out.push_back(v[k]);
  return out;
}

// "0.1 E[y^2] = 1.6" where the sides' levels agree, else "bilinear 0.1 E[y^2] = 1.6, linear 1.1 x ... = 9.9".
std::string gate_levels(const Side& lower, const Side& higher) {
  if (lower.gate && higher.gate && lower.gate->level_text != higher.gate->level_text)
    return fmt::format("{} {}, {} {}", lower.name, lower.gate->level_text, higher.name, higher.gate->level_text);
  return (lower.gate ? lower.gate : higher.gate)->level_text;
}

nlohmann::ordered_json gate_json(const TrainedGate* g) {
  if (!g) return nullptr;
  nlohmann::ordered_json j;
  j["level"] = g->level;
  j["level_text"] = g->level_text;
  j["trained"] = g->trained;
  return j;
}

}  // namespace

CaseJson compare(const ClaimContext& ctx, const AgainstPaper& p, double alpha, Comparison c, const Side& lower,
                 const Side& higher, const std::function<void(CaseJson&)>& own) {
  const bool rule = paired_rule(ctx), paired = rule && c.differences.has_value();
  const bool gated = rule && (lower.gate || higher.gate);
  // The trials that count: where both sides' trial trained (every trial without a gate).
  std::vector<std::size_t> kept;
  std::vector<std::string> left;
  const std::size_t trials = std::max(lower.losses.per_trial.size(), higher.losses.per_trial.size());
  for (std::size_t k = 0; k < trials; ++k) {
    if (!gated || (trial_trained(lower.gate, k) && trial_trained(higher.gate, k))) {
      kept.push_back(k);
      continue;
    }
    std::vector<std::string> why;
    for (const Side* s : {&lower, &higher})
      if (!trial_trained(s->gate, k) && (s == &lower || s->gate != lower.gate))
        why.push_back(fmt::format("{} {}", s->name, k < s->gate->why_not.size() ? s->gate->why_not[k] : "has no such trial"));
    left.push_back(fmt::format("trial {} ({})", k + 1, fmt::join(why, "; ")));
  }
  Decision dec;
  if (gated && kept.empty()) {
    dec = Decision{Verdict::inconclusive, 0, 0,
                   fmt::format("{}: not reproduced: no trial trained on both sides (held-out loss at the training length "
                               "at most {}, the levels stated before the runs); {}",
                               c.what, gate_levels(lower, higher), fmt::join(left, ", "))};
  } else {
    dec = !rule    ? judge_less_over_trials(lower.losses.means(), higher.losses.means(), alpha, c.same_model, p.paper, c.what)
          : paired ? paired_decision(ctx, p, kept_trials(*c.differences, kept), alpha,
                                     c.what + " (paired test prompts, every trial)")
                   : tailed_decision(ctx, p, kept_trials(lower.tailed, kept), kept_trials(higher.tailed, kept), alpha, c.what);
    if (!left.empty())
      dec.why += fmt::format("; left out, having not trained (they count neither for nor against): {}", fmt::join(left, ", "));
  }
  CaseJson j = comparison_case(std::move(c.params), c.part, c.decision_name, dec, alpha, lower.name, lower.losses,
                               higher.name, higher.losses);
  if (own) own(j);
  if (gated) {
    nlohmann::ordered_json g;
    g[lower.name] = gate_json(lower.gate);
    g[higher.name] = gate_json(higher.gate);
    j.field("trained_per_trial", g);
  }
  if (paired)
    j.field("paired_difference_per_trial", paired_json(*c.differences));
  else if (rule)
    j.field("heavy_tail_rule_per_trial", tailed_json(lower.tailed, higher.tailed, alpha));
  return j;
}

std::string interval_over_trials(double alpha) {
  return fmt::format("{:.4g}% Student-t", 100 * (1 - alpha));
}

nlohmann::ordered_json error_rates_block(const ClaimContext& ctx, std::size_t comparisons, double alpha,
                                         const std::string& tests) {
  return {{"family_alpha", ctx.alpha},
          {"comparisons", comparisons},
          {"alpha_per_comparison", alpha},
          {"interval", interval_over_trials(alpha)},
          {"tests", tests}};
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

std::vector<TailedLoss> constant_side(double value, std::size_t trials) {
  TailedLoss t;
  t.full.mean = t.full.ci_low = t.full.ci_high = value;
  t.full.stderr_ = t.full.sd = 0;
  t.full.samples = 2;  // an interval of zero width (one_sided_lower/upper need 2 samples)
  t.capped = t.full;
  t.cap = INFINITY;
  return std::vector<TailedLoss>(trials, t);
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

std::string curves_svg(const std::string& title, const std::vector<const Model*>& models) {
  std::vector<std::pair<std::string, const learn::TrainResult*>> runs;
  for (const Model* m : models)
    if (!m->runs.empty()) runs.emplace_back(m->name + " (trial 1)", &m->runs.front());
  return learn::training_svg(title, runs);
}

}  // namespace icl::trained
