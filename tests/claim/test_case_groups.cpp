// Cases grouped by every parameter but one (lib/icl/claim/case_groups.hpp).
#include "icl/claim/case_groups.hpp"

#include <doctest/doctest.h>

namespace test_case_groups {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("group_cases: groups by every other parameter in first-case order, the varied values sorted and distinct") {
  auto c = [](double d, double L, double n) { return Case{{{"d", d}, {"L", L}, {"n", n}}}; };
  const std::vector<Case> cases{c(3, 4, 10), c(4, 2, 10), c(3, 2, 10), c(3, 4, 20), c(4, 2, 10), c(3, 1, 10)};
  const std::vector<CaseGroup> g = group_cases(cases, "L");
  REQUIRE(g.size() == 3);
  CHECK(g[0].first == &cases[0]);  // d = 3, n = 10
  CHECK(g[0].values == std::vector<int>{1, 2, 4});
  CHECK(g[0].cases == std::vector<const Case*>{&cases[0], &cases[2], &cases[5]});
  CHECK(g[1].first == &cases[1]);  // d = 4, n = 10 (L = 2 twice: one value, two cases)
  CHECK(g[1].values == std::vector<int>{2});
  CHECK(g[1].cases.size() == 2);
  CHECK(g[2].first == &cases[3]);  // d = 3, n = 20
  CHECK(g[2].values == std::vector<int>{4});
  CHECK(group_cases({}, "L").empty());
}

}  // namespace test_case_groups
