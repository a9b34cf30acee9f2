// The worst-case search (lib/icl/search): continuation and its extension on a problem whose optimum lies at a
// scale the base rounds do not reach. Each point is (s, c): the scale s is what the continuation rescales, and
// the value is min(log2 s, c), so a path rises by 1 per doubling of s until it reaches its ceiling c and is flat
// after it (the refinement leaves the point as it is; every number below is exact).
#include "icl/search/search.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_search {  // named: a unity build compiles several test files as one unit

namespace {

icl::SearchProblem ceiling_problem() {
  icl::SearchProblem pr;
  pr.dim = 2;
  auto start = [](double s, double c) {
    Eigen::VectorXd x(2);
    x << s, c;
    return x;
  };
  pr.structured = {{"ceiling 10", start(1, 10)},   // values 0, 1, 2 in the base rounds, then 3, ..., 10
                   {"ceiling 1", start(1, 1)},      // 0, 1, 1: flat at its last base round, not rising
                   {"ceiling 3", start(0.5, 3)}};   // -1, 0, 1: rising, behind "ceiling 10"
  pr.refine = [](const Eigen::VectorXd& x, int, std::uint64_t) { return x; };
  pr.select = [](const Eigen::VectorXd& x) { return std::min(std::log2(x[0]), x[1]); };
  pr.rescale = [](const Eigen::VectorXd& x, double f) {
    Eigen::VectorXd y = x;
    y[0] *= f;
    return y;
  };
  return pr;
}

icl::SearchBudget base_budget() {
  icl::SearchBudget b;
  b.random_starts = 0;
  b.continuation_steps = 2;
  b.continuation_factor = 2.0;
  b.refine_effort = 10;
  b.final_effort = 0;
  b.improving_tol = 0.5;
  return b;
}

}  // namespace

TEST_CASE("search: without the extension the continuation stops after its base rounds") {
  const auto r = icl::search_maximum(ceiling_problem(), base_budget(), 1, 2);
  REQUIRE(r.paths.size() == 3);
  for (const auto& p : r.paths) {
    CHECK(p.values.size() == 3);
    CHECK(p.extended_rounds == 0);
  }
  CHECK(r.best_value == 2.0);
  CHECK(r.best_start == "ceiling 10");
  CHECK(r.effort == 90.0);
  CHECK(!r.to_json()["budget"].contains("extend_leaders"));  // a claim without the extension keeps its report's shape
}

TEST_CASE("search: the extension follows the leading rising path while it improves") {
  icl::SearchBudget b = base_budget();
  b.extend_leaders = 1;
  b.max_continuation_steps = 30;
  b.extend_patience = 2;
  const auto r = icl::search_maximum(ceiling_problem(), b, 1, 2);
  REQUIRE(r.paths.size() == 3);
  // "ceiling 10": rounds 3..10 reach 3..10, then two rounds without a new best end it (13 values in all).
  const auto& lead = r.paths[0];
  REQUIRE(lead.values.size() == 13);
  CHECK(lead.extended_rounds == 10);
  for (int k = 0; k <= 10; ++k) CHECK(lead.values[static_cast<std::size_t>(k)] == doctest::Approx(k));
  CHECK(lead.values[11] == 10.0);
  CHECK(lead.values[12] == 10.0);
  // Only one leader: the others keep their base rounds ("ceiling 3" rising too, but behind).
  CHECK(r.paths[1].values.size() == 3);
  CHECK(r.paths[2].values.size() == 3);
  CHECK(r.best_value == 10.0);
  CHECK(r.best_round == 10);
  CHECK(r.best[0] == 1024.0);
  CHECK(r.effort == 10.0 * (13 + 3 + 3));
  // The profile records the extension's rounds, and the rise over the last quarter of the effort is seen.
  CHECK(r.profile.back().first == r.effort);
  CHECK(r.profile.back().second == 10.0);
  CHECK(r.still_improving);
  const auto j = r.to_json();
  CHECK(j["budget"]["extend_leaders"] == 1);
  CHECK(j["paths"][0]["extended_rounds"] == 10);
  CHECK(!j["paths"][1].contains("extended_rounds"));
}

TEST_CASE("search: the extension skips paths that stopped rising, and its cap and factor hold") {
  icl::SearchBudget b = base_budget();
  b.extend_leaders = 3;  // every path may go on, but "ceiling 1" is flat at its last base round
  b.max_continuation_steps = 6;
  const auto r = icl::search_maximum(ceiling_problem(), b, 1, 2);
  CHECK(r.paths[0].values.size() == 7);  // the cap: rounds 0..6
  CHECK(r.paths[0].values.back() == 6.0);
  CHECK(r.paths[1].values.size() == 3);
  CHECK(r.paths[1].extended_rounds == 0);
  // "ceiling 3": 2, 3, then 3 and 3 (no new best) end it.
  REQUIRE(r.paths[2].values.size() == 7);
  CHECK(r.paths[2].values[3] == doctest::Approx(2.0));
  CHECK(r.paths[2].values[4] == doctest::Approx(3.0));
  CHECK(r.paths[2].extended_rounds == 4);
  // A smaller factor in the extension: half a doubling per round.
  b.extend_leaders = 1;
  b.max_continuation_steps = 30;
  b.extend_factor = std::sqrt(2.0);
  b.extend_tol = 1e-9;  // (4 sqrt(2)^16 is 1024 only to rounding)
  const auto h = icl::search_maximum(ceiling_problem(), b, 1, 2);
  REQUIRE(h.paths[0].values.size() == 3 + 16 + 2);  // 2 -> 10 in 16 half-doublings, then patience
  CHECK(h.paths[0].values[4] == doctest::Approx(3.0));
  CHECK(h.best_value == doctest::Approx(10.0));
  // `--set search=K` gains floor(log2 K) rounds in the base and in the cap.
  const auto s = b.scaled(4.0);
  CHECK(s.continuation_steps == 4);
  CHECK(s.max_continuation_steps == 32);
}

}  // namespace test_search
