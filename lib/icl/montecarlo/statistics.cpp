#include "icl/montecarlo/statistics.hpp"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <cmath>
#include <stdexcept>

namespace icl {

double student_t_quantile(double p, double dof) {
  if (dof < 1) dof = 1;
  return boost::math::quantile(boost::math::students_t_distribution<double>(dof), p);
}
namespace {
double one_sided_half_width(const Estimate& e, double a) {
  if (!std::isfinite(e.mean) || !std::isfinite(e.stderr_) || e.samples < 2) return NAN;
  return student_t_quantile(1 - a, static_cast<double>(e.samples - 1)) * e.stderr_;
}
}  // namespace
double one_sided_lower(const Estimate& e, double a) { return e.mean - one_sided_half_width(e, a); }
double one_sided_upper(const Estimate& e, double a) { return e.mean + one_sided_half_width(e, a); }
double normal_quantile(double p) { return boost::math::quantile(boost::math::normal_distribution<double>(), p); }

Estimate over_runs(const std::vector<double>& values, double confidence) {
  if (values.size() < 2) throw std::invalid_argument("over_runs: at least 2 runs");
  const double k = static_cast<double>(values.size());
  double mean = 0;
  for (double v : values) mean += v;
  mean /= k;
  double ss = 0;
  for (double v : values) ss += (v - mean) * (v - mean);
  Estimate e;
  e.mean = mean;
  e.sd = std::sqrt(ss / (k - 1));
  e.stderr_ = e.sd / std::sqrt(k);
  e.samples = values.size();
  e.confidence = confidence;
  const double t = student_t_quantile(0.5 + confidence / 2, k - 1);
  e.ci_low = mean - t * e.stderr_;
  e.ci_high = mean + t * e.stderr_;
  return e;
}

Estimate make_estimate(const Accumulator& acc, int k, double confidence) {
  Estimate e;
  e.samples = acc.count;
  e.mean = acc.mean.at(k);
  e.sd = std::sqrt(acc.variance(k));
  e.stderr_ = acc.count ? e.sd / std::sqrt(static_cast<double>(acc.count)) : INFINITY;
  e.confidence = confidence;
  const double t = student_t_quantile(0.5 + confidence / 2, static_cast<double>(acc.count) - 1);
  e.ci_low = e.mean - t * e.stderr_;
  e.ci_high = e.mean + t * e.stderr_;
  return e;
}

}  // namespace icl
