// Decisions over trained trials (lib/icl/verdict/over_trials.hpp): the comparisons and bounds the empirical claims
// judge trained models by.
#include "icl/montecarlo/statistics.hpp"
#include "icl/verdict/over_trials.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

namespace test_over_trials {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("over trials: the Welch / paired comparison decides, reverses and abstains as stated") {
  const std::vector<double> low = {1.0, 1.1, 0.9, 1.05}, high = {2.0, 2.1, 1.9, 2.05};
  CHECK(judge_less_over_trials(low, high, 0.01, false, false, "x").verdict == Verdict::confirmed);
  CHECK(judge_less_over_trials(low, high, 0.01, true, false, "x").verdict == Verdict::confirmed);
  // A significant reversal refutes only at the paper's settings.
  CHECK(judge_less_over_trials(high, low, 0.01, false, false, "x").verdict == Verdict::inconclusive);
  CHECK(judge_less_over_trials(high, low, 0.01, false, true, "x").verdict == Verdict::refuted);
  // Overlapping samples: too noisy to decide; the detectable difference is reported.
  const std::vector<double> a = {1.0, 2.0, 1.5}, b = {1.2, 2.1, 1.4};
  const auto d = judge_less_over_trials(a, b, 0.01, false, true, "x");
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK(d.detectable > 0.5);
  // Diverged trials (NaN) are dropped; fewer than two left is not decided.
  CHECK(judge_less_over_trials({1.0, NAN, NAN}, {2.0, 2.1, 2.2}, 0.01, false, true, "x").verdict == Verdict::inconclusive);
  // Losses that overflow the variance (a blown-up trial) are not decided, and the decision stays finite.
  const auto o = judge_less_over_trials({1.0, 2.0, 3.0}, {1e200, 2e200, 3e200}, 0.01, false, true, "x");
  CHECK(o.verdict == Verdict::inconclusive);
  CHECK(std::isfinite(o.detectable));
  // Welch against a constant (a bound): the one-sample t-test.
  CHECK(judge_less_over_trials({1.0, 1.01, 0.99}, {3.0, 3.0, 3.0}, 0.01, false, true, "x").verdict == Verdict::confirmed);
  // Welch t for (low, high) is 1 / sqrt(2 * 0.0072917 / 4) = 16.56 on 6 degrees of freedom: decided at alpha
  // where the critical t is below that, not where it is above.
  REQUIRE(icl::student_t_quantile(1 - 1e-3, 6) < 16.5);
  REQUIRE(icl::student_t_quantile(1 - 1e-9, 6) > 16.6);
  CHECK(judge_less_over_trials(low, high, 1e-3, false, true, "x").verdict == Verdict::confirmed);
  CHECK(judge_less_over_trials(low, high, 1e-9, false, true, "x").verdict == Verdict::inconclusive);
}

TEST_CASE("over trials: a bound over runs is the t interval against it, with the sign test beside") {
  CHECK(sign_test_p(5, 5) == doctest::Approx(1.0 / 32));
  CHECK(sign_test_p(0, 5) == doctest::Approx(1.0));
  CHECK(sign_test_p(4, 5) == doctest::Approx(6.0 / 32));
  CHECK_THROWS(sign_test_p(6, 5));

  const std::vector<double> small = {0.01, 0.02, 0.015, 0.012, 0.018};
  const Decision below = judge_bound_over_runs(small, 0.1, /*upper=*/true, 0.01, "final loss");
  CHECK(below.verdict == Verdict::confirmed);
  CHECK(below.why.find("runs with the comparison holding: 5/5 (sign test p = 0.0312)") != std::string::npos);
  // Every run above the bound: the interval lies above it.
  CHECK(judge_bound_over_runs({0.5, 0.6, 0.55, 0.52, 0.58}, 0.1, true, 0.01, "final loss").verdict == Verdict::refuted);
  // Straddling the bound with few runs: not decided.
  CHECK(judge_bound_over_runs({0.05, 0.15, 0.1}, 0.1, true, 0.01, "final loss").verdict == Verdict::inconclusive);
  // A lower bound: the same decision with the inequality turned.
  CHECK(judge_bound_over_runs({2.0, 2.1, 1.9, 2.05}, 1.0, /*upper=*/false, 0.01, "log ratio").verdict == Verdict::confirmed);
  // The interval is over_runs' at 1 - alpha.
  const Estimate e = over_runs(small, 0.99);
  CHECK(below.why.find(fmt::format("[{:.4g}, {:.4g}]", e.ci_low, e.ci_high)) != std::string::npos);
}

TEST_CASE("over trials: most runs, the exact binomial rule of acds.exp51 part e (docs/budgets.md)") {
  // Tails against hand-computed sums: P(X >= 17 | 20, 1/2) = (1140 + 190 + 20 + 1) / 2^20.
  CHECK(binomial_upper_tail(17, 20, 0.5) == doctest::Approx(1351.0 / 1048576).epsilon(1e-12));
  CHECK(binomial_upper_tail(0, 20, 0.3) == 1.0);
  CHECK(binomial_upper_tail(21, 20, 0.3) == 0.0);
  CHECK(binomial_upper_tail(5, 5, 0.5) == doctest::Approx(sign_test_p(5, 5)));
  CHECK_THROWS(binomial_upper_tail(1, 3, 1.5));
  // The thresholds docs/budgets.md states for 20 runs at alpha 0.01 / 6: confirmed from 17 runs with the property,
  // refuted from 12 without it (8 with it), undecided between.
  const double a = 0.01 / 6;
  CHECK(judge_most_runs(17, 20, 0.25, a, 15, "ordering").verdict == Verdict::confirmed);
  CHECK(judge_most_runs(16, 20, 0.25, a, 15, "ordering").verdict == Verdict::inconclusive);
  CHECK(judge_most_runs(9, 20, 0.25, a, 15, "ordering").verdict == Verdict::inconclusive);
  CHECK(judge_most_runs(8, 20, 0.25, a, 15, "ordering").verdict == Verdict::refuted);
  // The count in the words is of the runs that have the property (8 with it, 12 without).
  const Decision lacks = judge_most_runs(8, 20, 0.25, a, 15, "ordering");
  CHECK(lacks.why.rfind("ordering: too many runs lack it for a property training reliably gives; holds in 8 of 20 runs "
                        "(P(X >= 8) = ", 0) == 0);
  CHECK(lacks.why.find("P(12 or more without it) = ") != std::string::npos);
  // Too few runs decide nothing, whatever they show.
  const Decision few = judge_most_runs(5, 5, 0.25, a, 15, "ordering");
  CHECK(few.verdict == Verdict::inconclusive);
  CHECK(few.why.find("fewer than the 15 runs") != std::string::npos);
  CHECK_THROWS(judge_most_runs(6, 5, 0.25, a, 1, "ordering"));
}

namespace {
Estimate diff_estimate(double mean, double se, std::uint64_t n = 2000) {
  Estimate e;
  e.mean = mean, e.stderr_ = se, e.sd = se * std::sqrt(static_cast<double>(n)), e.samples = n, e.confidence = 0.99;
  e.ci_low = mean - 3 * se, e.ci_high = mean + 3 * se;
  return e;
}
}  // namespace

TEST_CASE("over trials: paired test prompts, every trial (the deciding budget's rule, docs/budgets.md)") {
  const double a = 0.01 / 9;  // t_(1 - a) on many prompts is about 3.06
  // One trial: shown below 0, above 0, or not decided.
  CHECK(paired_trial_sign(diff_estimate(-0.4, 0.1), a) == 1);   // t = -4
  CHECK(paired_trial_sign(diff_estimate(-0.2, 0.1), a) == 0);   // t = -2: not at this alpha
  CHECK(paired_trial_sign(diff_estimate(0.2, 0.1), a) == 0);
  CHECK(paired_trial_sign(diff_estimate(0.4, 0.1), a) == -1);
  Estimate nan = diff_estimate(NAN, NAN);
  CHECK(paired_trial_sign(nan, a) == 0);
  CHECK(paired_trial_sign(diff_estimate(-5, 0.1, 1), a) == 0);  // one prompt: no interval

  // Every trial shows it: confirmed, and the reason names the budget.
  const Decision all = judge_paired_every_trial({diff_estimate(-0.5, 0.1), diff_estimate(-0.4, 0.1), diff_estimate(-0.9, 0.2)},
                                                a, 2, false, "A below B", "at the deciding budget: 1500 steps (paper 20000)");
  CHECK(all.verdict == Verdict::confirmed);
  CHECK(all.why.find("at the deciding budget: 1500 steps (paper 20000)") != std::string::npos);
  CHECK(all.why.find("shown in 3 of 3 trials") != std::string::npos);
  CHECK(all.detectable > 0);
  // One trial short of it: inconclusive (not a majority rule).
  CHECK(judge_paired_every_trial({diff_estimate(-0.5, 0.1), diff_estimate(-0.2, 0.1), diff_estimate(-0.9, 0.2)}, a, 2,
                                 false, "A below B", "")
            .verdict == Verdict::inconclusive);
  // A diverged trial (NaN) is not left out: inconclusive.
  CHECK(judge_paired_every_trial({diff_estimate(-0.5, 0.1), nan, diff_estimate(-0.9, 0.2)}, a, 2, false, "A below B", "")
            .verdict == Verdict::inconclusive);
  // Fewer trials than the rule needs: inconclusive, whatever they show.
  const Decision one = judge_paired_every_trial({diff_estimate(-5, 0.1)}, a, 2, false, "A below B", "");
  CHECK(one.verdict == Verdict::inconclusive);
  CHECK(one.why.find("fewer than the 2") != std::string::npos);
  // The reverse in every trial: a refutation only where the rule may refute (the paper budget).
  const std::vector<Estimate> rev = {diff_estimate(0.5, 0.1), diff_estimate(0.6, 0.1)};
  const Decision reduced = judge_paired_every_trial(rev, a, 2, false, "A below B", "at the deciding budget");
  CHECK(reduced.verdict == Verdict::inconclusive);
  CHECK(reduced.why.find("not a refutation") != std::string::npos);
  CHECK(judge_paired_every_trial(rev, a, 2, true, "A below B", "").verdict == Verdict::refuted);
  // Mixed signs at the paper budget: neither.
  CHECK(judge_paired_every_trial({diff_estimate(0.5, 0.1), diff_estimate(-0.6, 0.1)}, a, 2, true, "A below B", "").verdict ==
        Verdict::inconclusive);
  CHECK_THROWS(judge_paired_every_trial(rev, 0, 2, true, "A below B", ""));
}

namespace {
TailedLoss side(double mean, double se, double capped_mean, double capped_se, double tail_share, double cap = 1600) {
  TailedLoss t;
  t.full = diff_estimate(mean, se);
  t.capped = diff_estimate(capped_mean, capped_se);
  t.cap = cap;
  t.tail_share = tail_share;
  return t;
}
}  // namespace

TEST_CASE("over trials: the heavy-tail rule (capped lower bound against a light-tailed upper bound, docs/budgets.md)") {
  const double a = 0.01 / 4;  // each bound at a/2: t quantile about 3.23
  // Lower side light (5 +- 0.3, 5% of its loss in the top 0.1%); the higher side's plain mean is useless (1e9 +- 1e9)
  // but its capped mean 20 +- 1 is shown above: the ordering holds in this trial.
  const TailedLoss lower = side(5, 0.3, 5, 0.3, 0.05), higher = side(1e9, 1e9, 20, 1, 0.99);
  CHECK(tailed_trial_sign(lower, higher, a) == 1);
  // The same numbers with the lower side heavy-tailed: its upper bound is not used, the trial is undecided.
  CHECK(tailed_trial_sign(side(5, 0.3, 5, 0.3, 0.6), higher, a) == 0);
  // Too close for the bounds (capped 7 +- 1 against 5 +- 0.3): undecided.
  CHECK(tailed_trial_sign(lower, side(7, 1, 7, 1, 0.05), a) == 0);
  // The reverse: the "lower" side's capped mean shown above a light "higher" side.
  CHECK(tailed_trial_sign(side(1e9, 1e9, 20, 1, 0.9), side(5, 0.3, 5, 0.3, 0.05), a) == -1);
  // A side with one prompt has no interval.
  TailedLoss single = higher;
  single.capped.samples = 1;
  CHECK(tailed_trial_sign(lower, single, a) == 0);

  // Over trials: every trial shows it.
  const Decision all = judge_tailed_every_trial({{lower, higher}, {lower, side(3e7, 3e7, 15, 1.2, 0.97)}}, a, 2, false,
                                                "short prompts above long", "at the deciding budget");
  CHECK(all.verdict == Verdict::confirmed);
  CHECK(all.why.find("shown in 2 of 2 trials") != std::string::npos);
  CHECK(all.why.find("heavy-tail rule") != std::string::npos);
  CHECK(all.why.find("at the deciding budget") != std::string::npos);
  // One trial with a heavy lower side: not every trial, inconclusive.
  CHECK(judge_tailed_every_trial({{lower, higher}, {side(5, 0.3, 5, 0.3, 0.7), higher}}, a, 2, false, "x", "").verdict ==
        Verdict::inconclusive);
  // A trial that did not finish (NaN) is not left out.
  CHECK(judge_tailed_every_trial({{lower, higher}, {side(NAN, NAN, NAN, NAN, 0), higher}}, a, 2, false, "x", "").verdict ==
        Verdict::inconclusive);
  // The reverse in every trial refutes only where the rule may.
  const std::vector<std::pair<TailedLoss, TailedLoss>> rev = {{higher, lower}, {higher, lower}};
  CHECK(judge_tailed_every_trial(rev, a, 2, false, "x", "").verdict == Verdict::inconclusive);
  CHECK(judge_tailed_every_trial(rev, a, 2, true, "x", "").verdict == Verdict::refuted);
  // Fewer trials than the rule needs.
  CHECK(judge_tailed_every_trial({{lower, higher}}, a, 2, false, "x", "").verdict == Verdict::inconclusive);
  CHECK_THROWS(judge_tailed_every_trial(rev, 1.5, 2, true, "x", ""));
}

}  // namespace test_over_trials
