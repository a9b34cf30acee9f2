// Statistics of a measurement made of several numbers, for the decisions that judge it (decision.hpp): a line fitted
// through points by weighted least squares (a rate read off log-log points, its slope an Estimate to judge like any
// Monte Carlo mean), and, over replications of a protocol, the summary of a statistic's draws and the exact binomial
// interval of a proportion counted over them (a Monte Carlo p-value with its uncertainty). The estimates of one
// Monte Carlo mean are montecarlo/statistics.hpp.
#pragma once
#include "icl/montecarlo/statistics.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace icl {

// The line y = intercept + slope x through the points (x_i, y_i) by weighted least squares, weights 1/var_i (var
// empty: unweighted, every weight 1). With sxx, sxy, syy the weighted sums of products of deviations from the
// weighted means: slope = sxy / sxx; r2 = sxy^2 / (sxx syy), the weighted coefficient of determination (1 when
// the y are all equal); slope_se = sqrt(1 / sxx), the slope's standard error when var holds the variances of the y_i
// (0 when var is empty: no variances, no error). Throws std::invalid_argument where the lengths differ.
struct LineFit {
  double slope = 0, intercept = 0, r2 = 0, slope_se = 0;
};
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& var = {});

// A fitted slope as an Estimate: mean = slope, stderr_ = slope_se, the two-sided normal interval at level 1 - alpha
// (slope -/+ z slope_se, z = normal_quantile(1 - alpha / 2)), confidence 1 - alpha, `samples` as given (the prompts
// behind the points); sd 0 (none).
Estimate slope_estimate(const LineFit& f, std::uint64_t samples, double alpha);

// The ordinary least-squares slope of y on x with its two-sided Student-t interval at level 1 - alpha from the
// residuals (k - 2 degrees of freedom, k the points; infinite half-width with k <= 2): slope = sxy / sxx, half-width
// t_{1 - alpha/2, k-2} sqrt(rss / (k - 2) / sxx). For a rate read off a few exact log-log points, whose scatter
// about the line is the only error there is.
struct SlopeInterval {
  double slope = 0, lo = 0, hi = 0;
};
SlopeInterval slope_interval(const std::vector<double>& x, const std::vector<double>& y, double alpha);

// The exact (Clopper-Pearson) two-sided interval at level 1 - alpha of a binomial proportion, k successes in n
// trials: the alpha/2 quantile of Beta(k, n - k + 1) and the 1 - alpha/2 quantile of Beta(k + 1, n - k); 0 below at
// k = 0 (the upper end is then 1 - (alpha/2)^(1/n)), 1 above at k = n. Throws std::invalid_argument for k > n.
std::pair<double, double> clopper_pearson(std::uint64_t k, std::uint64_t n, double alpha);

// Draws of a statistic (one per replication of a protocol): their mean with its Student-t interval at `confidence`
// (make_estimate over them, in order), and the order statistics sorted[k / 20], sorted[k / 2] and sorted[19 k / 20]
// of the k draws (their 5%, 50% and 95% points; k >= 1).
struct DrawSummary {
  Estimate mean;
  double q05 = 0, median = 0, q95 = 0;
};
DrawSummary summarize_draws(const std::vector<double>& draws, double confidence);

// A value t of a statistic T against `draws` of T (replications of a protocol): the two-sided Monte Carlo p-value
// 2 min(P(T <= t), P(T > t)) (at most 1), bounded by the Clopper-Pearson intervals (level 1 - alpha) of the two
// proportions counted: p_low from their lower ends, p_high from their upper ends.
struct McPValue {
  std::uint64_t at_or_below = 0;  // the draws <= t
  double p_low = 0, p_high = 0;
};
McPValue two_sided_mc_p_value(const std::vector<double>& draws, double t, double alpha);

}  // namespace icl
