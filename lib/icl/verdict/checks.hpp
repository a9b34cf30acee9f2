// The common shape of a Monte Carlo equality check: run looks of doubling size until the estimate
// decides against the stated value (and against our exact value, where there is one) or the budget
// is spent; every decision is kept (verdict/quantities.hpp writes them with the error rates behind them).
#pragma once
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/verdict/decision.hpp"

#include <fmt/format.h>
#include <optional>
#include <vector>

namespace icl {

struct EqualityOutcome {
  Estimate mc;
  Decision mc_vs_stated;
  std::optional<Decision> exact_vs_stated, mc_vs_exact;
  Decision verdict;
  double alpha_look = 0;
  std::size_t looks_used = 0, looks_planned = 0;
  Accumulator total;  // every component of the last look (e.g. a plain estimator beside a conditional one)
  // exact_first_check, a case Monte Carlo left undecided (no exact value): about how many prompts would decide it
  // (samples_to_decide; unset where none would, or where the case is decided).
  std::optional<std::uint64_t> samples_to_decide;
};

// make_worker(): a per-thread callable worker(prompt_index, out) that writes out[component].
// Stops at the first look where the estimate decides against the stated value, does not contradict
// the exact value, and has at least `min_samples` prompts (so the agreement of Monte Carlo with the
// exact value rests on a real sample); otherwise runs to the budget. With `until_exact_decided`, it also
// runs on until the Monte Carlo-vs-exact decision is decisive (or the budget is spent); `max_samples`
// (> ctx.samples) moves budget to the cases that need it: looks go on doubling past ctx.samples up to
// max_samples, but only while the Monte Carlo-vs-exact decision is still open. Every planned look,
// including those past ctx.samples, shares alpha_case (Bonferroni), so the error rates hold whether or
// not a case runs on.
template <class MakeWorker>
EqualityOutcome sequential_equality(const SamplingPlan& ctx, double alpha_case, double stated,
                                    std::optional<double> exact, const Tolerance& tol, const Tolerance& exact_tol,
                                    int dims, int component, std::uint64_t first, MakeWorker&& make_worker,
                                    std::uint64_t min_samples = 16384, bool until_exact_decided = false,
                                    std::uint64_t max_samples = 0) {
  EqualityOutcome o;
  auto looks = sequential_looks(first, ctx.samples);
  if (until_exact_decided && exact && max_samples > ctx.samples && ctx.samples > 0) {
    for (std::uint64_t n = 2 * ctx.samples; n < max_samples; n *= 2) looks.push_back(n);
    looks.push_back(max_samples);
  }
  o.looks_planned = looks.size();
  o.alpha_look = alpha_case / static_cast<double>(looks.size());
  if (exact) o.exact_vs_stated = judge_exact_equal(*exact, stated, exact_tol);
  MonteCarlo mc(dims, ctx.threads);
  for (std::uint64_t n : looks) {
    mc.extend_to(n, make_worker);
    ++o.looks_used;
    o.mc = make_estimate(mc.total(), component, 1 - o.alpha_look);
    o.mc_vs_stated = judge_mc_equal(o.mc, stated, tol, o.alpha_look);
    if (exact) o.mc_vs_exact = judge_mc_equal(o.mc, *exact, tol, o.alpha_look);
    const bool decided = o.mc_vs_stated.verdict != Verdict::inconclusive &&
                         (!exact || o.mc_vs_exact->verdict != Verdict::refuted) && mc.samples() >= min_samples &&
                         (!until_exact_decided || !exact || o.mc_vs_exact->verdict != Verdict::inconclusive);
    if (decided) break;
    // Past the ordinary budget only the open Monte Carlo-vs-exact decision keeps a case running.
    if (mc.samples() >= ctx.samples && (!exact || o.mc_vs_exact->verdict != Verdict::inconclusive)) break;
  }
  o.total = mc.total();
  o.verdict = combine_exact_first(o.exact_vs_stated, o.mc_vs_stated, o.mc_vs_exact);  // decision.hpp rule 4
  return o;
}

// The one decision rule for a stated value (decision.hpp rule 4), equality or bound alike.
//   judge(estimate, alpha) -> Decision: Monte Carlo against the stated value (judge_mc_equal, judge_mc_upper_bound,
//   ...); `edges`: what the interval must do for that decision to be decided (DecideAt: samples_to_decide).
// With an exact value (exact_vs_stated given, `exact` its value): the exact value decides; Monte Carlo through the
// forward pass runs looks of doubling size from `first` up to ctx.samples, stopping at the first look (of at least
// `min_samples` prompts) that places the exact value within the band, or that excludes it (an internal inconsistency:
// the case is inconclusive, and says so). Without one: the same looks until Monte Carlo against the stated value is
// decided (at least `min_samples` prompts) or ctx.samples, the cap, is spent; an undecided case gets
// samples_to_decide. Every planned look shares alpha_case (Bonferroni over the looks), so the error rates hold
// wherever a case stops.
template <class Judge, class MakeWorker>
EqualityOutcome exact_first_check(const SamplingPlan& ctx, double alpha_case, std::optional<Decision> exact_vs_stated,
                                  std::optional<double> exact, Judge&& judge, const DecideAt& edges,
                                  const Tolerance& tol, int dims, int component, std::uint64_t first,
                                  MakeWorker&& make_worker, std::uint64_t min_samples = 16384) {
  EqualityOutcome o;
  const auto looks = sequential_looks(first, ctx.samples);
  o.looks_planned = looks.size();
  o.alpha_look = alpha_case / static_cast<double>(std::max<std::size_t>(looks.size(), 1));
  o.exact_vs_stated = exact_vs_stated;
  MonteCarlo mc(dims, ctx.threads);
  for (std::uint64_t n : looks) {
    mc.extend_to(n, make_worker);
    ++o.looks_used;
    o.mc = make_estimate(mc.total(), component, 1 - o.alpha_look);
    o.mc_vs_stated = judge(o.mc, o.alpha_look);
    if (exact) o.mc_vs_exact = judge_mc_equal(o.mc, *exact, tol, o.alpha_look);
    if (exact && o.mc_vs_exact->verdict == Verdict::refuted) break;  // an internal inconsistency: no more is needed
    const bool enough = mc.samples() >= min_samples;
    if (exact && enough && o.mc_vs_exact->verdict == Verdict::confirmed) break;
    if (!exact && enough && o.mc_vs_stated.verdict != Verdict::inconclusive) break;
  }
  o.total = mc.total();
  o.verdict = combine_exact_first(o.exact_vs_stated, o.mc_vs_stated, o.mc_vs_exact);
  if (!exact && o.verdict.verdict == Verdict::inconclusive) o.samples_to_decide = edges.samples(o.mc, alpha_case, first);
  return o;
}

}  // namespace icl
