#include "icl/verdict/conditional_equality.hpp"

#include "icl/montecarlo/montecarlo.hpp"

#include <algorithm>
#include <cmath>

namespace icl {

ConditionalEquality conditional_equality(const SamplingPlan& plan, double alpha_case, double stated,
                                         std::optional<double> exact, const Tolerance& tol, const Tolerance& exact_tol,
                                         const Transformer& features, const Transformer& attention,
                                         const GaussianIclModel& model, const Eigen::MatrixXd& Psi,
                                         const PromptShape& shape, std::uint64_t purpose, const EqualityLooks& looks) {
  auto make_worker = [&] { return QueryConditionalWorker(features, attention, model, Psi, shape, plan.seed, purpose); };
  ConditionalEquality c;
  c.o = sequential_equality(plan, alpha_case, stated, exact, tol, exact_tol, QueryConditionalWorker::dims, 1, looks.first,
                            make_worker, looks.min_samples, looks.until_exact_decided, looks.max_samples);
  c.variance_reduction = c.o.total.variance(1) > 0 ? c.o.total.variance(0) / c.o.total.variance(1) : 0.0;
  c.linearity_rms = std::sqrt(c.o.total.mean[2]);
  return c;
}

ConditionalBound conditional_bound(const SamplingPlan& plan, double alpha_case, BoundKind kind, double bound,
                                   const Tolerance& tol, const Transformer& features, const Transformer& attention,
                                   const GaussianIclModel& model, const Eigen::MatrixXd& Psi, const PromptShape& shape,
                                   std::uint64_t purpose, std::uint64_t first, std::uint64_t min_samples) {
  auto make_worker = [&] { return QueryConditionalWorker(features, attention, model, Psi, shape, plan.seed, purpose); };
  ConditionalBound c;
  c.o = sequential_bound(plan, alpha_case, kind, bound, tol, first, plan.samples, make_worker, min_samples,
                         QueryConditionalWorker::dims, 1);
  c.plain = make_estimate(c.o.total, 0, c.o.mc.confidence);
  c.linearity_rms = std::sqrt(c.o.total.mean[2]);
  return c;
}

ConditionalBoundWithExact conditional_lower_bound_with_exact(const SamplingPlan& plan, double alpha_case, double bound,
                                                             const Tolerance& bound_tol, double exact,
                                                             const Tolerance& exact_tol, const Transformer& features,
                                                             const Transformer& attention,
                                                             const GaussianIclModel& model, const Eigen::MatrixXd& Psi,
                                                             const PromptShape& shape, std::uint64_t purpose) {
  ConditionalBoundWithExact e;
  const auto looks = sequential_looks(2048, plan.samples);
  e.looks_planned = looks.size();
  const double alpha_look = alpha_case / 2.0 / static_cast<double>(looks.size());
  MonteCarlo mc(QueryConditionalWorker::dims, plan.threads);
  for (std::uint64_t N : looks) {
    mc.extend_to(N, [&] { return QueryConditionalWorker(features, attention, model, Psi, shape, plan.seed, purpose); });
    ++e.looks_used;
    const Accumulator tot = mc.total();
    e.mc = make_estimate(tot, 1, 1 - alpha_look);
    e.mc_plain = make_estimate(tot, 0, 1 - alpha_look);
    e.linearity_rms = std::sqrt(tot.mean[2]);
    e.mc_vs_stated = judge_mc_lower_bound(e.mc, bound, bound_tol, alpha_look);
    e.mc_vs_exact = judge_mc_equal(e.mc, exact, exact_tol, alpha_look);
    if (e.mc_vs_stated.verdict != Verdict::inconclusive && e.mc_vs_exact.verdict == Verdict::confirmed &&
        mc.samples() >= 8192)
      break;
  }
  return e;
}

void VarianceReductionRange::add(double vr) {
  min = std::min(min, vr);
  max = std::max(max, vr);
}

nlohmann::ordered_json VarianceReductionRange::to_json() const {
  return {{"method", "query integrated exactly given the context (conditional Monte Carlo)"},
          {"factor_min", min},
          {"factor_max", max}};
}

}  // namespace icl
