// The common shape of a Monte Carlo bound check: run looks of doubling size until the estimate decides
// against the bound (lower: mu >= bound, upper: mu <= bound, within a tolerance band) or the budget is
// spent; every look at level alpha / looks (Bonferroni), so the false-fail rate of the case is alpha.
#pragma once
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/verdict/decision.hpp"

#include <algorithm>

namespace icl {

struct BoundOutcome {
  Estimate mc;
  Accumulator total;  // every component of the last look
  Decision decision;
  double alpha_look = 0;
  std::size_t looks_used = 0, looks_planned = 0;
};

enum class BoundKind { lower, upper };

template <class MakeWorker>
BoundOutcome sequential_bound(const SamplingPlan& ctx, double alpha_case, BoundKind kind, double bound,
                              const Tolerance& tol, std::uint64_t first, std::uint64_t budget, MakeWorker&& make_worker,
                              std::uint64_t min_samples = 4096, int dims = 1, int component = 0) {
  BoundOutcome o;
  const auto looks = sequential_looks(first, budget);
  o.looks_planned = looks.size();
  o.alpha_look = alpha_case / static_cast<double>(looks.size());
  MonteCarlo mc(dims, ctx.threads);
  for (std::uint64_t n : looks) {
    mc.extend_to(n, make_worker);
    ++o.looks_used;
    o.total = mc.total();
    o.mc = make_estimate(o.total, component, 1 - o.alpha_look);
    o.decision = kind == BoundKind::lower ? judge_mc_lower_bound(o.mc, bound, tol, o.alpha_look)
                                          : judge_mc_upper_bound(o.mc, bound, tol, o.alpha_look);
    if (o.decision.verdict != Verdict::inconclusive && mc.samples() >= min_samples) break;
  }
  return o;
}

}  // namespace icl
