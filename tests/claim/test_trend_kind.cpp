// The trend kind (lib/icl/claim/kinds/trend.hpp) on its own, with no claim: points made by hand on two curves give
// their pair and first-to-last cases in order, with whole-number parameters written as integers, the claim's limit
// case after each curve, the tally, and the part's verdict: a significant fall everywhere confirms, one significant
// rise refutes.
#include "icl/claim/kinds/trend.hpp"
#include "tests/support/claim_kind_support.hpp"

#include <doctest/doctest.h>

namespace test_trend_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

Estimate loss(double mean) {
  Estimate e;
  e.mean = mean;
  e.stderr_ = 0.01;
  e.ci_low = mean - 0.03;
  e.ci_high = mean + 0.03;
  e.samples = 10000;
  return e;
}

}  // namespace

TEST_CASE("trend kind: curves, pair and overall cases, the limit callback, the tally and the part") {
  const test::ScopedClaim claim("test.trend_kind");
  ClaimContext ctx;
  ctx.claim_id = claim.id;
  ClaimRun r(ctx);
  const trend::Spec s;
  // d = 1: D = 10, 30, 100 falling; d = 2: D = 10, 30 falling
  const std::vector<trend::Point> pts{{1, 10, loss(1.0)}, {1, 30, loss(0.8)}, {1, 100, loss(0.6)}, {2, 10, loss(2.0)},
                                      {2, 30, loss(1.5)}};
  std::vector<std::pair<double, double>> limits;
  const TrendTally n = trend::trend_cases(r, s, pts, 0.01, [&](const trend::Point& a, const trend::Point& b) {
    limits.emplace_back(a.x, b.x);
  });
  CHECK(n.pairs == 3);
  CHECK(n.falls == 3);
  CHECK(n.rises == 0);
  CHECK(n.groups == 1);
  CHECK(n.overall_falls == 1);
  REQUIRE(limits.size() == 2);
  CHECK(limits[0] == std::make_pair(10.0, 100.0));
  CHECK(limits[1] == std::make_pair(10.0, 30.0));
  REQUIRE(r.cases().size() == 4);  // 10-30, 30-100, 10-100 (d = 1); 10-30 (d = 2)
  const auto& c = r.cases()[2];
  CHECK(c["params"]["D"].is_number_integer());
  CHECK(c["params"]["D"] == 10);
  CHECK(c["params"]["D_next"] == 100);
  CHECK(c["check"] == s.overall_check);
  CHECK(c["verdict"] == "confirmed");
  CHECK(c["quantities"]["mc_at_D"]["mean"] == 1.0);
  CHECK(c["quantities"]["loss_drop"]["value"] == doctest::Approx(0.4));
  trend::decide_part(r, s, n, Refutation{RefutationClass::substantive, "a rise", {}, ""});
  CHECK(r.part("b").verdict == std::optional<Verdict>(Verdict::confirmed));

  ClaimRun r2(ctx);
  const TrendTally m = trend::trend_cases(r2, s, {{1, 10, loss(1.0)}, {1, 30, loss(1.3)}}, 0.01, nullptr);
  CHECK(m.rises == 1);
  trend::decide_part(r2, s, m, Refutation{RefutationClass::substantive, "a rise", {}, ""});
  CHECK(r2.part("b").verdict == std::optional<Verdict>(Verdict::refuted));
  CHECK(r2.cases()[0]["verdict"] == "refuted");
}

}  // namespace test_trend_kind
