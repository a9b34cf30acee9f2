// A falling trend over a grid (lib/icl/verdict/trend.hpp) and the decrease decision behind it (decision.hpp
// judge_mc_decrease): curves split by hand, the tally's rule on verdicts chosen by hand, and the decrease decision
// on estimates whose difference and standard error are known; the rule on an exact local slope (judge_exact_slope) on
// slopes either side of each edge, and a decision set aside as an internal inconsistency (unless_inconsistent).
#include "icl/verdict/decision.hpp"
#include "icl/verdict/trend.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace test_verdict_trend {  // named: a unity build compiles several test files as one unit

namespace {
icl::Estimate estimate(double mean, double se) {
  icl::Estimate e;
  e.mean = mean;
  e.stderr_ = se;
  return e;
}
}  // namespace

TEST_CASE("increasing_runs: a run ends where the group changes or x does not grow") {
  using Runs = std::vector<std::pair<std::size_t, std::size_t>>;
  // group 5: x 10, 30, 100 | group 5 again: x 20 (not above 100) | group 7: 10, 30 | group 7: 30 (equal) | group 8: 1
  const std::vector<int> g{5, 5, 5, 5, 7, 7, 7, 8};
  const std::vector<double> x{10, 30, 100, 20, 10, 30, 30, 1};
  CHECK(icl::increasing_runs(g, x) == Runs{{0, 2}, {3, 3}, {4, 5}, {6, 6}, {7, 7}});
  CHECK(icl::increasing_runs({}, {}).empty());
  CHECK(icl::increasing_runs({1}, {2.0}) == Runs{{0, 0}});
  CHECK_THROWS_AS(icl::increasing_runs({1, 2}, {1.0}), std::invalid_argument);
}

TEST_CASE("TrendTally: a rise refutes, every curve falling first to last confirms") {
  using icl::Verdict;
  icl::TrendTally t;
  CHECK(t.verdict() == Verdict::inconclusive);  // nothing judged
  t.add_pair(Verdict::confirmed);
  t.add_pair(Verdict::inconclusive);
  CHECK(t.pairs == 2);
  CHECK(t.falls == 1);
  CHECK(t.verdict() == Verdict::inconclusive);  // no long curve, and not every pair falls
  t.add_overall(Verdict::confirmed);
  CHECK(t.groups == 1);
  CHECK(t.overall_falls == 1);
  CHECK(t.verdict() == Verdict::confirmed);  // the curve falls from first to last
  t.add_overall(Verdict::inconclusive);
  CHECK(t.verdict() == Verdict::inconclusive);  // one curve of two does not
  t.add_pair(Verdict::refuted);
  CHECK(t.rises == 1);
  CHECK(t.verdict() == Verdict::refuted);
  icl::TrendTally pairs_only;  // curves of two points only: every pair must fall
  pairs_only.add_pair(Verdict::confirmed);
  pairs_only.add_pair(Verdict::confirmed);
  CHECK(pairs_only.verdict() == Verdict::confirmed);
}

TEST_CASE("judge_mc_decrease: the difference a - b against its two-sided interval") {
  const double alpha = 0.05, z = icl::normal_quantile(1 - alpha / 2);  // 1.95996...
  CHECK(z == doctest::Approx(1.959964).epsilon(1e-6));
  // se = hypot(0.3, 0.4) = 0.5: half-width z / 2 = 0.98
  const icl::Decision fall = icl::judge_mc_decrease(estimate(3.0, 0.3), estimate(1.0, 0.4), alpha);
  CHECK(fall.verdict == icl::Verdict::confirmed);  // 2 - 0.98 > 0
  CHECK(fall.band == 0.0);
  CHECK(fall.detectable == doctest::Approx((z + icl::normal_quantile(0.95)) * 0.5).epsilon(1e-14));
  CHECK(fall.why == "2 +/- 0.98");
  const icl::Decision rise = icl::judge_mc_decrease(estimate(1.0, 0.3), estimate(3.0, 0.4), alpha);
  CHECK(rise.verdict == icl::Verdict::refuted);
  CHECK(rise.why == "-2 +/- 0.98");
  // a difference of 0.9 < 0.98: undecided either way
  CHECK(icl::judge_mc_decrease(estimate(1.9, 0.3), estimate(1.0, 0.4), alpha).verdict == icl::Verdict::inconclusive);
  CHECK(icl::judge_mc_decrease(estimate(1.0, 0.3), estimate(1.9, 0.4), alpha).verdict == icl::Verdict::inconclusive);
}

TEST_CASE("judge_exact_slope: like x^p within its band, at least like x^p, refuted above the threshold") {
  using icl::Verdict;
  const icl::ExactSlopeRule like{.stated = -1, .within = 0.1, .refute_above = -0.5};
  CHECK(icl::judge_exact_slope(-0.95, like, "s").verdict == Verdict::confirmed);
  CHECK(icl::judge_exact_slope(-1.09, like, "s").verdict == Verdict::confirmed);  // inside the band, below p
  CHECK(icl::judge_exact_slope(-1.2, like, "s").verdict == Verdict::inconclusive);  // falls faster: not refuted
  CHECK(icl::judge_exact_slope(-0.7, like, "s").verdict == Verdict::inconclusive);
  CHECK(icl::judge_exact_slope(-0.4, like, "s").verdict == Verdict::refuted);
  const icl::Decision d = icl::judge_exact_slope(-0.99912, like, "local slope of log L between n = 10 and 20");
  CHECK(d.band == 0.1);
  CHECK(d.why == "local slope of log L between n = 10 and 20: -0.9991 (confirmed within -1 +/- 0.1, refuted above -0.5)");
  const icl::ExactSlopeRule at_least{.stated = -0.5, .within = 0, .refute_above = -0.1};
  CHECK(icl::judge_exact_slope(-2.0, at_least, "s").verdict == Verdict::confirmed);
  CHECK(icl::judge_exact_slope(-0.5, at_least, "s").verdict == Verdict::confirmed);
  CHECK(icl::judge_exact_slope(-0.3, at_least, "s").verdict == Verdict::inconclusive);
  CHECK(icl::judge_exact_slope(0.0, at_least, "s").verdict == Verdict::refuted);
  const icl::Decision e = icl::judge_exact_slope(-0.25, at_least, "s");
  CHECK(e.band == doctest::Approx(0.4).epsilon(1e-15));
  CHECK(e.why == "s: -0.2500 (confirmed at <= -0.5, refuted above -0.1)");
  CHECK(icl::judge_exact_slope(NAN, like, "s").verdict == Verdict::inconclusive);  // no slope decides nothing
}

TEST_CASE("unless_inconsistent: a failed check of the engine leaves the decision inconclusive and says so") {
  const icl::Decision d{icl::Verdict::refuted, 0.1, 0, "slope -0.2"};
  const icl::Decision kept = icl::unless_inconsistent(d, false, "the moments differ");
  CHECK(kept.verdict == icl::Verdict::refuted);
  CHECK(kept.why == "slope -0.2");
  const icl::Decision set = icl::unless_inconsistent(d, true, "the moments differ");
  CHECK(set.verdict == icl::Verdict::inconclusive);
  CHECK(set.band == 0.1);
  CHECK(set.why == "slope -0.2; INTERNAL INCONSISTENCY: the moments differ");
}

}  // namespace test_verdict_trend
