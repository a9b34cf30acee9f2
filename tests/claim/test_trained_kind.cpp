// The trained kind (lib/icl/claim/kinds/trained.hpp) on its own, with no claim: trials are reproducible and
// independent of the thread count, a model against itself on paired prompts differs by exactly 0, and the heavy-tail
// rule over trials confirms a clear gap, and refutes a reversed one only at the paper's settings.
#include "icl/claim/kinds/trained.hpp"
#include "icl/learn/forms.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

namespace test_trained_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

ClaimContext context(int threads) {
  ClaimContext ctx;
  ctx.claim_id = "test.trained";
  ctx.seed = 7;
  ctx.threads = threads;
  ctx.samples = 512;
  ctx.budget = Budget::deciding;
  return ctx;
}

struct Setup {
  int d = 2, n = 8;
  GaussianIclModel task = GaussianIclModel::from_task(PolynomialTask::linear(2), Eigen::MatrixXd::Identity(2, 2));
  icl::PromptSource prompts = icl::gaussian_prompts(task, acds_shape(2, 8));
  trained::Schedule schedule{.steps = 30, .batch = 32, .trials = 2, .learning_rate = 1e-2, .init_sd = 0.05};
};

trained::Model trained_model(const ClaimContext& ctx, const Setup& s) {
  trained::Model m{.name = "one layer", .params = learn::full_lsa(s.d + 1, 1), .runs = {}, .seeds = {}};
  trained::train_trials(ctx, m, s.prompts, icl::LossSpec::acds(), s.schedule, "data");
  return m;
}

// A side with a known mean and no tail: `mean` with standard error `se` over many prompts.
TailedLoss side(double mean, double se) {
  TailedLoss t;
  t.full.mean = mean;
  t.full.stderr_ = se;
  t.full.sd = se * 100;
  t.full.samples = 10000;
  t.full.ci_low = mean - 3 * se;
  t.full.ci_high = mean + 3 * se;
  t.capped = t.full;
  t.cap = 1e9;
  return t;
}

// Per-trial test losses at n_test = 8 with these means (standard error 0.01 each).
trained::TestLosses losses(std::initializer_list<double> means) {
  trained::TestLosses t;
  t.n_test = 8;
  for (double m : means) t.per_trial.push_back(side(m, 0.01).full);
  return t;
}

}  // namespace

TEST_CASE("trained kind: trials are reproducible, seeded seed + k, and the same for any thread count") {
  const Setup s;
  const trained::Model a = trained_model(context(1), s), b = trained_model(context(2), s);
  REQUIRE(a.runs.size() == 2);
  CHECK(a.seeds == std::vector<std::uint64_t>{7, 8});
  for (std::size_t k = 0; k < 2; ++k) {
    REQUIRE(a.runs[k].ok());
    CHECK((a.runs[k].theta - b.runs[k].theta).norm() == 0.0);
  }
  CHECK((a.runs[0].theta - a.runs[1].theta).norm() > 0.0);  // the trials differ
  const trained::TestLosses t1 = trained::test_losses(context(1), a, s.prompts, icl::LossSpec::acds(), s.n);
  const trained::TestLosses t2 = trained::test_losses(context(2), b, s.prompts, icl::LossSpec::acds(), s.n);
  REQUIRE(t1.finished() == 2);
  for (std::size_t k = 0; k < 2; ++k) CHECK(t1.per_trial[k].mean == t2.per_trial[k].mean);
  // The tailed side's full estimate is test_losses' bit for bit (the same prompts).
  const auto tl = trained::tailed_losses(context(1), a, s.prompts, icl::LossSpec::acds(), s.n, 1e6);
  for (std::size_t k = 0; k < 2; ++k) CHECK(tl[k].full.mean == t1.per_trial[k].mean);
}

TEST_CASE("trained kind: a model against itself on paired prompts differs by exactly 0, and is not decided") {
  const Setup s;
  const ClaimContext ctx = context(1);
  const trained::Model m = trained_model(ctx, s);
  const auto diffs = trained::paired_differences(ctx, m, m, s.prompts, icl::LossSpec::acds(), s.n);
  REQUIRE(diffs.size() == 2);
  for (const auto& e : diffs) CHECK(e.mean == 0.0);
  const Decision dec = trained::paired_decision(ctx, {.paper = true, .differences = ""}, diffs, 0.01, "m below m");
  CHECK(dec.verdict == Verdict::inconclusive);
}

TEST_CASE("trained kind: the heavy-tail rule confirms a clear gap in every trial, and refutes a reversal only at the "
          "paper's settings") {
  const ClaimContext ctx = context(1);
  const std::vector<TailedLoss> low{side(1.0, 0.01), side(1.1, 0.01)}, high{side(2.0, 0.01), side(2.2, 0.01)};
  const trained::AgainstPaper reduced{.paper = false, .differences = "10 steps (paper 20000)"};
  const trained::AgainstPaper paper{.paper = true, .differences = ""};
  CHECK(trained::tailed_decision(ctx, reduced, low, high, 0.01, "low below high").verdict == Verdict::confirmed);
  CHECK(trained::tailed_decision(ctx, reduced, high, low, 0.01, "high below low").verdict == Verdict::inconclusive);
  CHECK(trained::tailed_decision(ctx, paper, high, low, 0.01, "high below low").verdict == Verdict::refuted);
  // A gap shown in one trial only is not decided (every trial must show it).
  const std::vector<TailedLoss> mixed{side(2.0, 0.01), side(0.5, 0.01)};
  CHECK(trained::tailed_decision(ctx, paper, low, mixed, 0.01, "low below mixed").verdict == Verdict::inconclusive);
  // A stated number as the other side.
  CHECK(trained::tailed_decision(ctx, reduced, low, trained::constant_side(3.0, 2), 0.01, "low below 3").verdict ==
        Verdict::confirmed);
}

TEST_CASE("trained kind: a part decided over runs is settled against the paper, and its case written") {
  const Decision refuted{Verdict::refuted, 0.1, 0.05, "interval above 0.1"};
  const Decision confirmed{Verdict::confirmed, 0.1, 0.05, "interval below 0.1"};
  const trained::AgainstPaper reduced{false, "minibatch 4000 (paper 20000)"}, paper{true, ""};
  // A run that did not finish leaves every decision undecided, a confirmation too.
  Decision d = trained::settle_over_runs(confirmed, "run 2 diverged: loss not finite", paper, "");
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK(d.why.rfind("a run did not finish (run 2 diverged: loss not finite); ", 0) == 0);
  // A refutation below the paper's settings is not one; at them it stands, unless the paper leaves the training open.
  d = trained::settle_over_runs(refuted, "", reduced, "");
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK(d.why.find("minibatch 4000 (paper 20000)") != std::string::npos);
  CHECK(trained::settle_over_runs(refuted, "", paper, "").verdict == Verdict::refuted);
  d = trained::settle_over_runs(refuted, "", paper, "the steps are not stated: ");
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK(d.why == "the steps are not stated: interval above 0.1");
  CHECK(trained::settle_over_runs(confirmed, "", reduced, "open: ").verdict == Verdict::confirmed);  // a confirmation stands

  CaseJson j = trained::over_runs_case(Case{{{"n", 10.0}}}, "a", {0.01, 0.02, 0.03}, 0.1, 0.01);
  trained::over_runs_verdict(j, confirmed, "loss_small");
  const nlohmann::ordered_json out = j.json();
  CHECK(out["part"] == "a");
  CHECK(out["per_run"].size() == 3);
  CHECK(out["quantities"].contains("over_runs"));
  CHECK(out["verdict"] == "confirmed");
  CHECK(out["basis"] == nlohmann::ordered_json::array({"loss_small"}));
  CaseJson k = trained::over_runs_case(Case{{{"n", 10.0}}}, "b", {0.5, 0.6}, 0.1, 0.01);
  trained::over_runs_verdict(k, trained::settle_over_runs(refuted, "", reduced, ""), "dist_small");
  CHECK(k.json()["verdict"] == "inconclusive");
  CHECK_FALSE(k.json().contains("basis"));

  // Two decisions as one (verdict/decision.hpp both): confirmed where both are, refuted where either is.
  CHECK(both(confirmed, confirmed, "w").verdict == Verdict::confirmed);
  CHECK(both(confirmed, refuted, "w").verdict == Verdict::refuted);
  CHECK(both(Decision{Verdict::inconclusive, 0, 0, ""}, confirmed, "w").verdict == Verdict::inconclusive);
  CHECK(both(refuted, confirmed, "w").why == "w");
}

TEST_CASE("trained kind: a comparison case follows the budget's rule, with the rule's per-trial field after the "
          "claim's own quantities") {
  ClaimContext ctx = context(1);
  const trained::TestLosses lo = losses({1.0, 1.1, 0.9, 1.05}), hi = losses({2.0, 2.2, 1.9, 2.1});
  const trained::AgainstPaper reduced{.paper = false, .differences = "10 steps (paper 20000)"};
  auto params = [] { return nlohmann::ordered_json{{"n", 8}}; };
  auto own = [](CaseJson& j) { j.quantity("E_y2", 3.0); };

  // Deciding budget, tailed sides: the heavy-tail rule.
  const std::vector<TailedLoss> tl(4, side(1.0, 0.01)), th(4, side(2.0, 0.01));
  nlohmann::ordered_json j = trained::compare(ctx, reduced, 0.01, {params(), "a", "low_below_high", "low below high"},
                                              {"low", lo, tl}, {"high", hi, th}, own)
                                 .take();
  CHECK(j["verdict"] == "confirmed");
  CHECK(j["part"] == "a");
  CHECK(j.contains("heavy_tail_rule_per_trial"));
  CHECK_FALSE(j.contains("paired_difference_per_trial"));
  CHECK(j["quantities"].contains("E_y2"));
  CHECK(j["quantities"].contains("low_mean_loss"));
  CHECK(j.contains("low_test_loss"));

  // Deciding budget with the two models' paired differences: the paired rule, every trial (here one trial is not shown).
  std::vector<Estimate> diffs(4, side(-1.0, 0.01).full);
  diffs[2] = side(0.5, 0.01).full;
  j = trained::compare(ctx, reduced, 0.01, {params(), "b", "low_below_high", "low below high", false, diffs},
                       {"low", lo}, {"high", hi})
          .take();
  CHECK(j["verdict"] == "inconclusive");
  CHECK(j.contains("paired_difference_per_trial"));
  CHECK(j["decisions"]["low_below_high"]["why"].get<std::string>().find("paired test prompts") != std::string::npos);

  // Standard budget: the t over the trials' mean losses; no per-trial field.
  ctx.budget = Budget::standard;
  j = trained::compare(ctx, reduced, 0.01, {params(), "a", "low_below_high", "low below high"}, {"low", lo}, {"high", hi})
          .take();
  CHECK(j["verdict"] == "confirmed");
  CHECK_FALSE(j.contains("heavy_tail_rule_per_trial"));
  CHECK_FALSE(j.contains("paired_difference_per_trial"));
  j = trained::compare(ctx, reduced, 0.01, {params(), "a", "high_below_low", "high below low"}, {"high", hi}, {"low", lo})
          .take();
  CHECK(j["verdict"] == "inconclusive");  // a reversal below the paper's settings does not refute
}

TEST_CASE("trained kind: at the deciding budget a trial counts only where it trained on both sides; none trained is "
          "not reproduced; the quick and standard budgets apply no gate") {
  ClaimContext ctx = context(1);
  const trained::TestLosses lo = losses({1.0, 1.1, 5.0, 1.05}), hi = losses({2.0, 2.2, 1.9, 9.0});
  // lo's trial 3 (5.0) and hi's trial 4 (9.0) are above the level 3: trials 1 and 2 count.
  const trained::TrainedGate glo = trained::trained_gate(lo, 3.0, "3"), ghi = trained::trained_gate(hi, 3.0, "3");
  CHECK(glo.trained == std::vector<bool>{true, true, false, true});
  CHECK(ghi.trained == std::vector<bool>{true, true, true, false});
  CHECK(glo.why_not[2] == "held-out loss 5 above 3");
  const trained::AgainstPaper paper{.paper = true, .differences = ""};
  auto params = [] { return nlohmann::ordered_json{{"n", 8}}; };
  // Paired differences: trials 3 and 4 reversed, but they did not train, so they count neither way.
  std::vector<Estimate> diffs(4, side(-1.0, 0.01).full);
  diffs[2] = diffs[3] = side(1.0, 0.01).full;
  nlohmann::ordered_json j = trained::compare(ctx, paper, 0.01, {params(), "a", "low_below_high", "low below high", false, diffs},
                                              {"low", lo, {}, &glo}, {"high", hi, {}, &ghi})
                                 .take();
  CHECK(j["verdict"] == "confirmed");
  const std::string why = j["decisions"]["low_below_high"]["why"].get<std::string>();
  CHECK(why.find("left out, having not trained") != std::string::npos);
  CHECK(why.find("trial 3 (low held-out loss 5 above 3)") != std::string::npos);
  CHECK(why.find("trial 4 (high held-out loss 9 above 3)") != std::string::npos);
  CHECK(j["trained_per_trial"]["low"]["trained"] == nlohmann::ordered_json({true, true, false, true}));
  // Without the gate the same differences are not shown in every trial.
  CHECK(trained::compare(ctx, paper, 0.01, {params(), "a", "x", "low below high", false, diffs}, {"low", lo}, {"high", hi})
            .take()["verdict"] == "inconclusive");
  // A reversal in every trained trial still refutes at the paper's settings (the gate removes, it does not excuse).
  std::vector<Estimate> rev(4, side(1.0, 0.01).full);
  CHECK(trained::compare(ctx, paper, 0.01, {params(), "a", "x", "low below high", false, rev}, {"low", lo, {}, &glo},
                         {"high", hi, {}, &ghi})
            .take()["verdict"] == "refuted");
  // No trial trained on both sides: not reproduced.
  const trained::TrainedGate none = trained::trained_gate(hi, 0.5, "0.5");
  j = trained::compare(ctx, paper, 0.01, {params(), "a", "x", "low below high", false, diffs}, {"low", lo, {}, &glo},
                       {"high", hi, {}, &none})
          .take();
  CHECK(j["verdict"] == "inconclusive");
  CHECK(j["decisions"]["x"]["why"].get<std::string>().find("not reproduced: no trial trained on both sides") != std::string::npos);
  // Standard budget: no gate (the t over every trial's mean loss), no field.
  ctx.budget = Budget::standard;
  j = trained::compare(ctx, paper, 0.01, {params(), "a", "x", "low below high"}, {"low", lo, {}, &glo}, {"high", hi, {}, &none})
          .take();
  CHECK_FALSE(j.contains("trained_per_trial"));
  CHECK(j["decisions"]["x"]["why"].get<std::string>().find("not reproduced") == std::string::npos);
}

TEST_CASE("trained error_rates block: the ledger's keys in order, the interval named from the split") {
  ClaimContext ctx;
  ctx.alpha = 0.01;
  const nlohmann::ordered_json b = trained::error_rates_block(ctx, 4, 0.0025, "by hand");
  std::vector<std::string> keys;
  for (auto it = b.begin(); it != b.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"family_alpha", "comparisons", "alpha_per_comparison", "interval", "tests"});
  CHECK(b["family_alpha"] == 0.01);
  CHECK(b["comparisons"] == 4);
  CHECK(b["interval"] == "99.75% Student-t");
  CHECK(b["tests"] == "by hand");
}

}  // namespace test_trained_kind
