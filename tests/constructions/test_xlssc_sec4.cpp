// xlssc Sec. 4.3's two-layer construction measured at one D (constructions/xlssc_sec4.hpp measure_twolayer): eq. (5)'s
// expected slope (H_D - 1/2) / log D by hand and against an independent Monte Carlo of eq5_main_term, the paired
// components' identities, E[y_q^2] = 1, the sequential looks, and the same numbers at 1 and 2 threads.
#include "constructions/xlssc_sec4.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_xlssc_sec4 {  // named: a unity build compiles several test files as one unit

TEST_CASE("eq5_slope: (H_D - 1/2) / log D by hand") {
  CHECK(icl::xlssc::eq5_slope(2) == doctest::Approx(1.0 / std::log(2.0)).epsilon(1e-15));          // H_2 = 3/2
  CHECK(icl::xlssc::eq5_slope(3) == doctest::Approx((11.0 / 6 - 0.5) / std::log(3.0)).epsilon(1e-15));  // H_3 = 11/6
  CHECK(icl::xlssc::eq5_slope(10) == doctest::Approx((7381.0 / 2520 - 0.5) / std::log(10.0)).epsilon(1e-14));
}

TEST_CASE("eq5_slope is E[m y_q] for eq. (5)'s main term m on Sec. 3's setting (independent Monte Carlo)") {
  // E[m y_q] = sum_i (1/i - 1/(2D)) E[theta^T x_i x_i^T x_q x_q^T theta] / log D = (H_D - 1/2) E|theta|^2 / log D,
  // and E|theta|^2 = 1 for theta ~ N(0, I_d / d).
  const int d = 3, D = 10;
  const std::uint64_t n = 40000;
  double s = 0, s2 = 0;
  Eigen::MatrixXd X(d, D + 1);
  Eigen::VectorXd theta(d);
  for (std::uint64_t i = 0; i < n; ++i) {
    icl::PromptRng rng(7, 11, i);
    rng.fill_normal(theta);
    theta /= std::sqrt(static_cast<double>(d));
    rng.fill_normal(X);
    const double v = icl::xlssc::eq5_main_term(X, theta) * X.col(D).dot(theta);
    s += v;
    s2 += v * v;
  }
  const double mean = s / n, se = std::sqrt((s2 / n - mean * mean) / n);
  CHECK(std::abs(mean - icl::xlssc::eq5_slope(D)) < 5 * se);
}

TEST_CASE("measure_twolayer: paired components, E[y_q^2] = 1, looks, threads") {
  icl::SamplingPlan plan;
  plan.seed = 3;
  plan.threads = 1;
  plan.samples = 4096;
  const double alpha = 0.01;
  const icl::xlssc::TwoLayerAtD t = icl::xlssc::measure_twolayer(plan, alpha, 5, 10, 42);
  const icl::Accumulator& a = t.excess.total;
  // the looks 2048, 4096 (Bonferroni over both); at least one is run
  CHECK(t.excess.looks_planned == 2);
  CHECK(t.excess.alpha_look == doctest::Approx(alpha / 2).epsilon(1e-15));
  CHECK(t.excess.mc.samples == a.count);
  // paired per prompt: (yhat - y_q)^2 - y_q^2 = excess, so the means agree to rounding
  CHECK(t.excess.mc.mean == doctest::Approx(t.loss.mean - a.mean[icl::xlssc::kY2]).epsilon(1e-10));
  // E[y_q^2] = E|x|^2 / d = 1
  const icl::Estimate y2 = icl::make_estimate(a, icl::xlssc::kY2, 0.99);
  CHECK(std::abs(y2.mean - 1.0) < 5 * y2.stderr_);
  CHECK(t.slope == doctest::Approx(a.mean[icl::xlssc::kCross] / a.mean[icl::xlssc::kY2]).epsilon(1e-15));
  CHECK(t.slope_eq5 == icl::xlssc::eq5_slope(10));
  CHECK(t.loss_times_logD == doctest::Approx(t.loss.mean * std::log(10.0)).epsilon(1e-15));
  CHECK(t.eq5_main_loss > 0);
  CHECK(t.eps_share > 0);
  const nlohmann::ordered_json row = t.row({{"D", 10}});
  CHECK(row["params"]["D"] == 10);
  CHECK(row["zero_predictor_loss"] == 1.0);
  CHECK(row["slope"] == t.slope);
  // the same prompts give the same numbers at 2 threads
  plan.threads = 2;
  const icl::xlssc::TwoLayerAtD t2 = icl::xlssc::measure_twolayer(plan, alpha, 5, 10, 42);
  CHECK(t2.loss.mean == t.loss.mean);
  CHECK(t2.excess.mc.mean == t.excess.mc.mean);
  CHECK(t2.eps_share == t.eps_share);
}

}  // namespace test_xlssc_sec4
