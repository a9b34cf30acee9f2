// Estimates and intervals (lib/icl/montecarlo/statistics.hpp): quantiles against tabulated values, and the
// coverage of the Student-t interval on samples whose truth is known.
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/statistics.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_statistics {  // named: a unity build compiles several test files as one unit

namespace {

using icl::test::NormalWorker;

}  // namespace

TEST_CASE("quantiles and make_estimate against tabulated values") {
  CHECK(icl::normal_quantile(0.975) == doctest::Approx(1.959963984540054).epsilon(1e-12));
  CHECK(icl::normal_quantile(0.5) == doctest::Approx(0.0).scale(1.0).epsilon(1e-15));
  CHECK(icl::student_t_quantile(0.975, 4) == doctest::Approx(2.776445105197799).epsilon(1e-10));
  CHECK(icl::student_t_quantile(0.995, 10) == doctest::Approx(3.169272672616954).epsilon(1e-10));

  icl::Accumulator acc(1);
  for (double v : {1.0, 2.0, 3.0, 4.0, 5.0}) acc.add(&v);
  const icl::Estimate e = icl::make_estimate(acc, 0, 0.95);
  CHECK(e.samples == 5);
  CHECK(e.mean == doctest::Approx(3.0).epsilon(1e-15));
  CHECK(e.sd == doctest::Approx(std::sqrt(2.5)).epsilon(1e-14));
  CHECK(e.stderr_ == doctest::Approx(std::sqrt(0.5)).epsilon(1e-14));
  CHECK(e.ci_low == doctest::Approx(3.0 - 2.776445105197799 * std::sqrt(0.5)).epsilon(1e-10));
  CHECK(e.ci_high == doctest::Approx(3.0 + 2.776445105197799 * std::sqrt(0.5)).epsilon(1e-10));
  CHECK(e.confidence == 0.95);
}

TEST_CASE("make_estimate: the interval covers the true mean at its stated confidence") {
  // 400 independent runs of 256 N(0.3, 1) samples at 90% confidence: coverage count ~ Bin(400, 0.9),
  // mean 360, sd 6; accept [330, 390] (5 sd). A wrong quantile (e.g. 1 sd or 3 sd) falls far outside.
  int covered = 0;
  const double mu = 0.3;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    icl::MonteCarlo mc(1, 1);
    mc.extend_to(256, [&] { return NormalWorker{seed, 77, mu}; });
    const auto e = icl::make_estimate(mc.total(), 0, 0.90);
    if (e.ci_low <= mu && mu <= e.ci_high) ++covered;
  }
  CHECK(covered >= 330);
  CHECK(covered <= 390);
}

}  // namespace test_statistics
