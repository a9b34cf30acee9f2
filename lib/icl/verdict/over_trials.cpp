#include "icl/verdict/over_trials.hpp"

#include "icl/montecarlo/statistics.hpp"

#include <boost/math/distributions/binomial.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace icl {

namespace {

struct Sample {
  double mean = 0, var = 0;
  int n = 0;
};

Sample describe(const std::vector<double>& x) {
  Sample s;
  for (double v : x) s.mean += v;
  s.n = static_cast<int>(x.size());
  if (s.n == 0) return s;
  s.mean /= s.n;
  for (double v : x) s.var += (v - s.mean) * (v - s.mean);
  s.var = s.n > 1 ? s.var / (s.n - 1) : NAN;
  return s;
}

}  // namespace

Decision judge_less_over_trials(const std::vector<double>& lower, const std::vector<double>& higher, double alpha, bool paired,
                    bool paper_settings, const std::string& what) {
  Decision d;
  d.verdict = Verdict::inconclusive;
  double diff = NAN, se = NAN, dof = NAN;
  std::string test;
  if (paired) {
    std::vector<double> delta;
    for (std::size_t i = 0; i < std::min(lower.size(), higher.size()); ++i)
      if (std::isfinite(lower[i]) && std::isfinite(higher[i])) delta.push_back(higher[i] - lower[i]);
    const Sample s = describe(delta);
    if (s.n < 2) {
      d.why = fmt::format("{}: fewer than 2 finished trials ({}), not decided", what, s.n);
      return d;
    }
    diff = s.mean;
    se = std::sqrt(s.var / s.n);
    dof = s.n - 1;
    test = fmt::format("paired t over {} trials", s.n);
  } else {
    std::vector<double> a, b;
    for (double v : lower)
      if (std::isfinite(v)) a.push_back(v);
    for (double v : higher)
      if (std::isfinite(v)) b.push_back(v);
    const Sample sa = describe(a), sb = describe(b);
    if (sa.n < 2 || sb.n < 2) {
      d.why = fmt::format("{}: fewer than 2 finished trials ({} and {}), not decided", what, sa.n, sb.n);
      return d;
    }
    diff = sb.mean - sa.mean;
    const double va = sa.var / sa.n, vb = sb.var / sb.n;
    se = std::sqrt(va + vb);
    dof = (va + vb) * (va + vb) / (va * va / (sa.n - 1) + vb * vb / (sb.n - 1));
    if (!std::isfinite(dof)) dof = sa.n + sb.n - 2;  // both spreads zero
    test = fmt::format("one-sided Welch t over {} and {} trials", sa.n, sb.n);
  }
  if (!std::isfinite(diff) || !std::isfinite(se)) {
    d.detectable = std::numeric_limits<double>::max();
    d.why = fmt::format("{}: not decided: the losses overflow double precision ({})", what, test);
    return d;
  }
  const double tq = student_t_quantile(1 - alpha, dof);
  const double tpow = student_t_quantile(0.8, dof);
  d.band = 0;
  d.detectable = (tq + tpow) * se;
  const double t = se > 0 ? diff / se : (diff > 0 ? INFINITY : diff < 0 ? -INFINITY : 0.0);
  const std::string stats = fmt::format("difference {:.4g} (se {:.2g}, t = {:.3g}, dof {:.3g}; critical t_(1-{:.2g}) = {:.3g}; "
                                        "detectable difference at power 0.8: {:.3g})",
                                        diff, se, t, dof, alpha, tq, d.detectable);
  if (t > tq) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("{}: shown ({}, {})", what, test, stats);
  } else if (t < -tq) {
    d.verdict = paper_settings ? Verdict::refuted : Verdict::inconclusive;
    d.why = fmt::format("{}: the opposite is significant ({}, {}){}", what, test, stats,
                        paper_settings ? "" : "; at a reduced budget this does not re-run the paper's experiment, so it is "
                                              "not a refutation");
  } else {
    d.why = fmt::format("{}: too noisy to decide ({}, {})", what, test, stats);
  }
  return d;
}

Decision judge_bound_over_runs(const std::vector<double>& v, double bound, bool upper, double alpha, const std::string& what) {
  const Estimate e = over_runs(v, 1 - alpha);
  Decision d = upper ? judge_mc_upper_bound(e, bound, Tolerance{}, alpha) : judge_mc_lower_bound(e, bound, Tolerance{}, alpha);
  int hits = 0;
  for (double x : v) hits += upper ? (x <= bound) : (x >= bound);
  d.why = fmt::format("{} over {} runs: mean {:.4g} (sd {:.3g}), {:.4g}% t interval [{:.4g}, {:.4g}] {} {:.4g} -> {}; runs "
                      "with the comparison holding: {}/{} (sign test p = {:.3g})",
                      what, v.size(), e.mean, e.sd, 100 * (1 - alpha), e.ci_low, e.ci_high, upper ? "vs upper bound" : "vs lower bound",
                      bound, to_string(d.verdict), hits, v.size(), sign_test_p(hits, static_cast<int>(v.size())));
  return d;
}

double sign_test_p(int successes, int trials) {
  if (trials < 0 || successes < 0 || successes > trials) throw std::invalid_argument("sign_test_p: 0 <= successes <= trials");
  // P(X >= k) = sum_{j >= k} C(n, j) / 2^n, with C computed in doubles (n is a number of runs).
  double p = 0, c = 1;  // c = C(n, j)
  for (int j = 0; j <= trials; ++j) {
    if (j >= successes) p += c;
    c = c * (trials - j) / (j + 1);
  }
  return p / std::ldexp(1.0, trials);
}

double binomial_upper_tail(int k, int n, double p) {
  if (n < 0 || !(p >= 0 && p <= 1)) throw std::invalid_argument("binomial_upper_tail: n >= 0, 0 <= p <= 1");
  if (k <= 0) return 1;
  if (k > n) return 0;
  return boost::math::cdf(boost::math::complement(boost::math::binomial_distribution<double>(n, p), k - 1));
}

Decision judge_most_runs(int holds, int runs, double fail_fraction, double alpha, int min_runs, const std::string& what) {
  if (holds < 0 || holds > runs) throw std::invalid_argument("judge_most_runs: 0 <= holds <= runs");
  Decision d;
  d.verdict = Verdict::inconclusive;
  if (runs < min_runs) {
    d.why = fmt::format("{}: holds in {} of {} runs; fewer than the {} runs the rule needs, not decided", what, holds,
                        runs, min_runs);
    return d;
  }
  const double p_most = binomial_upper_tail(holds, runs, 0.5);
  const double p_fails = binomial_upper_tail(runs - holds, runs, fail_fraction);
  const std::string stats = fmt::format("holds in {} of {} runs (P(X >= {}) = {:.3g} for a fraction 1/2; P({} or more without "
                                        "it) = {:.3g} for a failure fraction {:.3g}; alpha {:.3g})",
                                        holds, runs, holds, p_most, runs - holds, p_fails, fail_fraction, alpha);
  if (p_most <= alpha) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("{}: most runs have it; {}", what, stats);
  } else if (p_fails <= alpha) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("{}: too many runs lack it for a property training reliably gives; {}", what, stats);
  } else {
    d.why = fmt::format("{}: not decided; {}", what, stats);
  }
  return d;
}

int paired_trial_sign(const Estimate& e, double alpha) {
  if (!std::isfinite(e.mean) || !std::isfinite(e.stderr_) || e.samples < 2) return 0;
  const double q = student_t_quantile(1 - alpha, static_cast<double>(e.samples - 1));
  if (e.stderr_ == 0) return e.mean < 0 ? 1 : e.mean > 0 ? -1 : 0;
  const double t = e.mean / e.stderr_;
  return t < -q ? 1 : t > q ? -1 : 0;
}

namespace {

// One trial's outcome under a per-trial test: +1 shown, -1 the reverse shown, 0 neither; `finished` false for a
// trial without a trained model; `se` the standard error that sets the rule's detectable difference; `text` its line.
struct TrialOutcome {
  int sign = 0;
  bool finished = false;
  double se = 0;
  std::string text;
};

// The every-trial rule over the trials' outcomes (judge_paired_every_trial's, and judge_tailed_every_trial's).
Decision every_trial(const std::vector<TrialOutcome>& trials, double alpha, int min_trials, bool may_refute,
                     const std::string& what, const std::string& budget_note, const std::string& test,
                     const std::string& prompts) {
  Decision d;
  d.verdict = Verdict::inconclusive;
  const int n = static_cast<int>(trials.size());
  int shown = 0, reversed = 0, finished = 0;
  double worst_se = 0;
  std::string per;
  for (std::size_t k = 0; k < trials.size(); ++k) {
    const TrialOutcome& t = trials[k];
    shown += t.sign > 0, reversed += t.sign < 0, finished += t.finished;
    if (t.finished) worst_se = std::max(worst_se, t.se);
    per += fmt::format("{}trial {}: {}", per.empty() ? "" : "; ", k + 1, t.finished ? t.text : "not finished");
  }
  if (finished > 0) {
    const double dof = 1e6;  // many prompts: the t quantiles are the normal ones to the digits shown
    d.detectable = (student_t_quantile(1 - alpha, dof) + student_t_quantile(0.8, dof)) * worst_se;
  }
  const std::string stats = fmt::format("{}: {}; shown in {} of {} trials, reversed in {}", test, per, shown, n, reversed);
  if (n < min_trials) {
    d.why = fmt::format("{}: {} trials, fewer than the {} the rule needs; {}", what, n, min_trials, stats);
  } else if (shown == n) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("{}: shown in every trial on {}{}; {}", what, prompts,
                        budget_note.empty() ? "" : " (" + budget_note + ")", stats);
  } else if (reversed == n && may_refute) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("{}: the reverse in every trial on {}; {}", what, prompts, stats);
  } else if (reversed == n) {
    d.why = fmt::format("{}: the reverse in every trial, at a reduced budget, which does not re-run the paper's "
                        "experiment (not a refutation); {}", what, stats);
  } else {
    d.why = fmt::format("{}: not shown in every trial; {}", what, stats);
  }
  return d;
}

}  // namespace

Decision judge_paired_every_trial(const std::vector<Estimate>& differences, double alpha, int min_trials,
                                  bool may_refute, const std::string& what, const std::string& budget_note) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("judge_paired_every_trial: alpha in (0, 1)");
  std::vector<TrialOutcome> trials;
  for (const Estimate& e : differences) {
    TrialOutcome t;
    t.sign = paired_trial_sign(e, alpha);
    t.finished = std::isfinite(e.mean) && std::isfinite(e.stderr_);
    t.se = t.finished ? e.stderr_ : 0;
    if (t.finished)
      t.text = fmt::format("{:.4g} (se {:.2g}, {} prompts{})", e.mean, e.stderr_, e.samples,
                           t.sign > 0 ? ", below 0" : t.sign < 0 ? ", above 0" : ", not decided");
    trials.push_back(std::move(t));
  }
  return every_trial(trials, alpha, min_trials, may_refute, what, budget_note,
                     fmt::format("mean paired difference (lower - higher) per trial, one-sided t at {:.3g} each", alpha),
                     "paired test prompts");
}

namespace {

// "worse's expected loss exceeds better's", shown by worse's capped lower bound above better's upper bound, better's
// tail light enough for its interval.
bool shows_above(const TailedLoss& worse, const TailedLoss& better, double alpha) {
  const double lo = one_sided_lower(worse.capped, alpha / 2), hi = one_sided_upper(better.full, alpha / 2);
  return std::isfinite(lo) && std::isfinite(hi) && better.tail_share < kTailShareLimit && lo > hi;
}

}  // namespace

int tailed_trial_sign(const TailedLoss& lower, const TailedLoss& higher, double alpha) {
  if (shows_above(higher, lower, alpha)) return 1;
  if (shows_above(lower, higher, alpha)) return -1;
  return 0;
}

Decision judge_tailed_every_trial(const std::vector<std::pair<TailedLoss, TailedLoss>>& trials, double alpha,
                                  int min_trials, bool may_refute, const std::string& what,
                                  const std::string& budget_note) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("judge_tailed_every_trial: alpha in (0, 1)");
  std::vector<TrialOutcome> out;
  for (const auto& [lower, higher] : trials) {
    TrialOutcome t;
    t.finished = std::isfinite(lower.full.mean) && std::isfinite(higher.capped.mean);
    t.sign = t.finished ? tailed_trial_sign(lower, higher, alpha) : 0;
    t.se = t.finished ? std::max(lower.full.stderr_, higher.capped.stderr_) : 0;
    if (t.finished)
      t.text = fmt::format("lower {:.4g} (upper bound {:.4g}; its largest {:.2g}% of prompts carry {:.0f}% of its loss), "
                           "higher's mean of min(loss, {:.4g}) {:.4g} (lower bound {:.4g}){}",
                           lower.full.mean, one_sided_upper(lower.full, alpha / 2), 100 * lower.tail_fraction,
                           100 * lower.tail_share, higher.cap, higher.capped.mean, one_sided_lower(higher.capped, alpha / 2),
                           t.sign > 0 ? ", shown" : t.sign < 0 ? ", reversed" : ", not decided");
    out.push_back(std::move(t));
  }
  return every_trial(out, alpha, min_trials, may_refute, what, budget_note,
                     fmt::format("the heavy-tail rule per trial: the higher side's capped mean's lower bound against the lower side's upper "
                                 "bound, one-sided t at {:.3g} each (a side whose largest prompts carry {:.0f}% or more "
                                 "of its loss gives no upper bound)",
                                 alpha / 2, 100 * kTailShareLimit),
                     "the test prompts (capped means, heavy-tail rule)");
}

}  // namespace icl
