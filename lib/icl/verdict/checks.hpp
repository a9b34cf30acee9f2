// The common shape of a Monte Carlo equality check: run looks of doubling size until the estimate
// decides against the stated value (and against our exact value, where there is one) or the budget
// is spent; every decision is kept (report/quantities.hpp writes them with the error rates behind them).
#pragma once
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/verdict/decision.hpp"

#include <fmt/format.h>
#include <optional>

namespace icl {

struct EqualityOutcome {
  Estimate mc;
  Decision mc_vs_stated;
  std::optional<Decision> exact_vs_stated, mc_vs_exact;
  Decision verdict;
  double alpha_look = 0;
  std::size_t looks_used = 0, looks_planned = 0;
  Accumulator total;  // every component of the last look (e.g. a plain estimator beside a conditional one)
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
  o.verdict = combine_equality(o.exact_vs_stated, o.mc_vs_stated, o.mc_vs_exact);
  return o;
}

}  // namespace icl
