// Verdicts and the decisions behind them.
//
// Error rates (after TensorFlow Probability's statistical_testing): a claim gets a family-wise
// false-fail budget alpha (probability of refuting a true claim), split over its cases (Bonferroni)
// and over the sequential looks within a case. An equality with target s and tolerance band
// |mu - s| <= tol is
//   refuted    when the (1 - alpha') interval lies wholly outside the band,
//   confirmed  when it lies wholly inside the band (an equivalence test: a discrepancy larger than
//              the band passes with probability <= alpha'/2, the false-pass rate),
//   inconclusive otherwise (too noisy to decide).
// The smallest discrepancy detected with power 1 - beta is tol + (z_{1-alpha'/2} + z_{1-beta}) * se.
//
// The reporting rule: a report claims only what its decisions show.
//  1. A case is confirmed or refuted only on decisions that reached that verdict; it names them in its
//     `basis` (CaseJson checks this). Where Monte Carlo cannot check the exact side (combine_equality, kept for
//     the Gram kind and two bounds; every equality with an exact value and a Monte Carlo check of it follows
//     rule 4) the case is refuted when the exact value differs from the stated one beyond the
//     floating-point tolerance AND the Monte Carlo interval excludes the stated value's band; confirmed
//     when the exact value equals it AND the Monte Carlo interval lies within the band; else inconclusive.
//  2. Monte Carlo against our own exact value is a consistency decision. Excluded (refuted): the case is
//     inconclusive, flagged INTERNAL INCONSISTENCY. Not decided (inconclusive): the verdict stands on the
//     two decisions of rule 1, and the report says the interval "does not exclude" the exact value; only a
//     confirmed decision is written as "within +/- band of".
//  3. Words: a report never says that two numbers "agree"; it says "within +/- band" (a confirmed
//     equality), "does not exclude" / "too noisy to decide" (inconclusive), "excludes" (refuted), or gives
//     the difference ("equal to 1e-12"). Counts over cases come from the decisions themselves
//     (verdict/quantities.hpp: tally_decisions).
//  4. The one rule for an equality, in the catalogue (sequential_equality, the log-log slope kind) and in a
//     claim of one's own alike. Where the library has the quantity exactly, the exact value decides
//     (combine_exact_first): confirmed when it equals (or satisfies) the stated value within the floating-point
//     tolerance, refuted otherwise; Monte Carlo
//     through the forward pass then checks the exact engine, and excluding the exact value leaves the case
//     inconclusive, flagged INTERNAL INCONSISTENCY (never a verdict on the formula). Without an exact value, Monte
//     Carlo decides alone, in sequential looks up to a cap; an undecided case reports the sample count that would
//     decide it (samples_to_decide).
//  5. Monte Carlo never confirms what its interval excludes. An exact formula (judge_mc_equal) is refuted by an
//     interval that excludes the stated value, whatever the band; it is confirmed only by an interval that contains
//     the stated value and is narrower than the band, and the decision says the smallest discrepancy it could have
//     detected. Only a statement that is itself approximate keeps the band as part of the statement (judge_mc_near:
//     a limit read at a finite size, and an asymptotic log-log exponent).
#pragma once
#include "icl/montecarlo/statistics.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icl {

enum class Verdict { confirmed, refuted, inconclusive };
const char* to_string(Verdict v);
Verdict verdict_from_string(const std::string& s);  // throws on unknown

struct Tolerance {
  double rel = 0.0;
  double abs = 0.0;
  double band(double target) const;
};
// "0.02 relative", "max(0.05 relative, 0.05 absolute)".
std::string tolerance_text(const Tolerance& tol);

struct Decision {
  Verdict verdict = Verdict::inconclusive;
  double band = 0;        // allowed |mean - target|
  double detectable = 0;  // smallest |discrepancy| detected with the stated power
  std::string why;
  std::vector<std::string> basis;  // for a combined decision: the named decisions it rests on

  Decision() = default;
  Decision(Verdict v, double band_, double detectable_, std::string why_, std::vector<std::string> basis_ = {})
      : verdict(v), band(band_), detectable(detectable_), why(std::move(why_)), basis(std::move(basis_)) {}
};

// An exact formula mu == target, judged from a Monte Carlo estimate (rule 5 above): refuted when the (1 - alpha)
// interval excludes the target itself (its words give the discrepancy it shows); confirmed when the interval contains
// the target and lies within target +/- band (tol: how narrow the interval must be, not a slack in the formula);
// inconclusive otherwise. `detectable`: the smallest |discrepancy| refuted with probability 1 - beta, (z_{1-alpha/2} +
// z_{1-beta}) se. With a zero band nothing is confirmed.
Decision judge_mc_equal(const Estimate& e, double target, const Tolerance& tol, double alpha,
                        double beta = 0.05);
// A statement that is itself approximate ("about", a limit read at finite size, "within 0.03 of the identity"): the
// band is part of the statement, mu in [target - band, target + band]: refuted when the interval lies wholly outside
// the band, confirmed when wholly inside, else inconclusive; detectable band + (z_{1-alpha/2} + z_{1-beta}) se.
Decision judge_mc_near(const Estimate& e, double target, const Tolerance& tol, double alpha, double beta = 0.05);
// Upper bound mu <= bound (within tol) / lower bound mu >= bound.
Decision judge_mc_upper_bound(const Estimate& e, double bound, const Tolerance& tol, double alpha,
                              double beta = 0.05);
Decision judge_mc_lower_bound(const Estimate& e, double bound, const Tolerance& tol, double alpha,
                              double beta = 0.05);
// A decrease from a to b, two independent Monte Carlo estimates: the difference a.mean - b.mean with standard error
// hypot(a.stderr_, b.stderr_) and its two-sided interval at level 1 - alpha (half-width z se, z = normal_quantile(1 -
// alpha / 2)); confirmed when the interval lies above 0 (b significantly below a), refuted when it lies below 0 (b
// significantly above a), else inconclusive; detectable (z + z_0.95) se, no band. `why`: the difference and the
// half-width, "{:.4g} +/- {:.2g}" (the caller says what was compared).
Decision judge_mc_decrease(const Estimate& a, const Estimate& b, double alpha);
// Exact values: equal within a floating-point tolerance.
Decision judge_exact_equal(double exact, double target, const Tolerance& tol);

// Rule 1 above, which every catalogue equality followed before rule 4 (sequential_equality now combines by rule 4);
// it stays where a claim's Monte Carlo has nothing to check the exact side against (the Gram kind, whose exact
// decision is the claim's own; a bound whose Monte Carlo is judged against the bound, not against the exact loss,
// decided by exact and Monte Carlo alike). Case verdict for a stated value with our exact value (if any) and our Monte
// Carlo estimate: refuted when the exact value and the Monte Carlo interval both exclude
// the stated value; confirmed when both place it within the tolerance; inconclusive otherwise (Monte
// Carlo too noisy, or Monte Carlo excluding our exact value, flagged as an internal inconsistency).
// The decision's `basis` names "exact_vs_stated" and "mc_vs_stated" (decisions_json's names).
Decision combine_equality(const std::optional<Decision>& exact_vs_stated, const Decision& mc_vs_stated,
                          const std::optional<Decision>& mc_vs_exact);

// Rule 4 above: the exact value decides where there is one (basis "exact_vs_stated"), Monte Carlo excluding it is
// an internal inconsistency (inconclusive, no basis); without one, mc_vs_stated decides (basis "mc_vs_stated").
Decision combine_exact_first(const std::optional<Decision>& exact_vs_stated, const Decision& mc_vs_stated,
                             const std::optional<Decision>& mc_vs_exact);

// A decision that may not stand: where `inconsistent` (a check of the project's own engine or search failed), d made
// inconclusive (rules 2 and 4: never a verdict on the claim), "; INTERNAL INCONSISTENCY: <what>" after its words.
Decision unless_inconsistent(Decision d, bool inconsistent, const std::string& what);

// Two verdicts as one: confirmed where both are, refuted where either is, else inconclusive (so a fold of both over
// several verdicts gives refuted over inconclusive over confirmed).
Verdict both(Verdict first, Verdict second);
// Two decisions as one, by the verdicts' rule above; `first`'s band and numbers, with the words `why`.
Decision both(const Decision& first, const Decision& second, std::string why);

// About how many prompts would decide an undecided Monte Carlo decision, extrapolated from the interval's half-width
// at e.samples (half-width ~ 1/sqrt(samples), the mean and standard deviation held where they are): the interval
// decides once it no longer contains any of `edges` (an equality: target -/+ band; a bound: bound +/- band). The
// confidence is that of the sequential plan that would reach the count: alpha_case split over the looks
// sequential_looks(first, count), so more looks, a slightly wider interval. Rounded up to a multiple of 256 (a Monte
// Carlo chunk). nullopt when the mean sits on an edge (no sample size decides it) or the count passes 2^62.
std::optional<std::uint64_t> samples_to_decide(const Estimate& e, const std::vector<double>& edges, double alpha_case,
                                               std::uint64_t first);

// The same for an exact formula judged by judge_mc_equal: with the mean at distance delta from the target, the
// interval decides at half-width max(delta, band - delta) (it excludes the target, or it fits in the band around it).
// nullopt where no sample count decides it or the count passes 2^62.
std::optional<std::uint64_t> samples_to_decide_equality(const Estimate& e, double target, double band, double alpha_case,
                                                        std::uint64_t first);
// What an undecided Monte Carlo decision waits for: the edges its interval must leave (a bound: samples_to_decide), or
// an exact formula's target and band (samples_to_decide_equality); neither: nothing to extrapolate.
struct DecideAt {
  std::vector<double> edges;
  std::optional<std::pair<double, double>> formula;  // (target, band)
  static DecideAt exact_formula(double target, double band) { return DecideAt{{}, std::pair{target, band}}; }
  std::optional<std::uint64_t> samples(const Estimate& e, double alpha_case, std::uint64_t first) const {
    return formula ? samples_to_decide_equality(e, formula->first, formula->second, alpha_case, first)
                   : samples_to_decide(e, edges, alpha_case, first);
  }
};

// Sequential sample sizes: first, 2*first, 4*first, ... up to budget (inclusive).
std::vector<std::uint64_t> sequential_looks(std::uint64_t first, std::uint64_t budget);

}  // namespace icl
