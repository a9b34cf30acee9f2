// sja.fig1 — Sun, Jadbabaie, Azizan (000), Sec. 4.1, Fig. 1; App. I, Figs. 5-9; App. J.
//
// Statement (empirical): quadratic task, d in {3, 4}, dbar = 12, n = 200 training prompts, Adam (lr 1e-3,
// no weight decay, batch 4000, 20000 iterations, 5 trials): a trained 6-layer linear Transformer is
// significantly worse than every trained 2L-layer bilinear Transformer (L in {2, 4, 6}); bilinear loss
// improves with L; at d = 4 (15 features > dbar = 12) deep bilinear models still learn the quadratic in
// context (beating the single-block limit of Remark 1); test loss rises for test prompts shorter than
// training prompts; the first 2l layers of a trained model behave as l block-coordinate-descent steps.
//
// Models: the bilinear Transformer learn::sja_bilinear(d, dbar, L, dense) (L blocks: bilinear (11) then
// masked LSA, 2L layers) and the linear Transformer learn::full_lsa(dbar + 1, 6) (6 masked LSA layers,
// every entry of P, Q trained) on the same sja prompts (rows 1, x, zeros, y). Each is trained `trials` times
// (claims/common/sja_training.hpp) and its test loss measured by Monte Carlo on fresh prompts of lengths
// n/4, n/2, n.
//
// Parts, each comparison judged over the trials (one-sided Welch or paired t-tests; Bonferroni over every
// comparison of the run at the claim's alpha):
//   a  linear worse than every bilinear model (at test length n, per d and L);
//   b  bilinear loss improves with L (consecutive L of the run, per d);
//   c  at d = 4 the deepest bilinear model's loss is below the single-block limit. The limit: Remark 1
//      states C(d+2,2) - dbar = 3 in the task's own units (E[y^2] = 1 + d + d(d-1)/2 + 3d = 23 at d = 4; the
//      bound is for the task with coefficients i.i.d. N(0,1) on the monomials, the same task as here). The
//      stated number is not the true single-block infimum (sja.remark1 refutes it: Cov of the coefficients
//      in the orthonormal basis has off-diagonal sqrt2); the true infimum over every width-dbar block and
//      every n is the sum of the C(d+2,2) - dbar smallest eigenvalues of that covariance
//      (exact/lower_bounds.hpp). The part is judged against the true infimum (the stronger test: beating it
//      is what "overcomes the limitation" means); the stated value is reported beside it.
//   d  test loss rises for shorter test prompts (every bilinear model: loss at n/2 and at n/4 above the
//      loss at n; paired over trials, the same trained model).
//   e  the first 2l layers behave as l block-coordinate-descent steps, read as App. I plots it: the loss of the
//      first 2(l+1) layers' prediction below that of the first 2l (judge_heads).
//
// At a reduced budget a significant reversal is reported as inconclusive (the reduced run does not re-run the
// paper's experiment); at the paper's settings (--set steps=20000,batch=4000,trials=5 and L=2,4,6) it refutes.
//
// The deciding budget (--budget deciding; docs/budgets.md): the paper's d, L, n, dbar, linear depth, learning rate and
// batch (4000), 1000 Adam steps, 2 trials, gradients clipped at norm 1 per matrix (bench/deciding_pilots.md: at
// batches 64 and 128 the deep stacks froze without clipping and L = 6 diverged with it). At the deciding and paper budgets parts a and b are decided on paired
// test prompts (the same prompts of length n through both trained models of a trial, one-sided t on the per-prompt
// differences at the comparison's alpha), confirmed only where every trial shows it (judge_paired_every_trial: an
// intersection-union test); the quick and standard budgets keep the Welch t over the trials' mean losses. Parts c, d
// and e at the deciding and paper budgets follow the heavy-tail rule per trial, every trial (trained::tailed_decision,
// as sja.fig4's parts; docs/budgets.md "Heavy tails"): their earlier rule, a t over the trials' mean losses, has 1
// degree of freedom at 2 trials (critical t 1.3e3 at the comparison's alpha), so it could not decide whatever the
// models did, and the short-prompt losses of the L = 4 models are heavy-tailed (means up to 1e130 at n/4).
// Since 3 December 2026 (docs/budgets.md "The sja model question"): the deciding and paper budgets train the
// bilinear models' label-row variant (`attention`), and a comparison counts only the trials that trained on both
// sides (bilinear: held-out loss at n at most 0.1 E[y^2]; linear: at most 1.1 x the best affine predictor's loss;
// sja_training.hpp).
#include "claims/common/sja_training.hpp"
#include "icl/claim/case_groups.hpp"
#include "constructions/sja_appC.hpp"
#include "constructions/sja_lower_bound.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/exact/lower_bounds.hpp"
#include "icl/model/prompt.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace icl::sja_fig1 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

using trained::Model;
using sja_train::Settings;
using trained::TestLosses;

struct Group {
  int d = 3, n = 200, dbar = 12, linear_layers = 6;
  Settings s;
  std::vector<int> Ls;
  bool paper = true;  // every case of the group at the paper's settings (ClaimContext::at_paper): model and schedule
  // Whether a reversal may refute here, and what differs from the paper where it may not.
  trained::AgainstPaper against() const {
    if (paper) return {true, ""};
    return {false, s.is_paper() ? "a model setting not the paper's (d, L, n, dbar, linear layers or init_sd)" : s.differences()};
  }
};

struct Trained {
  Group g;
  Model linear;
  std::vector<Model> bilinear;                     // one per L
  std::map<int, TestLosses> linear_loss;           // by n_test
  std::vector<std::map<int, TestLosses>> bl_loss;  // [L index][n_test]
  std::vector<std::vector<TestLosses>> head_loss;  // [L index][l - 1]: first 2l layers, l = 1..L-1, at n_test = n
  trained::TrainedGate linear_gate;                 // which trials trained (sja_training.hpp linear_gate, bilinear_gate)
  std::vector<trained::TrainedGate> bl_gate;        // [L index]
  learn::TrainConfig config;
  double single_block_inf = NAN, stated_limit = NAN, Ey2 = NAN;
};

// Groups: every parameter but L, in the order of their first case (lib's group_cases); each group's L sorted and
// unique, and the paper's settings only where every case of the group has them.
std::vector<Group> groups_of(const ClaimContext& ctx) {
  std::vector<Group> gs;
  for (const CaseGroup& cg : group_cases(ctx.cases, "L")) {
    const Case& c = *cg.first;
    Group g;
    g.d = c.geti("d"), g.n = c.geti("n"), g.dbar = c.geti("dbar"), g.linear_layers = c.geti("linear_layers");
    g.s = Settings::from_case(c);
    g.Ls = cg.values;
    for (const Case* k : cg.cases) g.paper = g.paper && ctx.at_paper(*k);
    if (g.dbar < g.d + 1) throw std::invalid_argument(fmt::format("Dbar = {} < d + 1 = {}", g.dbar, g.d + 1));
    gs.push_back(std::move(g));
  }
  return gs;
}

// The comparisons of the run (Bonferroni).
std::size_t count_comparisons(const std::vector<Group>& gs) {
  std::size_t comparisons = 0;
  for (const auto& g : gs) {
    comparisons += g.Ls.size();                           // a
    comparisons += g.Ls.size() > 1 ? g.Ls.size() - 1 : 0; // b
    comparisons += g.d == 4 ? 1 : 0;                      // c
    comparisons += 2 * g.Ls.size();                       // d
    for (int L : g.Ls) comparisons += static_cast<std::size_t>(L - 1);  // e
  }
  return comparisons;
}

// The units of progress: the trained models (one linear and one bilinear per L, per group).
std::size_t count_models(const std::vector<Group>& gs) {
  std::size_t t = 0;
  for (const auto& g : gs) t += g.Ls.size() + 1;
  return t;
}

// Trains a group's linear model and its bilinear models (one step of progress each) and measures their test losses.
Trained train_group(ClaimRun& r, const Group& g) {
  const ClaimContext& ctx = r.ctx();
  Trained t;
  t.g = g;
  const auto task = GaussianIclModel::from_task(PolynomialTask::quadratic(g.d), Eigen::MatrixXd::Identity(g.d, g.d));
  const PromptShape shape = sja_shape(g.d, g.dbar, g.n);
  const std::string data = fmt::format("d={},n={},dbar={}", g.d, g.n, g.dbar);
  const std::vector<int> n_tests = {std::max(1, g.n / 4), std::max(1, g.n / 2), g.n};
  t.linear = Model{fmt::format("linear {} layers d={}", g.linear_layers, g.d), learn::full_lsa(g.dbar + 1, g.linear_layers), {}, {}};
  t.config = sja_train::train_trials(ctx, t.linear, task, shape, g.s, data);
  for (int nt : n_tests) t.linear_loss[nt] = sja_train::test_losses(ctx, t.linear, task, g.dbar, nt);
  t.linear_gate = sja_train::linear_gate(t.linear_loss.at(g.n), g.d);
  r.step();
  for (int L : g.Ls) {
    Model m{fmt::format("bilinear L={} d={}", L, g.d),
            learn::sja_bilinear(g.d, g.dbar, L, learn::BilinearForm::dense, sja_train::attention_of(ctx)), {}, {}};
    sja_train::train_trials(ctx, m, task, shape, g.s, data);
    std::map<int, TestLosses> ls;
    for (int nt : n_tests) ls[nt] = sja_train::test_losses(ctx, m, task, g.dbar, nt);
    std::vector<TestLosses> heads;
    for (int l = 1; l < L; ++l) heads.push_back(sja_train::test_losses(ctx, m, task, g.dbar, g.n, 2 * l));
    t.head_loss.push_back(std::move(heads));
    t.bl_gate.push_back(sja_train::bilinear_gate(ls.at(g.n), sja_train::quadratic_label_moment(g.d)));
    t.bilinear.push_back(std::move(m));
    t.bl_loss.push_back(std::move(ls));
    r.step();
  }
  const auto v = sja::orthonormal_v(g.d);
  const Eigen::MatrixXd C = coefficient_covariance(task, v);
  t.single_block_inf = projection_infimum(C, g.dbar);
  t.stated_limit = std::max(0, sja::kernel_width(g.d) - g.dbar);
  t.Ey2 = C.trace();
  return t;
}

nlohmann::ordered_json base_params(const Group& g) {
  nlohmann::ordered_json p;
  p["d"] = g.d, p["n"] = g.n, p["dbar"] = g.dbar;
  p["steps"] = g.s.steps, p["batch"] = g.s.batch, p["trials"] = g.s.trials;
  return p;
}

// Part c: the deepest bilinear model below the single-block infimum (d = 4).
void judge_single_block(ClaimRun& r, const Trained& t, sja_train::TailedSides& sides, double alpha) {
  const Group& g = t.g;
  const TestLosses& bl = t.bl_loss.back().at(g.n);
  const std::string what = fmt::format("bilinear L={} below the single-block infimum {:.4g} (Remark 1 states {:g}; E[y^2] = {:.4g})",
                                       g.Ls.back(), t.single_block_inf, t.stated_limit, t.Ey2);
  const bool tailed = trained::paired_rule(r.ctx());
  auto p = base_params(g);
  p["L"] = g.Ls.back();
  p["comparison"] = "bilinear < single-block limit";
  TestLosses bound;
  bound.n_test = g.n;
  for (std::size_t k = 0; k < bl.per_trial.size(); ++k) {
    Estimate e;
    e.mean = e.ci_low = e.ci_high = t.single_block_inf;
    bound.per_trial.push_back(e);
  }
  trained::Side lower{"bilinear", bl, tailed ? sides.get(g.Ls.size() - 1, g.n, 0) : std::vector<TailedLoss>{}, &t.bl_gate.back()};
  const trained::Side higher{"single_block_infimum", bound,
                             tailed ? trained::constant_side(t.single_block_inf, lower.tailed.size()) : std::vector<TailedLoss>{}};
  CaseJson j = trained::compare(r.ctx(), g.against(), alpha, {p, "c", "below_single_block_infimum", what}, lower, higher,
                                [&](CaseJson& k) {
                                  k.quantity("stated", t.stated_limit);
                                  k.quantity("exact", t.single_block_inf);
                                  k.quantity("E_y2", t.Ey2);
                                  k.quantity("stated_limit_relative", t.stated_limit / t.Ey2);
                                  k.quantity("single_block_infimum_relative", t.single_block_inf / t.Ey2);
                                });
  r.add_uncounted_case(j);
}

// Parts a (linear worse than every bilinear model), b (improves with L), c (d = 4) and d (shorter test prompts give
// higher loss) of one group.
// Parts a and b at the deciding and paper budgets (docs/budgets.md, "Decision rules of the deciding budget"): per
// trial on paired test prompts (the same prompts of length n through both trained models of the trial), one-sided at
// the comparison's alpha, then confirmed only where every trial shows it (judge_paired_every_trial); a refutation
// only at the paper's settings. At the quick and standard budgets: the Welch t over the trials' mean losses.
void judge_group(ClaimRun& r, const Trained& t, sja_train::TailedSides& sides, double alpha) {
  const ClaimContext& ctx = r.ctx();
  const Group& g = t.g;
  const bool paired = trained::paired_rule(ctx);
  const auto task = GaussianIclModel::from_task(PolynomialTask::quadratic(g.d), Eigen::MatrixXd::Identity(g.d, g.d));
  const TestLosses& lin = t.linear_loss.at(g.n);
  auto differences = [&](const trained::Model& lower, const trained::Model& higher) -> std::optional<std::vector<Estimate>> {
    if (!paired) return std::nullopt;
    return sja_train::paired_differences(ctx, lower, higher, task, g.dbar, g.n);
  };
  for (std::size_t i = 0; i < g.Ls.size(); ++i) {
    auto p = base_params(g);
    p["L"] = g.Ls[i];
    p["comparison"] = "bilinear < linear";
    const std::string what = fmt::format("bilinear L={} below linear {} layers", g.Ls[i], g.linear_layers);
    r.add_uncounted_case(trained::compare(ctx, g.against(), alpha,
                            {p, "a", "bilinear_below_linear", what, false, differences(t.bilinear[i], t.linear)},
                            {"bilinear", t.bl_loss[i].at(g.n), {}, &t.bl_gate[i]}, {"linear", lin, {}, &t.linear_gate}));
  }
  for (std::size_t i = 1; i < g.Ls.size(); ++i) {
    auto p = base_params(g);
    p["L"] = g.Ls[i];
    p["comparison"] = fmt::format("L={} < L={}", g.Ls[i], g.Ls[i - 1]);
    const std::string what = fmt::format("bilinear L={} below L={}", g.Ls[i], g.Ls[i - 1]);
    r.add_uncounted_case(trained::compare(ctx, g.against(), alpha,
                            {p, "b", "deeper_below_shallower", what, false, differences(t.bilinear[i], t.bilinear[i - 1])},
                            {"deeper", t.bl_loss[i].at(g.n), {}, &t.bl_gate[i]},
                            {"shallower", t.bl_loss[i - 1].at(g.n), {}, &t.bl_gate[i - 1]}));
  }
  if (g.d == 4 && !g.Ls.empty()) judge_single_block(r, t, sides, alpha);
  for (std::size_t i = 0; i < g.Ls.size(); ++i) {
    for (int frac : {4, 2}) {
      const int nt = std::max(1, g.n / frac);
      auto p = base_params(g);
      p["L"] = g.Ls[i];
      p["n_test"] = nt;
      p["comparison"] = "loss(n) < loss(n_test)";
      const std::string what = fmt::format("bilinear L={}: loss at n_test = {} above n_test = {}", g.Ls[i], nt, g.n);
      r.add_uncounted_case(trained::compare(ctx, g.against(), alpha, {p, "d", "shorter_prompts_higher_loss", what, true},
                              {"train_length", t.bl_loss[i].at(g.n), paired ? sides.get(i, g.n, 0) : std::vector<TailedLoss>{}, &t.bl_gate[i]},
                              {"short", t.bl_loss[i].at(nt), paired ? sides.get(i, nt, 0) : std::vector<TailedLoss>{}, &t.bl_gate[i]}));
    }
  }
}

// Part e, read as App. I plots it: the prediction of the first 2l layers (the sub-network) has lower loss as l grows,
// as l block-coordinate-descent steps' does (sja.thm7 reports BCD's losses by depth). Paired over trials: the
// sub-networks of one trained model on the same test prompts.
void judge_heads(ClaimRun& r, const Trained& t, sja_train::TailedSides& sides, double alpha) {
  const Group& g = t.g;
  const bool tailed = trained::paired_rule(r.ctx());
  for (std::size_t i = 0; i < g.Ls.size(); ++i) {
    const int L = g.Ls[i];
    for (int l = 1; l < L; ++l) {
      const TestLosses& more = l + 1 == L ? t.bl_loss[i].at(g.n) : t.head_loss[i][static_cast<std::size_t>(l)];
      const TestLosses& fewer = t.head_loss[i][static_cast<std::size_t>(l - 1)];
      const std::string what = fmt::format("bilinear L={}: first {} layers below first {} layers", L, 2 * (l + 1), 2 * l);
      auto p = base_params(g);
      p["L"] = L;
      p["comparison"] = fmt::format("{} layers < {} layers", 2 * (l + 1), 2 * l);
      CaseJson j = trained::compare(
          r.ctx(), g.against(), alpha, {p, "e", "more_blocks_lower_loss", what, true},
          {"more_blocks", more, tailed ? sides.get(i, g.n, l + 1 == L ? 0 : 2 * (l + 1)) : std::vector<TailedLoss>{}, &t.bl_gate[i]},
          {"fewer_blocks", fewer, tailed ? sides.get(i, g.n, 2 * l) : std::vector<TailedLoss>{}, &t.bl_gate[i]});
      r.add_uncounted_case(j);
    }
  }
}

void mark_refutations(ClaimRun& r) {
  const std::string reversal = "a significant reversal at the paper's settings (the 20000-step, batch-4000, 5-trial run)";
  r.part("a").on_refuted(Refutation{RefutationClass::substantive, "the trained linear Transformer is not worse than a trained bilinear one: " + reversal, nlohmann::ordered_json::object(), ""});
  r.part("b").on_refuted(Refutation{RefutationClass::substantive, "a deeper bilinear model has higher loss: " + reversal, nlohmann::ordered_json::object(), ""});
  r.part("c").on_refuted(Refutation{RefutationClass::substantive, "the deepest bilinear model does not beat the single-block infimum: " + reversal, nlohmann::ordered_json::object(), ""});
  r.part("d").on_refuted(Refutation{RefutationClass::substantive, "shorter test prompts give lower loss: " + reversal, nlohmann::ordered_json::object(), ""});
  r.part("e").on_refuted(Refutation{RefutationClass::reading, "a further block of a trained model raises the loss of its prediction (read as App. I plots it): " + reversal, nlohmann::ordered_json::object(), ""});
}

// What the first group's settings beyond the trainer's differ from the paper's (L, d, n, dbar, linear layers).
std::string extra_differences(const std::vector<Trained>& all) {
  std::string extra;
  std::vector<int> Ls = all.front().g.Ls;
  if (Ls != std::vector<int>{2, 4, 6}) {
    extra = "L in {";
    for (std::size_t i = 0; i < Ls.size(); ++i) extra += (i ? ", " : "") + std::to_string(Ls[i]);
    extra += "} (paper {2, 4, 6})";
  }
  std::set<int> ds;
  for (const auto& t : all) ds.insert(t.g.d);
  if (ds != std::set<int>{3, 4}) {
    std::string dl;
    for (int d : ds) dl += (dl.empty() ? "" : ", ") + std::to_string(d);
    extra += fmt::format("{}d in {{{}}} (paper {{3, 4}})", extra.empty() ? "" : "; ", dl);
  }
  if (all.front().g.n != 200) extra += fmt::format("{}n = {} (paper 200)", extra.empty() ? "" : "; ", all.front().g.n);
  if (all.front().g.dbar != 12) extra += fmt::format("{}dbar = {} (paper 12)", extra.empty() ? "" : "; ", all.front().g.dbar);
  if (all.front().g.linear_layers != 6) extra += fmt::format("{}linear Transformer {} layers (paper 6)", extra.empty() ? "" : "; ", all.front().g.linear_layers);
  return extra;
}

// The report's models block, and (with any model) its training block and curves.
void write_models(ClaimRun& r, const std::vector<Trained>& all) {
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  std::vector<std::uint64_t> seeds;
  std::vector<const Model*> curves;
  for (const auto& t : all) {
    auto add = [&](const Model& m, const std::map<int, TestLosses>& ls) {
      models.push_back(trained::model_json(m, ls));
      curves.push_back(&m);
    };
    add(t.linear, t.linear_loss);
    for (std::size_t i = 0; i < t.bilinear.size(); ++i) add(t.bilinear[i], t.bl_loss[i]);
    if (seeds.empty()) seeds = t.linear.seeds;
  }
  r.extra("models") = models;
  if (!all.empty()) {
    const Group& g0 = all.front().g;
    r.extra("training") = trained::training_block(all.front().config, g0.against(), g0.s.init_sd, seeds, r.ctx().claim_id, extra_differences(all));
    r.result().files["training.svg"] = trained::curves_svg("Quadratic ICL, training loss (trial 1 of each model)", curves);
  }
}

// The findings: per group the test losses and the losses of the first 2l layers; then how part e is read.
std::vector<std::string> findings_text(const std::vector<Trained>& all) {
  std::vector<std::string> findings;
  for (const auto& t : all) {
    std::string line = fmt::format("d = {}: test loss at n = {} (mean [sd] over {} trials): linear {:.4g} [{:.2g}]", t.g.d, t.g.n,
                                   t.g.s.trials, t.linear_loss.at(t.g.n).mean(), t.linear_loss.at(t.g.n).sd());
    for (std::size_t i = 0; i < t.bilinear.size(); ++i)
      line += fmt::format(", bilinear L={} {:.4g} [{:.2g}]", t.g.Ls[i], t.bl_loss[i].at(t.g.n).mean(), t.bl_loss[i].at(t.g.n).sd());
    line += fmt::format("; E[y^2] = {:.4g}, single-block infimum {:.4g} (Remark 1 states {:g}).", t.Ey2, t.single_block_inf,
                        t.stated_limit);
    for (std::size_t i = 0; i < t.bilinear.size(); ++i) {
      if (t.head_loss[i].empty()) continue;
      line += fmt::format(" Bilinear L={}, loss after the first 2l layers (mean over trials):", t.g.Ls[i]);
      for (std::size_t l = 0; l < t.head_loss[i].size(); ++l) line += fmt::format(" l={} {:.4g},", l + 1, t.head_loss[i][l].mean());
      line += fmt::format(" l={} {:.4g}.", t.g.Ls[i], t.bl_loss[i].at(t.g.n).mean());
    }
    findings.push_back(line);
  }
  findings.push_back("Part e is read as App. I plots it: the loss of the first 2l layers' prediction falls as l grows, as "
                     "that of l block-coordinate-descent steps does. Whether those predictions equal the BCD iterates is "
                     "sja.thm7's learned-vs-constructed finding (a trained sparse stack there does not compute BCD).");
  return findings;
}

ClaimResult run(const ClaimContext& ctx) {
  const std::vector<Group> gs = groups_of(ctx);
  ClaimRun r(ctx, count_models(gs));
  const std::size_t comparisons = count_comparisons(gs);
  const double alpha = r.split_alpha(comparisons);

  std::vector<Trained> all;
  for (const auto& g : gs) all.push_back(train_group(r, g));
  const bool paper = [&] {
    for (const auto& t : all)
      if (!t.g.paper) return false;
    return true;
  }();
  std::vector<sja_train::TailedSides> sides;  // the heavy-tail rule's sides of each group's bilinear models
  sides.reserve(all.size());
  for (const auto& t : all) sides.emplace_back(ctx, t.bilinear, t.g.d, t.g.dbar);
  for (std::size_t k = 0; k < all.size(); ++k) judge_group(r, all[k], sides[k], alpha);
  for (std::size_t k = 0; k < all.size(); ++k) judge_heads(r, all[k], sides[k], alpha);
  mark_refutations(r);

  write_models(r, all);
  r.error_rates(trained::error_rates_block(
      ctx, comparisons, alpha,
      trained::paired_rule(ctx)
          ? "parts a and b: one-sided paired t on the same test prompts through both models per trial, confirmed where every trial shows it; parts c, d and e: " + trained::tailed_rule_text()
          : "one-sided Welch t (between models) or paired t (test lengths or sub-networks of one model) over trials"));
  r.extra("error_rates")["false_confirm_rate_per_comparison"] = alpha;
  const std::vector<std::string> findings = findings_text(all);
  for (const auto& f : findings) r.finding(f);
  return r.finish([&](Verdict v) {
    std::string summary = fmt::format("{} ({}; {}): {}", to_string(v), paper ? "paper settings" : "reduced settings: " + all.front().g.against().differences,
                                      sja_train::attention_note(ctx),
                                      findings.empty() ? std::string() : findings.front());
    for (std::size_t i = 1; i < findings.size(); ++i) summary += " " + findings[i];
    return summary;
  });
}

// The layout of the claim's LaTeX table (claim/table.hpp).
ClaimTable table_layout() {
  return with_part_text({TableKind::training,
          "Figure~1",
          "Trained bilinear vs.\\ linear Transformers on quadratic ICL",
          {{"bilinear_mean_loss|deeper_mean_loss|short_mean_loss|more_blocks_mean_loss", "Left",
            "mean test loss over trials of the comparison's left side, $\\pm$ half-width of its interval over trials"},
           {"linear_mean_loss|shallower_mean_loss|single_block_infimum_mean_loss|train_length_mean_loss|"
            "fewer_blocks_mean_loss",
            "Right", "the same for its right side (c: the exact single-block infimum)"},
           {"stated", "Paper", "the paper's limit (part c)"},
           {"E_y2", "$\\mathbb{E}[y^2]$", "loss of the zero predictor"}}},
      {
       {"a", "a trained 6-layer linear Transformer is significantly worse than every trained $2L$-layer bilinear Transformer ($L\\in\\{2,4,6\\}$)"},
       {"b", "the bilinear loss improves with $L$"},
       {"c", "at $d=4$ (15 features $>\\bar d=12$) deep bilinear models learn the quadratic in context, beating the single-block limit of Remark~1"},
       {"d", "the test loss rises for test prompts shorter than the training prompts"},
       {"e", "the first $2l$ layers of a trained model behave as $l$ block-coordinate-descent steps"}});
}

const RegisterClaim reg{Claim{
    .id = "sja.fig1",
    .title = "Trained bilinear vs linear Transformers on quadratic ICL (Fig. 1)",
    .source = "Sun, Jadbabaie and Azizan (2025), Sec. 4.1, Fig. 1; App. I, Figs. 5-9; App. J",
    .statement = "Quadratic task, d in {3, 4}, dbar = 12, n = 200, Adam (lr 1e-3, batch 4000, 20000 iterations, 5 trials): a trained "
    "6-layer linear Transformer is significantly worse than every trained 2L-layer bilinear Transformer (L in {2, 4, 6}); "
    "bilinear loss improves with L; at d = 4 deep bilinear models beat the single-block limit of Remark 1; test loss rises "
    "for shorter test prompts; the first 2l layers behave as l block-coordinate-descent steps.",
    .params = sja_train::with_training_params({with_paper(ParamSpec{"d", {4}, {4}, 1, 6, true, "input dimension (paper {3, 4}; d = 4 is the case with more features than dbar)"}, {3, 4}),
     with_paper(ParamSpec{"L", {2, 4}, {1, 2}, 1, 8, true, "bilinear blocks (2L layers; paper {2, 4, 6})"}, {2, 4, 6}),
     with_paper(ParamSpec{"n", {200}, {40}, 2, 2000, true, "training prompt length (paper 200); test lengths n/4, n/2, n"}, {200}),
     with_paper(ParamSpec{"dbar", {12}, {12}, 2, 40, true, "embedding width (paper 12)"}, {12}),
     with_paper(ParamSpec{"linear_layers", {6}, {2}, 1, 12, true, "layers of the linear Transformer (paper 6)"}, {6})},
                                    sja_train::DecidingTraining{1000, 4000, 2, 1, "at the paper's batch 4000: at batch 64 and 128 the deep stacks froze or diverged, bench/deciding_pilots.md; about 5 min on a GPU, hours on 2 CPU cores"}),
    .default_samples = 2000,
    .quick_samples = 256,
    .memory_bytes = [](const Case& c, int threads) {
      return (threads + 2) * 64.0 * 8.0 * (c.get("dbar") + 1) * (c.get("n") + 1) * (2 * c.get("L") + c.get("linear_layers") + 4);
    },
    .run = run,
    .parts = {PartSpec{"a", "A trained 6-layer linear Transformer is significantly worse than every trained 2L-layer bilinear "
                   "Transformer (L in {2, 4, 6}).", Strength::empirical},
     PartSpec{"b", "Bilinear loss improves with L.", Strength::empirical},
     PartSpec{"c", "At d = 4 (15 features > dbar = 12) deep bilinear models learn the quadratic in context, beating the "
                   "single-block limit of Remark 1.", Strength::empirical},
     PartSpec{"d", "Test loss rises for test prompts shorter than the training prompts.", Strength::empirical},
     PartSpec{"e", "The first 2l layers of a trained model behave as l block-coordinate-descent steps.", Strength::empirical}},
    .table = table_layout()}};

}  // namespace icl::sja_fig1
