// sja.fig2 — Sun, Jadbabaie, Azizan (000), Sec. 4.2, Fig. 2; App. I, Fig. 10; App. J.
//
// Statement (empirical): the 10-term cubic over d = 4 variables of Sec. 4.2
//   f(x; w) = w0 + sum_i w_i x_i + w12 x1x2 + w23 x2x3 + w34 x3x4 + w123 x1x2x3 + w234 x2x3x4
// (constructions/sja_sec42.hpp sec42_task, the task sja.sec42 builds), dbar = 15, 10-layer bilinear
// Transformers (5 blocks); the trained dense (11) model significantly outperforms the trained sparse (12)
// one (sparse trains only the free weights W~ of (12), the rest fixed at zero); the sparse model's loss
// still decreases with more in-context examples.
//
// The paper contradicts itself on the prompt length: Sec. 4.2 says n = 150, App. J says n = 100. The
// default here is App. J's n = 100 (the experiment-details appendix); `--set n=150` runs Sec. 4.2's.
// App. J also trains a 5-layer linear Transformer; Fig. 2 and the statement compare only dense and sparse,
// so it is not trained here (no part rests on it).
//
// Models: learn::sja_bilinear(4, dbar, L, dense | sparse). Each is trained `trials` times
// (claims/common/sja_training.hpp) on the same minibatch stream and evaluated by Monte Carlo on fresh
// prompts of lengths n/4, n/2, n.
//
// Parts (one-sided t-tests over trials; Bonferroni over every comparison of the run):
//   a  dense below sparse at test length n (Welch over trials);
//   b  the sparse model's loss decreases with more in-context examples: loss at n below the loss at n/4
//      and at n/2 (paired over trials: the same trained model).
// Context (a finding, not a verdict): the loss of the best predictor on monomials of degree <= 2 (the floor
// sja.sec42 proves for sparse stacks whose attention writes only the label row), E[y^2] - tr(Lam2^-1 S2),
// exact; the trained sparse model's loss is reported against it.
// At a reduced budget a significant reversal is inconclusive; at the paper's settings it refutes.
#include "claims/common/sja_training.hpp"
#include "constructions/sja_sec42.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/prompt.hpp"

#include <fmt/format.h>

#include <map>

namespace icl::sja_fig2 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

using trained::Model;
using sja_train::Settings;
using trained::TestLosses;

struct Run {
  int n = 100, dbar = 15, L = 5;
  Settings s;
  Model dense, sparse;
  std::map<int, TestLosses> dense_loss, sparse_loss;
  learn::TrainConfig config;
};

// The loss of the best predictor on monomials of degree <= 2 (sja.sec42's floor), and E[y^2].
struct Floor {
  double floor = NAN, Ey2 = NAN;
};

// Trains the case's dense and sparse models and measures their test losses at n/4, n/2, n.
Run train_case(const ClaimContext& ctx, const Case& c, const GaussianIclModel& task, int d) {
  Run r;
  r.n = c.geti("n"), r.dbar = c.geti("dbar"), r.L = c.geti("L");
  r.s = Settings::from_case(c);
  if (r.dbar < d + 2) throw std::invalid_argument(fmt::format("Dbar = {} < d + 2 = 6 (the sparse form needs a scratch row)", r.dbar));
  const PromptShape shape = sja_shape(d, r.dbar, r.n);
  const std::string data = fmt::format("n={},dbar={}", r.n, r.dbar);
  const std::vector<int> n_tests = {std::max(1, r.n / 4), std::max(1, r.n / 2), r.n};
  const learn::SjaAttention att = sja_train::attention_of(ctx);
  r.dense = Model{fmt::format("dense (11) L={} n={}", r.L, r.n), learn::sja_bilinear(d, r.dbar, r.L, learn::BilinearForm::dense, att), {}, {}};
  r.sparse = Model{fmt::format("sparse (12) L={} n={}", r.L, r.n), learn::sja_bilinear(d, r.dbar, r.L, learn::BilinearForm::sparse, att), {}, {}};
  r.config = sja_train::train_trials(ctx, r.dense, task, shape, r.s, data);
  sja_train::train_trials(ctx, r.sparse, task, shape, r.s, data);
  for (int nt : n_tests) {
    r.dense_loss[nt] = sja_train::test_losses(ctx, r.dense, task, r.dbar, nt);
    r.sparse_loss[nt] = sja_train::test_losses(ctx, r.sparse, task, r.dbar, nt);
  }
  return r;
}

// Since 3 December 2026 (docs/budgets.md "The sja model question"): the deciding and paper budgets train the
// label-row variant (`attention`), and a comparison counts only the trials that trained on both sides (dense: held-out
// loss at n at most 0.1 E[y^2]; sparse: at most 1.1 x the degree-2 floor; sja_training.hpp).
// Parts a (dense below sparse) and b (the sparse model's loss at n below n/4 and n/2) of one case. At the deciding and
// paper budgets both follow the heavy-tail rule per trial, every trial (trained::tailed_decision, on the same test
// prompts as the report's test losses; the cap 100 E[y^2] of the cubic; docs/budgets.md, stated before any paper run
// of this claim); at the quick and standard budgets part a takes the Welch t over the trials' mean losses and part b
// the paired t over trials.
void judge_case(ClaimRun& res, const Run& r, double alpha, const Floor& fl, const GaussianIclModel& task) {
  const ClaimContext& ctx = res.ctx();
  const bool tailed = trained::paired_rule(ctx);
  const bool paper_r = r.s.is_paper() && r.L == 5 && r.dbar == 15 && (r.n == 100 || r.n == 150);
  const trained::AgainstPaper against{paper_r, r.s.differences()};
  // "Trained" (sja_training.hpp): the dense model at 0.1 E[y^2], the sparse one at 1.1 x the degree-2 floor.
  const trained::TrainedGate dense_gate = sja_train::bilinear_gate(r.dense_loss.at(r.n), fl.Ey2);
  const trained::TrainedGate sparse_gate = sja_train::floor_gate(r.sparse_loss.at(r.n), fl.floor, "the degree-2 floor");
  const auto side = [&](const std::string& name, const Model& m, int nt, const std::map<int, TestLosses>& losses) {
    return trained::Side{name, losses.at(nt),
                         tailed ? trained::tailed_losses(ctx, m, sja_train::prompts(task, r.dbar, nt), icl::LossSpec::sja(),
                                                         nt, trained::kTailCap * fl.Ey2)
                                : std::vector<TailedLoss>{},
                         &m == &r.dense ? &dense_gate : &sparse_gate};
  };
  auto params = [&] {
    nlohmann::ordered_json p;
    p["n"] = r.n, p["dbar"] = r.dbar, p["L"] = r.L, p["steps"] = r.s.steps, p["batch"] = r.s.batch, p["trials"] = r.s.trials;
    return p;
  };
  const trained::Side sparse_n = side("sparse", r.sparse, r.n, r.sparse_loss);
  {
    auto p = params();
    p["comparison"] = "dense < sparse";
    CaseJson j = trained::compare(ctx, against, alpha, {p, "a", "dense_below_sparse", "dense (11) below sparse (12)"},
                                  side("dense", r.dense, r.n, r.dense_loss), sparse_n, [&](CaseJson& k) {
                                    k.quantity("E_y2", fl.Ey2);
                                    k.quantity("quadratic_floor", fl.floor);
                                  });
    res.add_uncounted_case(j);
  }
  for (int frac : {4, 2}) {
    const int nt = std::max(1, r.n / frac);
    auto p = params();
    p["n_test"] = nt;
    p["comparison"] = "sparse: loss(n) < loss(n_test)";
    const std::string what = fmt::format("sparse: loss at n_test = {} below n_test = {}", r.n, nt);
    trained::Side lower = sparse_n;
    lower.name = "long";
    CaseJson j = trained::compare(ctx, against, alpha, {p, "b", "sparse_loss_decreases_with_n", what, true}, lower,
                                  side("short", r.sparse, nt, r.sparse_loss));
    res.add_uncounted_case(j);
  }
}

// The report's models and findings blocks (findings before training, as they always stood), the training block and
// the curves; returns the findings.
nlohmann::ordered_json write_models(ClaimRun& res, const std::vector<Run>& runs, const Floor& fl) {
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  std::vector<const Model*> curves;
  for (const auto& r : runs) {
    for (auto [m, ls] : {std::pair{&r.dense, &r.dense_loss}, std::pair{&r.sparse, &r.sparse_loss}}) {
      models.push_back(trained::model_json(*m, *ls));
      curves.push_back(m);
    }
    findings.push_back(fmt::format(
        "n = {}, L = {}: test loss at n (mean [sd] over {} trials): dense {:.4g} [{:.2g}], sparse {:.4g} [{:.2g}]; E[y^2] = {:.4g}; "
        "the best predictor on monomials of degree <= 2 (sja.sec42's floor for sparse stacks whose attention writes only the "
        "label row) has loss {:.4g}.",
        r.n, r.L, r.s.trials, r.dense_loss.at(r.n).mean(), r.dense_loss.at(r.n).sd(), r.sparse_loss.at(r.n).mean(),
        r.sparse_loss.at(r.n).sd(), fl.Ey2, fl.floor));
  }
  findings.push_back("The paper gives two prompt lengths for this experiment: n = 150 (Sec. 4.2) and n = 100 (App. J); the default "
                     "here is App. J's.");
  res.extra("models") = models;
  res.extra("findings") = findings;
  if (!runs.empty()) {
    const Run& r0 = runs.front();
    std::string extra;
    if (r0.L != 5) extra = fmt::format("L = {} blocks, {} layers (paper 5 blocks, 10 layers)", r0.L, 2 * r0.L);
    if (r0.n != 100 && r0.n != 150) extra += fmt::format("{}n = {} (paper 100 in App. J, 150 in Sec. 4.2)", extra.empty() ? "" : "; ", r0.n);
    if (r0.dbar != 15) extra += fmt::format("{}dbar = {} (paper 15)", extra.empty() ? "" : "; ", r0.dbar);
    res.extra("training") = sja_train::training_block(r0.config, r0.s, r0.dense.seeds, res.ctx().claim_id, extra);
    res.result().files["training.svg"] = trained::curves_svg("Cubic ICL, dense (11) vs sparse (12), training loss (trial 1)", curves);
  }
  return findings;
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimRun res(ctx);
  const PolynomialTask poly = sja::sec42_task();
  const int d = sja::kSec42D;
  const auto task = GaussianIclModel::from_task(poly, Eigen::MatrixXd::Identity(d, d));
  const FeatureMoments m2 = sja::sec42_degree2_moments();
  const Floor fl{best_predictor_loss(m2), m2.Ey2};  // the degree <= 2 floor (sja.sec42)

  const std::size_t per_run = 3;  // a, b (two lengths)
  const double alpha = res.split_alpha(per_run * ctx.cases.size());
  std::vector<Run> runs;
  for (const auto& c : ctx.cases) {
    runs.push_back(train_case(ctx, c, task, d));
    judge_case(res, runs.back(), alpha, fl, task);
    res.step();
  }
  const std::string reversal = "a significant reversal at the paper's settings (batch 4000, 20000 steps, 5 trials, 10 layers, dbar = 15)";
  res.part("a").on_refuted(Refutation{RefutationClass::substantive, "the trained dense model is not better than the sparse one: " + reversal,
                                      nlohmann::ordered_json::object(), ""});
  res.part("b").on_refuted(Refutation{RefutationClass::substantive, "the sparse model's loss rises with more examples: " + reversal,
                                      nlohmann::ordered_json::object(), ""});

  const nlohmann::ordered_json findings = write_models(res, runs, fl);
  res.error_rates(trained::error_rates_block(
      ctx, per_run * ctx.cases.size(), alpha,
      trained::paired_rule(ctx) ? "parts a and b: " + trained::tailed_rule_text()
                                : "one-sided Welch t (dense vs sparse) or paired t (test lengths of one model) over trials"));
  return res.finish([&](Verdict v) {
    return fmt::format("{} ({}; {}): {}", to_string(v),
                       runs.empty() || runs.front().s.is_paper() ? "paper settings" : "reduced settings: " + runs.front().s.differences(),
                       sja_train::attention_note(ctx),
                       findings.front().get<std::string>());
  });
}

// The layout of the claim's LaTeX table (claim/table.hpp).
ClaimTable table_layout() {
  return with_part_text({TableKind::training,
          "Figure~2",
          "Trained dense (11) vs.\\ sparse (12) bilinear Transformers",
          {{"dense_mean_loss|long_mean_loss", "Left", "mean test loss over trials of the comparison's left side, $\\pm$ half-width of its interval over trials"},
           {"sparse_mean_loss|short_mean_loss", "Right", "the same for its right side"},
           {"E_y2", "$\\mathbb{E}[y^2]$", "loss of the zero predictor"},
           {"quadratic_floor", "Floor", "loss floor of degree-2 features"}}},
      {
       {"a", "the trained dense (11) 10-layer bilinear Transformer significantly outperforms the trained sparse (12) one on the 10-term cubic"},
       {"b", "the sparse model's loss still decreases with more in-context examples"}});
}

const RegisterClaim reg{Claim{
    .id = "sja.fig2",
    .title = "Trained dense (11) vs sparse (12) bilinear Transformers on the 10-term cubic (Fig. 2)",
    .source = "Sun, Jadbabaie and Azizan (2025), Sec. 4.2, Fig. 2; App. I, Fig. 10; App. J",
    .statement = "The 10-term cubic over 4 variables of Sec. 4.2, dbar = 15, 10-layer bilinear Transformers (n = 150 in Sec. 4.2, n = 100 "
    "in App. J): the trained dense (11) model significantly outperforms the trained sparse (12) one (sparse trains only the "
    "free weights of (12)); the sparse model's loss still decreases with more in-context examples.",
    .params = sja_train::with_training_params({with_paper(ParamSpec{"n", {100}, {40}, 4, 2000, true, "training prompt length (App. J 100, Sec. 4.2 150); test lengths n/4, n/2, n"}, {100}),
     with_paper(ParamSpec{"dbar", {15}, {15}, 6, 40, true, "embedding width (paper 15)"}, {15}),
     with_paper(ParamSpec{"L", {5}, {1}, 1, 8, true, "bilinear blocks, 2L layers (paper 5)"}, {5})}),
    .default_samples = 2000,
    .quick_samples = 256,
    .memory_bytes = [](const Case& c, int threads) { return (threads + 2) * 64.0 * 8.0 * (c.get("dbar") + 1) * (c.get("n") + 1) * (2 * c.get("L") + 4); },
    .run = run,
    .parts = {PartSpec{"a", "The trained dense (11) 10-layer bilinear Transformer significantly outperforms the trained sparse (12) one on "
                   "the 10-term cubic.", Strength::empirical},
     PartSpec{"b", "The sparse model's loss still decreases with more in-context examples.", Strength::empirical}},
    .table = table_layout()}};

}  // namespace icl::sja_fig2
