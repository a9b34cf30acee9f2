// Decisions on one number per trained trial (run): what the empirical claims judge a trained model by. A claim
// trains several independent trials of each model; a comparison or a bound is then judged over the trials, never
// over the Monte Carlo of one trial, at the alpha the claim's ledger gives it (claim/claim_run.hpp).
//
//   judge_less_over_trials   "mean(lower) < mean(higher)": a one-sided Welch t over two sets of trials, or a paired t
//                            when the i-th entries of both come from the same trained model. NaN entries (diverged
//                            trials) are dropped (pairwise when paired); fewer than 2 left: not decided. Confirmed
//                            when t > t_(1-alpha); the opposite significant is a refutation only at the paper's
//                            settings (paper_settings), else inconclusive ("a reduced budget does not re-run the
//                            paper's experiment"). detectable: the difference the test finds with power 0.8.
//   judge_bound_over_runs    the per-run values against a bound: a one-sample Student t interval over the runs at
//                            confidence 1 - alpha (montecarlo/statistics.hpp over_runs) judged as a Monte Carlo
//                            estimate against an upper or lower bound (decision.hpp), with the count of runs where
//                            the comparison holds and the sign test's p-value beside it in the evidence.
//   sign_test_p              one-sided sign test: P(X >= successes), X ~ Binomial(trials, 1/2).
//   judge_most_runs          "training gives the property": `holds` of `runs` runs have it. Exact one-sided binomial
//                            tests (Boost.Math) at alpha: confirmed where that many is unlikely for a fraction of 1/2
//                            (P(X >= holds) <= alpha, X ~ Binomial(runs, 1/2)); refuted where that many runs without
//                            it are unlikely for a failure fraction of `fail_fraction` (P(Y >= runs - holds) <= alpha,
//                            Y ~ Binomial(runs, fail_fraction)): the property is not what training reliably gives;
//                            else inconclusive. Fewer than `min_runs` runs: inconclusive.
//   judge_paired_every_trial "lower < higher" decided on paired test prompts: per trial, the Monte Carlo estimate of
//                            the mean over the SAME test prompts of (lower's loss - higher's loss) (two models of one
//                            trial, or one model at two numbers of examples) is tested one-sided at alpha (Student t on
//                            the per-prompt differences); over the trials, confirmed only when EVERY trial shows it
//                            (an intersection-union test: the rule's false-confirm rate is at most alpha, with no split
//                            over the trials) and at least `min_trials` trials finished, none left out; the reverse in
//                            every trial is a refutation only where `may_refute` (the paper budget), else
//                            inconclusive; anything else inconclusive. A confirmed reason names `budget_note` (the
//                            budget it holds at).
//   judge_tailed_every_trial "lower < higher" in expectation where the losses may be heavy-tailed (docs/budgets.md,
//                            "Heavy tails"): per trial, higher's mean of min(loss, cap) has a one-sided lower bound
//                            (a lower bound on its expected loss for any cap, and a bounded variable, so its interval
//                            holds however heavy the tail) and lower's mean its one-sided upper bound, each at alpha/2;
//                            the trial shows the ordering when the first exceeds the second and the largest
//                            tail_fraction of lower's prompts carry less than kTailShareLimit of its summed loss (a
//                            heavier tail gives no upper bound: undecided). The reverse is the same test with the
//                            sides exchanged. Over the trials: every trial, as judge_paired_every_trial.
#pragma once
#include "icl/verdict/decision.hpp"

#include <string>
#include <utility>
#include <vector>

namespace icl {

Decision judge_less_over_trials(const std::vector<double>& lower, const std::vector<double>& higher, double alpha,
                                bool paired, bool paper_settings, const std::string& what);
Decision judge_bound_over_runs(const std::vector<double>& values, double bound, bool upper, double alpha,
                               const std::string& what);
double sign_test_p(int successes, int trials);
// P(X >= k), X ~ Binomial(n, p) (1 for k <= 0).
double binomial_upper_tail(int k, int n, double p);
Decision judge_most_runs(int holds, int runs, double fail_fraction, double alpha, int min_runs, const std::string& what);
// One trial's paired test: +1 where the difference is shown below 0 at one-sided level alpha, -1 where shown above 0,
// 0 where neither or the estimate is not finite (or has fewer than 2 prompts).
int paired_trial_sign(const Estimate& difference, double alpha);
Decision judge_paired_every_trial(const std::vector<Estimate>& differences, double alpha, int min_trials,
                                  bool may_refute, const std::string& what, const std::string& budget_note);

// Above this share of its loss in its largest 0.1% of prompts, a side's Student-t upper bound is not used.
inline constexpr double kTailShareLimit = 0.5;
// One trial: +1 where higher is shown above lower (above), -1 the reverse, 0 neither.
// The sides are TailedLoss (montecarlo/statistics.hpp), as learn::tailed_loss gives them.
int tailed_trial_sign(const TailedLoss& lower, const TailedLoss& higher, double alpha);
// trials[k] = (lower side, higher side) of trial k.
Decision judge_tailed_every_trial(const std::vector<std::pair<TailedLoss, TailedLoss>>& trials, double alpha,
                                  int min_trials, bool may_refute, const std::string& what,
                                  const std::string& budget_note);

}  // namespace icl
