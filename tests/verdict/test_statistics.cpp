// Statistics of measurements made of several numbers (lib/icl/verdict/statistics.hpp): least-squares lines on points
// whose line is known by hand, the Clopper-Pearson interval against its closed forms and a tabulated value, the
// summary of draws and the two-sided Monte Carlo p-value on draws counted by hand.
#include "icl/verdict/statistics.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace test_verdict_statistics {  // named: a unity build compiles several test files as one unit

TEST_CASE("fit_line: exact points give their line, r^2 = 1 and, unweighted, no standard error") {
  const std::vector<double> x{-1.0, 0.0, 2.0, 5.0};
  std::vector<double> y;
  for (double v : x) y.push_back(2.0 - 3.0 * v);
  const icl::LineFit f = icl::fit_line(x, y);
  CHECK(f.slope == doctest::Approx(-3.0).epsilon(1e-14));
  CHECK(f.intercept == doctest::Approx(2.0).epsilon(1e-14));
  CHECK(f.r2 == doctest::Approx(1.0).epsilon(1e-14));
  CHECK(f.slope_se == 0.0);
  // a constant y: slope 0, r^2 = 1 by convention
  const icl::LineFit c = icl::fit_line(x, {4.0, 4.0, 4.0, 4.0});
  CHECK(c.slope == 0.0);
  CHECK(c.intercept == 4.0);
  CHECK(c.r2 == 1.0);
  CHECK_THROWS_AS(icl::fit_line(x, {1.0, 2.0}), std::invalid_argument);
}

TEST_CASE("fit_line: least squares by hand, and weights 1/var") {
  // x = 0..3, y = (0, 1, 1, 2): mean x 1.5, mean y 1, sxx = 5, sxy = 3, syy = 2: slope 0.6, intercept 0.1, r^2 0.9.
  const std::vector<double> x{0, 1, 2, 3}, y{0, 1, 1, 2};
  const icl::LineFit f = icl::fit_line(x, y);
  CHECK(f.slope == doctest::Approx(0.6).epsilon(1e-14));
  CHECK(f.intercept == doctest::Approx(0.1).epsilon(1e-13));
  CHECK(f.r2 == doctest::Approx(0.9).epsilon(1e-14));
  // Variances 1/2 each (weights 2): the same line, sxx = 10, slope_se = sqrt(1/10).
  const icl::LineFit w = icl::fit_line(x, y, {0.5, 0.5, 0.5, 0.5});
  CHECK(w.slope == doctest::Approx(0.6).epsilon(1e-14));
  CHECK(w.slope_se == doctest::Approx(std::sqrt(0.1)).epsilon(1e-14));
  // A point with a huge variance hardly counts: the line through the other two, slope 1.
  const icl::LineFit o = icl::fit_line({0, 1, 2}, {0, 1, 50}, {1, 1, 1e20});
  CHECK(o.slope == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(o.intercept == doctest::Approx(0.0).scale(1.0).epsilon(1e-12));
  CHECK(o.slope_se == doctest::Approx(std::sqrt(2.0)).epsilon(1e-9));  // sxx of the two points: 1/2
}

TEST_CASE("slope_interval: the least-squares slope with its residual t interval, by hand") {
  // x = 0..3, y = (0, 1, 1, 2): slope 0.6 (as above); residuals about 0.1 + 0.6 x: -0.1, 0.3, -0.3, 0.1, rss = 0.2;
  // half-width t_{0.975, 2} sqrt(0.2 / 2 / 5), with t_{p, 2} = (2p - 1) / sqrt(2 p (1 - p)) in closed form.
  const icl::SlopeInterval f = icl::slope_interval({0, 1, 2, 3}, {0, 1, 1, 2}, 0.05);
  const double half = 0.95 / std::sqrt(2 * 0.975 * 0.025) * std::sqrt(0.02);
  CHECK(f.slope == doctest::Approx(0.6).epsilon(1e-14));
  CHECK(f.lo == doctest::Approx(0.6 - half).epsilon(1e-9));
  CHECK(f.hi == doctest::Approx(0.6 + half).epsilon(1e-9));
  // points on a line: no width; two points: no residual degrees of freedom, an infinite interval
  const icl::SlopeInterval e = icl::slope_interval({1, 2, 4}, {1, -1, -5}, 0.01);
  CHECK(e.slope == doctest::Approx(-2.0).epsilon(1e-14));
  CHECK(e.hi - e.lo == doctest::Approx(0.0).scale(1.0).epsilon(1e-12));
  const icl::SlopeInterval two = icl::slope_interval({0, 1}, {0, 3}, 0.01);
  CHECK(two.slope == doctest::Approx(3.0));
  CHECK(std::isinf(two.hi));
  CHECK(std::isinf(two.lo));
}

TEST_CASE("slope_estimate: the slope with its normal interval") {
  icl::LineFit f;
  f.slope = -1.02;
  f.slope_se = 0.01;
  const icl::Estimate e = icl::slope_estimate(f, 1234, 0.05);
  CHECK(e.mean == -1.02);
  CHECK(e.stderr_ == 0.01);
  CHECK(e.samples == 1234);
  CHECK(e.confidence == doctest::Approx(0.95).epsilon(1e-15));
  CHECK(e.ci_low == doctest::Approx(-1.02 - 1.959963984540054 * 0.01).epsilon(1e-14));
  CHECK(e.ci_high == doctest::Approx(-1.02 + 1.959963984540054 * 0.01).epsilon(1e-14));
  CHECK(e.sd == 0.0);
}

TEST_CASE("clopper_pearson: closed forms at the ends, a tabulated value, symmetry") {
  const double a = 0.05;
  for (std::uint64_t n : {1, 10, 200}) {
    CAPTURE(n);
    const double c = std::pow(a / 2, 1.0 / static_cast<double>(n));
    // k = 0: [0, 1 - (alpha/2)^(1/n)]; k = n: [(alpha/2)^(1/n), 1]
    const auto [lo0, hi0] = icl::clopper_pearson(0, n, a);
    CHECK(lo0 == 0.0);
    CHECK(hi0 == doctest::Approx(1 - c).epsilon(1e-12));
    const auto [lon, hin] = icl::clopper_pearson(n, n, a);
    CHECK(lon == doctest::Approx(c).epsilon(1e-12));
    CHECK(hin == 1.0);
    // k = 1: the lower end is 1 - (1 - alpha/2)^(1/n)
    const auto [lo1, hi1] = icl::clopper_pearson(1, n, a);
    CHECK(lo1 == doctest::Approx(1 - std::pow(1 - a / 2, 1.0 / static_cast<double>(n))).epsilon(1e-10));
    CHECK(hi1 > lo1);
  }
  // 5 of 10 at 95%: [0.18709, 0.81291] (the standard table); k and n - k mirror each other.
  const auto [lo, hi] = icl::clopper_pearson(5, 10, a);
  CHECK(lo == doctest::Approx(0.187086028).epsilon(1e-8));
  CHECK(hi == doctest::Approx(0.812913972).epsilon(1e-8));
  const auto [l3, h3] = icl::clopper_pearson(3, 40, 0.01);
  const auto [l37, h37] = icl::clopper_pearson(37, 40, 0.01);
  CHECK(l3 == doctest::Approx(1 - h37).epsilon(1e-12));
  CHECK(h3 == doctest::Approx(1 - l37).epsilon(1e-12));
  CHECK_THROWS_AS(icl::clopper_pearson(11, 10, a), std::invalid_argument);
}

TEST_CASE("two_sided_mc_p_value: counts ties below, and bounds 2 min(tail) by Clopper-Pearson") {
  std::vector<double> draws;
  for (int i = 0; i < 100; ++i) draws.push_back(i / 100.0);  // 0, 0.01, ..., 0.99
  const icl::McPValue p = icl::two_sided_mc_p_value(draws, 0.09, 0.05);
  CHECK(p.at_or_below == 10);  // 0 .. 0.09, the tie included
  const auto [lo, hi] = icl::clopper_pearson(10, 100, 0.05);
  CHECK(p.p_low == doctest::Approx(2 * lo).epsilon(1e-14));
  CHECK(p.p_high == doctest::Approx(2 * hi).epsilon(1e-14));
  CHECK(p.p_low < 0.2);  // the plain p-value 2 x 10/100 lies inside
  CHECK(p.p_high > 0.2);
  // a value in the middle: both tails large, the p-value capped at 1
  const icl::McPValue m = icl::two_sided_mc_p_value(draws, 0.495, 0.05);
  CHECK(m.at_or_below == 50);
  CHECK(m.p_high == 1.0);
  // a value beyond every draw: p_high = 2 (1 - (alpha/2)^(1/100)), far below 1
  const icl::McPValue b = icl::two_sided_mc_p_value(draws, 2.0, 0.05);
  CHECK(b.at_or_below == 100);
  CHECK(b.p_low == 0.0);
  CHECK(b.p_high == doctest::Approx(2 * (1 - std::pow(0.025, 0.01))).epsilon(1e-12));
}

TEST_CASE("summarize_draws: the mean with its interval, and the 5%, 50% and 95% order statistics") {
  std::vector<double> draws;
  for (int i = 99; i >= 0; --i) draws.push_back(i / 100.0);  // 0.99 .. 0 (sorted inside, not by the caller)
  const icl::DrawSummary s = icl::summarize_draws(draws, 0.95);
  CHECK(s.q05 == 0.05);    // sorted[100 / 20]
  CHECK(s.median == 0.5);  // sorted[50]
  CHECK(s.q95 == 0.95);    // sorted[95]
  CHECK(s.mean.samples == 100);
  CHECK(s.mean.mean == doctest::Approx(0.495).epsilon(1e-14));
  // sd of 0, 0.01, ..., 0.99: sqrt(sum (i - 49.5)^2 / 99) / 100 = sqrt(841.6667) / 100
  CHECK(s.mean.sd == doctest::Approx(std::sqrt(100.0 * 101.0 / 12.0) / 100.0).epsilon(1e-12));
  CHECK(s.mean.confidence == 0.95);
  CHECK(s.mean.ci_low < 0.495);
  CHECK(s.mean.ci_high > 0.495);
  const icl::DrawSummary one = icl::summarize_draws({0.3}, 0.95);
  CHECK(one.q05 == 0.3);
  CHECK(one.median == 0.3);
  CHECK(one.q95 == 0.3);
  CHECK_THROWS_AS(icl::summarize_draws({}, 0.95), std::invalid_argument);
}

}  // namespace test_verdict_statistics
