// The sequential equality check (checks.hpp sequential_equality) on the conditional Monte Carlo estimator
// (montecarlo/conditional_loss.hpp): the loss of a stack of column-wise feature layers then masked attention, with the
// query integrated out exactly given the context, against a stated value and an exact one; with what the estimator
// reports beside it (its variance reduction, and its linearity check). The same estimator against a bound
// (bound_checks.hpp sequential_bound): conditional_bound.
#pragma once
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/verdict/bound_checks.hpp"
#include "icl/verdict/checks.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace icl {

// The looks of sequential_equality: from `first` prompts, doubling to the budget; a decision needs `min_samples`;
// with until_exact_decided a case whose Monte Carlo-vs-exact decision is still open runs on up to max_samples.
struct EqualityLooks {
  std::uint64_t first = 2048, min_samples = 16384;
  bool until_exact_decided = false;
  std::uint64_t max_samples = 0;
};

struct ConditionalEquality {
  EqualityOutcome o;
  double variance_reduction = 0;  // the plain squared error's variance over the conditional estimator's (same prompts)
  double linearity_rms = 0;       // rms of yhat - b^T u_q: 0 up to rounding, the linearity the estimator rests on
};

// Psi: query_moment_matrix(model, the query's features as `features` computes them); prompts from `model` in
// `shape`, stream (seed, purpose).
ConditionalEquality conditional_equality(const SamplingPlan& plan, double alpha_case, double stated,
                                         std::optional<double> exact, const Tolerance& tol, const Tolerance& exact_tol,
                                         const Transformer& features, const Transformer& attention,
                                         const GaussianIclModel& model, const Eigen::MatrixXd& Psi,
                                         const PromptShape& shape, std::uint64_t purpose, const EqualityLooks& looks);

// The conditional estimator against a bound (lower: mu >= bound, upper: mu <= bound, within tol): sequential_bound's
// looks from `first` prompts doubling to plan.samples, a decision needing `min_samples`; beside it the plain estimate
// on the same prompts (the squared error itself, at the conditional estimate's confidence) and the linearity check.
struct ConditionalBound {
  BoundOutcome o;
  Estimate plain;
  double linearity_rms = 0;  // rms of yhat - b^T u_q: 0 up to rounding
};
ConditionalBound conditional_bound(const SamplingPlan& plan, double alpha_case, BoundKind kind, double bound,
                                   const Tolerance& tol, const Transformer& features, const Transformer& attention,
                                   const GaussianIclModel& model, const Eigen::MatrixXd& Psi, const PromptShape& shape,
                                   std::uint64_t purpose, std::uint64_t first = 2048, std::uint64_t min_samples = 8192);

// The conditional estimator against a lower bound and, beside it, an exact value of the same loss: looks from 2048
// prompts doubling to plan.samples, each decision at alpha_case / 2 over the looks (judge_mc_lower_bound within
// bound_tol, judge_mc_equal within exact_tol); it stops at the first look, on at least 8192 prompts, where the bound is
// decided and the exact value confirmed. Beside the estimate: the plain one on the same prompts and the linearity check.
struct ConditionalBoundWithExact {
  Estimate mc, mc_plain;
  double linearity_rms = 0;  // rms of yhat - b^T u_q: 0 up to rounding
  Decision mc_vs_stated;     // the lower bound: mu >= bound (within bound_tol: a bound can be tight)
  Decision mc_vs_exact;      // equality with the exact value
  std::size_t looks_used = 0, looks_planned = 0;
};
ConditionalBoundWithExact conditional_lower_bound_with_exact(const SamplingPlan& plan, double alpha_case, double bound,
                                                             const Tolerance& bound_tol, double exact,
                                                             const Tolerance& exact_tol, const Transformer& features,
                                                             const Transformer& attention,
                                                             const GaussianIclModel& model, const Eigen::MatrixXd& Psi,
                                                             const PromptShape& shape, std::uint64_t purpose);

// The range of the variance reductions over a claim's cases, and the report's block for it.
struct VarianceReductionRange {
  double min = 1e300, max = 0;
  void add(double vr);
  // {"method": "query integrated exactly given the context (conditional Monte Carlo)", "factor_min", "factor_max"}.
  nlohmann::ordered_json to_json() const;
};

}  // namespace icl
