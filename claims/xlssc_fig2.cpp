// xlssc.fig2 — Xing, Lin, Suh, Song, Cheng (004), Sec. 4.1 (Fig. 2), Remark 4.1, Sec. 5.1 (Fig. 4), Fig. 1, App. C
// (Tables 1 and 3).
//
// Statement (empirical): on unstructured prompts E_2 (d = 5, D = 30), GPT-2-style transformers (Garg et al.'s code,
// embedding p = 64, h = 8 heads, 500k training steps): a one-layer transformer fails; two layers with the look-ahead
// mask learn in context; two layers without the mask fail; positional encoding without the mask does not rescue
// them; with the mask, the completely trainable PE beats the sin-cos PE of formula (2), and both beat no PE.
//
// Models (lib/icl/learn/gpt2.hpp: the model, its initialisation, the loss over the D+1 prediction positions
// 0, 2, ..., 2D of E_2 (the x-token columns) and why, and the loss against the number of in-context examples),
// one `heads` and `p` for all:
//   1 layer, mask, no PE          1 layer, no mask, no PE                 (Fig. 2 left)
//   2 layers, mask, no PE         2 layers, no mask, no PE                (Fig. 2 left; the first is also Fig. 4's "no PE")
//   2 layers, no mask, trainable PE                                       (Fig. 2 bottom: PE without the mask)
//   2 layers, mask, trainable PE  2 layers, mask, sin-cos PE (Lambda)     (Fig. 4)
// Each model is trained `trials` times (trial k: seed + k for its initialisation; the minibatch stream is shared by
// the models at a trial) and each trained model's loss against the number of in-context examples k = 0..D is
// measured on `samples` fresh test prompts (the same prompts for every model at a trial). E[y^2] = 1 (theta ~
// N(0, I_d/d)): the trivial predictor 0 has loss 1. The 7 x trials runs are tasks of the library's pool, trained at
// once on the threads (train_models); each run's numbers depend on its seed only, not on the thread that ran it.
//
// The paper's heads for Fig. 2: Sec. 4.1 says "number of heads h = 8", App. C Table 1 lists h = 1 for Fig. 2 and
// h = 8 for Fig. 4. One value is used for every model here (the paper budget: 8, the text's and Fig. 4's), so that
// the "2 layers, mask, no PE" model serves both figures.
//
// What "fails" means. The paper: "missing either the second layer or the attention mask results in a failure of
// ICL", and Remark 4.1: "in settings other than two layers + attention mask, the squared error is still slightly
// below 1" (E[y^2] = 1). A model fails when its loss at the query (k = D examples) is nearer E[y^2] = 1 (learning
// nothing) than 0 (exact recovery, which the Bayes predictor reaches once k >= d in this noiseless task): loss > 1/2
// = kFailLevel. A model learns in context when its loss at the query is below 1/2 and below its loss with no
// example (k = 0). Whether a failing model's loss is below 1 ("slightly below") is reported as a finding.
// A "fails" case (parts a, c, d) is decided only at the paper budget: below it the case is inconclusive whatever the
// positive control (2 layers, mask, no PE) does (a model that has not learned in a shorter run may learn in 500k
// steps; issue 43 removed the rule that confirmed a failure at a reduced budget when the control learned).
//
// The deciding budget (--budget deciding; docs/budgets.md): the paper's p = 64, h = 8, D = 30, d = 5 and batch 64,
// 2000 Adam steps at lr 1e-3, 2 trials, and the two-layer masked models of parts b and e trained (budget setting
// `models`: 7 all, 3 those three, 1 the control; 3 since 28 November 2026, eleventh session, before its results
// were seen). At the deciding and paper budgets part b is "learns in context": the control's loss at k = D below its
// own loss at k = 0 on the same test prompts (paired per prompt), in every trial (judge_paired_every_trial), without
// the fail level; part e's comparisons are paired per trial on the loss averaged over k. The quick and standard
// budgets keep the rules below.
//
// Parts and decisions (one-sided t-tests over trials at level alpha / 9, Bonferroni over the run's 9 comparisons;
// each decision reports the smallest difference detected with power 0.8):
//   a  one layer fails: loss at the query above 1/2, with the mask (a1) and without (a2) (one-sample t over trials);
//   b  two layers with the mask learn in context: loss at the query below 1/2 (b1, one-sample t) and below the loss
//      at k = 0 (b2, paired t over trials: the same trained model);
//   c  two layers without the mask fail: loss at the query above 1/2;
//   d  PE without the mask does not rescue it: two layers, no mask, trainable PE: loss at the query above 1/2;
//   e  with the mask, trainable PE below sin-cos PE (e1), sin-cos PE below no PE (e2), trainable PE below no PE (e3),
//      each on the loss averaged over the figure's x-axis k = 0..D (Fig. 4 compares whole curves), Welch t over trials.
// Only the paper budget (p = 64, h = 8, D = 30, 500k steps, batch 64, learning rate 1e-4, 5 trials) can refute: a
// significant reversal at a reduced budget is inconclusive (a smaller model trained for fewer steps does not re-run
// the paper's experiment).
//
// The paper budget. The paper states d = 5, D = 30, p = 64, h = 8, and 500k steps (Table 1; "50k to 500k steps to
// ensure the convergence", Sec. 3), 1280 test prompts (Sec. 3), and that it modifies Garg et al.'s code; for what it
// leaves out, Garg et al.'s defaults: Adam with learning rate 1e-4 and batch size 64, fresh prompts every step, no
// curriculum (the paper fixes d and D). Lambda of the sin-cos PE is not stated for Fig. 4 (Fig. 9 varies it): 10000,
// Vaswani et al.'s. The number of training runs is not stated (the shaded areas are over test prompts): 5 here, as
// the sja experiments' paper (with 3, a one-sided t at the Bonferroni level 0.01/9 needs t > 21 on 2 degrees of
// freedom; with 5, t > 7.2). The standard budget (p = 16, h = 2, D = 10, fewer steps, a larger
// learning rate) runs in minutes on two cores; `icl-verify run xlssc.fig2 --budget paper --estimate` gives the
// paper budget's cost (docs/budgets.md: about 2000 h on the loaded 2-core machine).
// Measured (November 2026): at the standard budget every model, the positive control included, stays at the trivial
// loss (about 1.0 at the query, 4.5 min on 2 loaded cores), so every part is inconclusive there; single training
// runs at p = 32, h = 4, D = 10, batch 32, lr 1e-3 show what a larger budget starts to separate: after 6000 steps the
// 2-layer masked model's loss falls from 1.09 (k = 0) to 0.41-0.43 at the query, the 1-layer one's stays at 0.94.
// Why the standard budget stays there (issue 28; the measurements in bench/xlssc_fig2_exploration.md): a budget at
// which the control learns in every trial was not found within the 12 minutes. (1) At D = 10 a trained
// masked two-layer model settles near the error of one gradient step, (d+1)/(D+d+1) = 0.375 at the query, too near
// the fail level 1/2 for the t over trials at alpha/9 (t > 6.9 with 5 trials, > 21 with 3); D >= 15 is needed.
// (2) p = 16 learns far slower than p = 32, and at p = 32 the escape from the trivial plateau depends on the seed
// (about 800 to 3400 steps); larger or smaller learning rates, warm-up, batch 16 or 64, 1 or 2 heads and Garg et
// al.'s curricula did not shorten it. At p = 32, h = 4, D = 15 and 5000 steps (about 4000 CPU seconds for the 35
// runs of 5 trials) the control's loss at the query over seeds 1-5 is 0.32-0.51: t = 3.4, not the 6.9 needed; a
// deciding budget would take about an hour on two cores.
#include "constructions/xlssc_fig2.hpp"
#include "icl/claim/kinds/trained.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/io/svg_plot.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

namespace icl::xlssc_fig2 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

using trained::TestLosses;
using Settings = xlssc::Fig2Settings;
using Model = xlssc::Fig2Model;
using xlssc::kAllModels, xlssc::kMaskedModels, xlssc::kControlOnly;

constexpr double kFailLevel = 0.5;
constexpr int kComparisons = 9;

// "loss above/below kFailLevel" for one model at the query: a one-sample t over trials (each trial's loss against
// the constant, through the paired test).
Decision level_decision(const Settings& s, const Model& m, bool above, double alpha, bool paper) {
  const TestLosses q = m.at(s.D);
  const std::vector<double> level(q.per_trial.size(), kFailLevel);
  const std::string what = fmt::format("{}: loss at the query (k = D = {}) {} {:g} (each trial's loss against {:g})",
                                       m.spec.name(), s.D, above ? "above" : "below", kFailLevel, kFailLevel);
  return above ? judge_less_over_trials(level, q.means(), alpha, true, paper, what)
               : judge_less_over_trials(q.means(), level, alpha, true, paper, what);
}

// The case of a level decision. `control` (a "fails" case at a reduced budget): the positive control's decision (two
// layers with the mask below 1/2). A model that fails where the control learns nothing either says nothing about the
// architectures (the budget is too small for any of them to learn), so at a reduced budget a failure is confirmed
// only together with a confirmed control; at the paper budget the paper's own training length defines the
// experiment and the failure stands on its own.
CaseJson level_case(const Settings& s, const std::string& part, const std::string& decision_name, const Model& m,
                    bool above, double alpha, bool paper, const Decision* control = nullptr) {
  const TestLosses q = m.at(s.D);
  const Decision dec = level_decision(s, m, above, alpha, paper);
  nlohmann::ordered_json p;
  p["model"] = m.spec.name();
  p["k"] = s.D;
  p["comparison"] = fmt::format("loss(k={}) {} {:g}", s.D, above ? ">" : "<", kFailLevel);
  CaseJson j(p);
  j.part(part);
  trained::first_trial_mc(j, q);
  trained::mean_loss_quantity(j, "query_mean_loss", q, alpha);
  j.quantity("fail_level", kFailLevel);
  j.quantity("E_y2", 1.0);
  j.field("query_test_loss", trained::losses_json(q));
  j.decision(decision_name, dec);
  if (control && !paper) {
    // A part saying a model FAILS is not decided below the paper budget (issue 43): a model that has not learned in
    // a shorter run may learn in the paper's 500k steps, whatever the control does at this budget. The decisions are
    // reported; the case is inconclusive.
    j.decision("control_two_layers_mask_learn", *control);
    if (m.runs.empty())
      j.verdict(Verdict::inconclusive, m.spec.name() + ": not trained at this budget", {});
    else
      j.verdict(Verdict::inconclusive,
                dec.why + "; a failure is not decided below the paper budget (the model may learn with the paper's 500k "
                          "steps), whatever the positive control does at this budget (" + control->why + ")",
                {});
    return j;
  }
  j.verdict(dec.verdict, dec.why,
            dec.verdict == Verdict::inconclusive ? std::vector<std::string>{} : std::vector<std::string>{decision_name});
  return j;
}

// `comparison`: the case's short label (a table cell, in the order of its Left and Right columns); `what`: the
// comparison in full, for the evidence.
CaseJson less_case(const std::string& part, const std::string& decision_name, const std::string& comparison,
                   const std::string& what, const std::string& lower_name, const TestLosses& lower,
                   const std::string& higher_name, const TestLosses& higher, bool paired, double alpha, bool paper,
                   nlohmann::ordered_json p) {
  const Decision dec = judge_less_over_trials(lower.means(), higher.means(), alpha, paired, paper, what);
  p["comparison"] = comparison;
  return trained::comparison_case(std::move(p), part, decision_name, dec, alpha, lower_name, lower, higher_name, higher);
}

// The deciding and paper budgets decide parts b and e on paired test prompts (trained::paired_rule, docs/budgets.md,
// "Decision rules of the deciding budget"); the quick and standard budgets keep the t over the trials' mean losses.
constexpr int kMinPairedTrials = 2;

std::string budget_note(const ClaimContext& ctx, const Settings& s, bool paper) {
  return paper ? std::string("at the paper's settings") : fmt::format("at the {} budget: {}", to_string(ctx.budget), s.differences());
}

// Part b at the deciding and paper budgets: the control learns in context, its loss at the query (k = D) below its
// loss with no example (k = 0) on the same test prompts, in every trial.
CaseJson paired_learns_case(ClaimRun& r, const Settings& s, const Model& m, double alpha, bool paper) {
  const ClaimContext& ctx = r.ctx();
  const std::vector<Estimate> diffs = xlssc::fig2_paired_per_trial(ctx, m, s.D, m, 0);
  const Decision dec = judge_paired_every_trial(
      diffs, alpha, kMinPairedTrials, paper,
      fmt::format("{}: loss at k = {} below the loss at k = 0 on the same test prompts", m.spec.name(), s.D),
      budget_note(ctx, s, paper));
  nlohmann::ordered_json p;
  p["model"] = m.spec.name();
  p["k"] = nlohmann::ordered_json::array({0, s.D});
  p["comparison"] = fmt::format("loss(k={}) < loss(k=0), paired", s.D);
  CaseJson j = trained::comparison_case(std::move(p), "b", "two_layer_mask_learns_in_context", dec, alpha, "query",
                                          m.at(s.D), "no_example", m.at(0));
  j.field("paired_difference_per_trial", trained::paired_json(diffs));
  return j;
}

// Part e at the deciding and paper budgets: two models of each trial on the same test prompts, the loss averaged over
// k = 0..D, in every trial.
CaseJson paired_models_case(ClaimRun& r, const Settings& s, const std::string& decision_name, const std::string& label,
                            const std::string& what, const std::string& lower_name, const Model& lower,
                            const std::string& higher_name, const Model& higher, double alpha, bool paper,
                            nlohmann::ordered_json p) {
  const ClaimContext& ctx = r.ctx();
  const int mean_k = s.D + 1;
  const std::vector<Estimate> diffs = xlssc::fig2_paired_per_trial(ctx, lower, mean_k, higher, mean_k);
  Decision dec = judge_paired_every_trial(diffs, alpha, kMinPairedTrials, paper, what + " on the same test prompts",
                                          budget_note(ctx, s, paper));
  if (lower.runs.empty() || higher.runs.empty()) dec.why = what + ": not trained at this budget";
  p["comparison"] = label;
  CaseJson j = trained::comparison_case(std::move(p), "e", decision_name, dec, alpha, lower_name, lower.at(mean_k),
                                          higher_name, higher.at(mean_k));
  j.field("paired_difference_per_trial", trained::paired_json(diffs));
  return j;
}

// The cases of parts a-e, in the report's order (decisions over the trained runs, whose progress fig2_train counted:
// each added without a unit of progress of its own).
void add_cases(ClaimRun& r, const Settings& s, const std::vector<Model>& models, double alpha, bool paper) {
  const Model &one_mask = models[0], &one_nomask = models[1], &two_mask = models[2], &two_nomask = models[3],
              &two_nomask_pe = models[4], &two_mask_pe = models[5], &two_mask_sc = models[6];
  const int mean_k = s.D + 1;  // index of the curve's mean over k
  const Decision control = level_decision(s, two_mask, false, alpha, paper);
  r.add_uncounted_case(level_case(s, "a", "one_layer_mask_fails", one_mask, true, alpha, paper, &control));
  r.add_uncounted_case(level_case(s, "a", "one_layer_no_mask_fails", one_nomask, true, alpha, paper, &control));
  const bool paired = trained::paired_rule(r.ctx());
  if (paired) {
    r.add_uncounted_case(paired_learns_case(r, s, two_mask, alpha, paper));
  } else {
  r.add_uncounted_case(level_case(s, "b", "two_layer_mask_below_fail_level", two_mask, false, alpha, paper));
  {
    nlohmann::ordered_json p;
    p["model"] = two_mask.spec.name();
    p["k"] = nlohmann::ordered_json::array({0, s.D});
    r.add_uncounted_case(less_case("b", "two_layer_mask_loss_falls_with_examples",
                                    fmt::format("loss(k={}) < loss(k=0)", s.D),
                                    fmt::format("{}: loss at k = {} below the loss at k = 0 (paired over trials)",
                                                two_mask.spec.name(), s.D),
                                    "query", two_mask.at(s.D), "no_example", two_mask.at(0), true, alpha, paper, p));
  }
  }
  r.add_uncounted_case(level_case(s, "c", "two_layer_no_mask_fails", two_nomask, true, alpha, paper, &control));
  r.add_uncounted_case(level_case(s, "d", "trainable_pe_no_mask_fails", two_nomask_pe, true, alpha, paper, &control));
  struct Cmp {
    const char* name;
    const Model *lower, *higher;
    const char *lower_name, *higher_name, *label;
  };
  for (const Cmp& c : {Cmp{"trainable_pe_below_sincos_pe", &two_mask_pe, &two_mask_sc, "trainable_pe", "sincos_pe",
                           "trainable PE < sin-cos PE"},
                       Cmp{"sincos_pe_below_no_pe", &two_mask_sc, &two_mask, "sincos_pe", "no_pe", "sin-cos PE < no PE"},
                       Cmp{"trainable_pe_below_no_pe", &two_mask_pe, &two_mask, "trainable_pe", "no_pe",
                           "trainable PE < no PE"}}) {
    nlohmann::ordered_json p;
    p["model"] = "2 layers, mask";  // the three models differ in their positional encoding only
    p["k"] = fmt::format("0..{} (mean)", s.D);
    if (paired) {
      r.add_uncounted_case(paired_models_case(r, s, c.name, c.label,
                                               fmt::format("{} below {} (loss averaged over k = 0..{})",
                                                           c.lower->spec.name(), c.higher->spec.name(), s.D),
                                               c.lower_name, *c.lower, c.higher_name, *c.higher, alpha, paper, p));
      continue;
    }
    r.add_uncounted_case(less_case("e", c.name, c.label,
                                    fmt::format("{} below {} (loss averaged over k = 0..{}, Welch over trials)",
                                                c.lower->spec.name(), c.higher->spec.name(), s.D),
                                    c.lower_name, c.lower->at(mean_k), c.higher_name, c.higher->at(mean_k), false,
                                    alpha, paper, p));
  }
}

void declare_refutations(ClaimRun& r) {
  const std::string at_paper =
      "a significant result the other way at the paper budget (p = 64, h = 8, D = 30, 500k Adam steps at batch 64 and "
      "learning rate 1e-4, 5 trials)";
  r.part("a").on_refuted(Refutation{RefutationClass::substantive,
                                    "a one-layer transformer's loss at the query is below 1/2 (it learns in context): " + at_paper,
                                    nlohmann::ordered_json::object(), ""});
  r.part("b").on_refuted(Refutation{RefutationClass::substantive,
                                    "two layers with the mask do not learn in context (loss at the query above 1/2, or not below "
                                    "its loss with no example): " + at_paper,
                                    nlohmann::ordered_json::object(), ""});
  r.part("c").on_refuted(Refutation{RefutationClass::substantive,
                                    "two layers without the mask learn in context (loss at the query below 1/2): " + at_paper,
                                    nlohmann::ordered_json::object(), ""});
  r.part("d").on_refuted(Refutation{RefutationClass::substantive,
                                    "two layers with trainable PE and no mask learn in context (loss at the query below 1/2): " + at_paper,
                                    nlohmann::ordered_json::object(), ""});
  r.part("e").on_refuted(Refutation{RefutationClass::substantive,
                                    "with the mask, the ordering trainable PE < sin-cos PE < no PE of the loss is reversed: " + at_paper,
                                    nlohmann::ordered_json::object(), ""});
}

// Report blocks: the models with their curves and runs, the findings, the figure (extra "models", "findings",
// "plots", "figures" in this order, and the SVG files). The findings are written here, not through r.finding(),
// since the report has always had them before "plots", "figures", "training" and "error_rates".
void report_blocks(ClaimRun& r, const Settings& s, const std::vector<Model>& models) {
  const ClaimContext& ctx = r.ctx();
  const int mean_k = s.D + 1;
  nlohmann::ordered_json mj = nlohmann::ordered_json::array();
  std::vector<std::string> findings;
  const auto [fig, curves] = xlssc::fig2_plots(s, models);
  std::string table;
  for (const auto& m : models) {
    mj.push_back(xlssc::fig2_model_json(m, s.D));
    if (m.runs.empty()) {  // not trained at this budget (Settings::models)
      table += fmt::format("{}{}: not trained", table.empty() ? "" : "; ", m.spec.name());
      continue;
    }
    const TestLosses q = m.at(s.D), z = m.at(0), h = m.at(s.D / 2), avg = m.at(mean_k);
    table += fmt::format("{}{}: {:.3f} [{:.2g}] / {:.3f} [{:.2g}] / {:.3f} [{:.2g}] / {:.3f} [{:.2g}]", table.empty() ? "" : "; ",
                         m.spec.name(), z.mean(), z.sd(), h.mean(), h.sd(), q.mean(), q.sd(), avg.mean(), avg.sd());
  }
  findings.push_back(fmt::format(
      "Loss at k = 0 / k = {} / k = {} (the query) in-context examples / averaged over k = 0..{} (mean [sd] over {} trials; "
      "E[y^2] = 1, the fail level {:g}): {}.",
      s.D / 2, s.D, s.D, s.trials, kFailLevel, table));
  {
    std::string below;
    for (const Model* m : {&models[0], &models[1], &models[3], &models[4]}) {  // 1 layer (mask, no mask); 2 layers, no mask
      const TestLosses q = m->at(s.D);
      below += m->runs.empty() ? fmt::format("{}{} not trained", below.empty() ? "" : ", ", m->spec.name())
                               : fmt::format("{}{} {:.3f}", below.empty() ? "" : ", ", m->spec.name(), q.mean());
    }
    findings.push_back("Remark 4.1 (\"the squared error is still slightly below 1\" in the settings other than two layers with "
                       "the mask): the loss at the query of those models here: " + below + ".");
  }
  findings.push_back("The paper gives two head counts for Fig. 2: h = 8 in Sec. 4.1, h = 1 in App. C Table 1 (Fig. 4: h = 8). "
                     "Every model here has the same h.");
  r.extra("models") = mj;
  r.extra("findings") = findings;
  r.extra("plots") = {fmt::format("{}.loss_by_examples.svg", ctx.claim_id), fmt::format("{}.training.svg", ctx.claim_id)};
  r.extra("figures") = {{"loss_by_examples", plot_json(fig)}};
  r.result().files["loss_by_examples.svg"] = svg_plot(fig);
  r.result().files["training.svg"] = svg_plot(curves);
}

ClaimResult run(const ClaimContext& ctx) {
  if (ctx.cases.size() != 1)
    throw std::invalid_argument("One setting per run (give single values with --set)");
  Settings s = Settings::from_case(ctx.cases.front());
  s.models = static_cast<int>(ctx.setting("models"));
  if (s.models != kAllModels && s.models != kMaskedModels && s.models != kControlOnly)
    throw std::invalid_argument("models: 7 (all), 3 (the two-layer masked models) or 1 (the control)");
  const bool paper = s.is_paper();
  std::vector<Model> models = xlssc::fig2_models(s);
  ClaimRun r(ctx, models.size() * static_cast<std::size_t>(s.trials));  // progress: one unit per (model, trial) run
  const double alpha = r.split_alpha(kComparisons);
  xlssc::fig2_train(r, s, models);
  add_cases(r, s, models, alpha, paper);
  declare_refutations(r);
  report_blocks(r, s, models);
  r.extra("training") = xlssc::fig2_training_json(ctx, s, models, paper);
  r.error_rates({{"family_alpha", ctx.alpha},
                 {"comparisons", kComparisons},
                 {"alpha_per_comparison", alpha},
                 {"interval", trained::interval_over_trials(alpha)},
                 {"fail_level", kFailLevel},
                 {"tests", "one-sided one-sample t (loss at the query against 1/2), paired t (k = D against k = 0, "
                           "one trained model) or Welch t (two models) over trials"}});
  const Model &one_mask = models[0], &one_nomask = models[1], &two_mask = models[2], &two_nomask = models[3],
              &two_nomask_pe = models[4], &two_mask_pe = models[5], &two_mask_sc = models[6];
  const auto q = [&](const Model& m) {
    return m.runs.empty() ? std::string("not trained") : fmt::format("{:.3f}", m.at(s.D).mean());
  };
  // The summary's groups of models; a group none of whose models this budget trains is named at the end instead.
  std::vector<std::string> shown, untrained;
  const auto group = [&](std::initializer_list<const Model*> ms, std::string losses, std::string name) {
    const bool any = std::any_of(ms.begin(), ms.end(), [](const Model* m) { return !m->runs.empty(); });
    if (any)
      shown.push_back(std::move(losses));
    else
      untrained.push_back(std::move(name));
  };
  group({&one_mask, &one_nomask}, fmt::format("1 layer {} (mask) / {} (no mask)", q(one_mask), q(one_nomask)),
        "1 layer (mask, no mask)");
  group({&two_mask, &two_mask_pe, &two_mask_sc},
        fmt::format("2 layers, mask: {} (no PE), {} (trainable PE), {} (sin-cos PE)", q(two_mask), q(two_mask_pe),
                    q(two_mask_sc)),
        "2 layers with the mask");
  group({&two_nomask, &two_nomask_pe},
        fmt::format("2 layers, no mask: {} (no PE), {} (trainable PE)", q(two_nomask), q(two_nomask_pe)),
        "2 layers without the mask (no PE, trainable PE)");
  return r.finish([&](Verdict v) {
    return fmt::format("{} ({}): loss at the query, mean over {} trials: {}{}", to_string(v),
                       paper ? "paper settings" : "reduced settings: " + s.differences(), s.trials,
                       fmt::join(shown, "; "),
                       untrained.empty() ? "" : fmt::format("; not trained at this budget: {}", fmt::join(untrained, ", ")));
  });
}

double memory_bytes(const Case& c, int threads) {
  const double p = c.get("p"), N = 2 * c.get("D") + 1, P = 2 * 12 * p * p + p * N + 16 * p;
  const double chunks = std::ceil(c.get("batch") / 64.0);
  return 8.0 * (P * (6 + threads + chunks) + threads * 40.0 * p * N);
}

// The layout of the claim's LaTeX table (claim/table.hpp).
ClaimTable table_layout() {
  return with_part_text({TableKind::training,
          "Figures~2 and~4",
          "GPT-2-style Transformers with and without the look-ahead mask on unstructured prompts",
          {{"query_mean_loss|trainable_pe_mean_loss|sincos_pe_mean_loss", "Left",
            "mean test loss over trials (a--d: at the query; e: averaged over $k$) of the model or the comparison's "
            "left side, $\\pm$ half-width of its interval over trials"},
           {"no_example_mean_loss|no_pe_mean_loss|sincos_pe_mean_loss", "Right",
            "the same for the comparison's right side (b: at $k=0$); the zero predictor's loss is "
            "$\\mathbb{E}[y^2]=1$"}}},
      {
       {"a", "a one-layer transformer fails on $E_2$ (with or without the mask): its loss at the query stays near $\\mathbb{E}[y^2]=1$"},
       {"b", "two layers with the look-ahead mask learn in context: the loss falls as the number of in-context examples grows"},
       {"c", "two layers without the mask fail: the loss at the query stays near $\\mathbb{E}[y^2]=1$"},
       {"d", "positional encoding without the mask does not rescue it: two layers, trainable PE, no mask fail"},
       {"e", "with two layers and the mask, the trainable PE beats the sin-cos PE, and both beat no PE"}});
}

const RegisterClaim reg{Claim{
    .id = "xlssc.fig2",
    .title = "GPT-2-style Transformers with and without the look-ahead mask on unstructured prompts (Figs. 1-2, 4)",
    .source = "Xing, Lin, Suh, Song and Cheng (2024), Sec. 4.1, Fig. 2, Remark 4.1; Sec. 5.1, Fig. 4; App. C",
    .statement = "GPT-2-style models (Garg et al.'s code: embedding p = 64, h = 8 heads, d = 5, D = 30, 50k-500k steps) on unstructured "
    "prompts E_2: a one-layer transformer fails; two layers with the look-ahead mask learn in context; without the mask "
    "or with one layer the loss stays near E[y^2] (\"slightly below 1\", Remark 4.1); positional encoding without the "
    "mask does not rescue it; with the mask, trainable PE beats sin-cos PE and both beat no PE.",
    .params = {with_deciding(with_paper(ParamSpec{"p", {16}, {8}, 2, 1024, true, "embedding dimension (paper 64)"}, {64}), {64}),
     with_deciding(with_paper(ParamSpec{"heads", {2}, {2}, 1, 64, true, "attention heads (paper 8: Sec. 4.1, Fig. 4)"}, {8}), {8}),
     with_deciding(with_paper(ParamSpec{"D", {10}, {5}, 1, 500, true, "in-context examples per prompt, 2D+1 tokens (paper 30)"}, {30}), {30}),
     with_deciding(with_paper(ParamSpec{"steps", {1500}, {15}, 1, 1e8, true, "Adam steps (paper 500k, App. C Table 1; deciding: bench/deciding_pilots.md)"}, {500000}), {2000}),
     with_deciding(with_paper(ParamSpec{"batch", {32}, {16}, 1, 1e6, true, "fresh prompts per step (not stated; Garg et al. 64)"}, {64}), {64}),
     with_deciding(with_paper(ParamSpec{"lr", {1e-3}, {1e-3}, 1e-7, 1, false, "Adam learning rate (not stated; Garg et al. 1e-4; deciding 1e-3, as the independent PyTorch run that learned in about 1000-1500 steps)"}, {1e-4}), {1e-3}),
     with_deciding(with_paper(ParamSpec{"trials", {3}, {2}, 2, 50, true, "training runs per model (not stated; 5 at the paper budget)"}, {5}), {2}),
     ParamSpec{"lambda", {10000}, {10000}, 1, 1e12, false, "Lambda of the sin-cos PE, formula (2) (not stated; Vaswani et al.'s 10000)"},
     with_deciding(with_paper(ParamSpec{"models", {7}, {7}, 1, 7, true,
                                        "which models are trained: 7 all, 3 the two-layer masked models (parts b, e), 1 the "
                                        "positive control (part b); untrained models leave their parts inconclusive",
                                        true},
                              {7}),
                   {3})},
    .default_samples = 2560,
    .quick_samples = 256,
    .memory_bytes = memory_bytes,
    .run = run,
    .parts = {PartSpec{"a", "A one-layer transformer fails on E_2 (with or without the mask): its loss at the query stays near "
                   "E[y^2] = 1.", Strength::empirical},
     PartSpec{"b", "Two layers with the look-ahead mask learn in context: the loss falls as the number of in-context "
                   "examples grows.", Strength::empirical},
     PartSpec{"c", "Two layers without the mask fail: the loss at the query stays near E[y^2] = 1.", Strength::empirical},
     PartSpec{"d", "Positional encoding without the mask does not rescue it: two layers, trainable PE, no mask fail.",
              Strength::empirical},
     PartSpec{"e", "With two layers and the mask, the trainable PE beats the sin-cos PE, and both beat no PE.",
              Strength::empirical}},
    .paper_samples = 1280,
    .table = table_layout()}};

}  // namespace icl::xlssc_fig2
