#include "icl/montecarlo/statistics.hpp"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <cmath>

namespace icl {

double student_t_quantile(double p, double dof) {
  if (dof < 1) dof = 1;
  return boost::math::quantile(boost::math::students_t_distribution<double>(dof), p);
}
double normal_quantile(double p) { return boost::math::quantile(boost::math::normal_distribution<double>(), p); }

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
