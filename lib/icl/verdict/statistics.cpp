#include "icl/verdict/statistics.hpp"

#include <boost/math/distributions/beta.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace icl {

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& var) {
  const std::size_t k = x.size();
  if (y.size() != k || (!var.empty() && var.size() != k))
    throw std::invalid_argument("fit_line: x, y (and var, if given) must have the same length");
  double sw = 0, sx = 0, sy = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double w = var.empty() ? 1.0 : 1.0 / var[i];
    sw += w, sx += w * x[i], sy += w * y[i];
  }
  const double mx = sx / sw, my = sy / sw;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double w = var.empty() ? 1.0 : 1.0 / var[i];
    sxx += w * (x[i] - mx) * (x[i] - mx), sxy += w * (x[i] - mx) * (y[i] - my), syy += w * (y[i] - my) * (y[i] - my);
  }
  LineFit f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? sxy * sxy / (sxx * syy) : 1.0;
  f.slope_se = var.empty() ? 0.0 : std::sqrt(1.0 / sxx);
  return f;
}

Estimate slope_estimate(const LineFit& f, std::uint64_t samples, double alpha) {
  Estimate e;
  e.mean = f.slope;
  e.stderr_ = f.slope_se;
  e.samples = samples;
  e.confidence = 1 - alpha;
  const double z = normal_quantile(1 - alpha / 2);
  e.ci_low = f.slope - z * f.slope_se;
  e.ci_high = f.slope + z * f.slope_se;
  return e;
}

SlopeInterval slope_interval(const std::vector<double>& x, const std::vector<double>& y, double alpha) {
  const double k = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / k, my += y[i] / k;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sxx += (x[i] - mx) * (x[i] - mx), sxy += (x[i] - mx) * (y[i] - my);
  SlopeInterval f;
  f.slope = sxy / sxx;
  double rss = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = y[i] - my - f.slope * (x[i] - mx);
    rss += e * e;
  }
  const double half = x.size() > 2 ? student_t_quantile(1 - alpha / 2, k - 2) * std::sqrt(rss / (k - 2) / sxx) : INFINITY;
  f.lo = f.slope - half;
  f.hi = f.slope + half;
  return f;
}

std::pair<double, double> clopper_pearson(std::uint64_t k, std::uint64_t n, double alpha) {
  if (k > n) throw std::invalid_argument("clopper_pearson: k <= n");
  using boost::math::ibeta_inv;
  const double lo = k == 0 ? 0.0 : ibeta_inv(double(k), double(n - k + 1), alpha / 2);
  const double hi = k == n ? 1.0 : ibeta_inv(double(k + 1), double(n - k), 1 - alpha / 2);
  return {lo, hi};
}

DrawSummary summarize_draws(const std::vector<double>& draws, double confidence) {
  if (draws.empty()) throw std::invalid_argument("summarize_draws: no draws");
  Accumulator acc(1);
  for (double v : draws) acc.add(&v);
  std::vector<double> sorted = draws;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t k = sorted.size();
  DrawSummary s;
  s.mean = make_estimate(acc, 0, confidence);
  s.q05 = sorted[k / 20];
  s.median = sorted[k / 2];
  s.q95 = sorted[k * 19 / 20];
  return s;
}

McPValue two_sided_mc_p_value(const std::vector<double>& draws, double t, double alpha) {
  McPValue p;
  p.at_or_below =
      static_cast<std::uint64_t>(std::count_if(draws.begin(), draws.end(), [t](double v) { return v <= t; }));
  const std::uint64_t n = draws.size(), above = n - p.at_or_below;
  const auto [lo_b, hi_b] = clopper_pearson(p.at_or_below, n, alpha);
  const auto [lo_a, hi_a] = clopper_pearson(above, n, alpha);
  p.p_high = std::min(1.0, 2 * std::min(hi_b, hi_a));
  p.p_low = std::min(1.0, 2 * std::min(lo_b, lo_a));
  return p;
}

}  // namespace icl
