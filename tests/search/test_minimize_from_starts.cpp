// The minimum of a smooth objective from given starts (lib/icl/search/minimize_from_starts.hpp), where the answer is
// known by hand: a shifted quadratic (one minimum, every start reaches it), a tilted double well (two minima; the
// lower one wins whichever start reaches it, and a profile that found it only at the last start is still improving),
// and an objective that is not finite at a start (that start does not count).
#include "icl/search/minimize_from_starts.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_minimize_from_starts {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

Eigen::VectorXd v1(double x) { return Eigen::VectorXd::Constant(1, x); }

// (x^2 - 1)^2 + 0.1 x: minima near x = -1 (the lower, f ~ -0.1) and x = +1 (f ~ +0.1).
const learn::Objective kWell = [](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::VectorXd& g) {
  g.resize(1);
  g[0] = 4 * x[0] * (x[0] * x[0] - 1) + 0.1;
  return (x[0] * x[0] - 1) * (x[0] * x[0] - 1) + 0.1 * x[0];
};

}  // namespace

TEST_CASE("minimize_from_starts: a shifted quadratic is found from every start") {
  Eigen::Matrix2d H;
  H << 2, 0.5, 0.5, 1;
  const Eigen::Vector2d c(0.3, -1.7);
  const learn::Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::VectorXd& g) {
    const Eigen::Vector2d e = x - c;
    g = 2 * H * e;
    return e.dot(H * e) + 3.0;
  };
  const StartsMinimum m = minimize_from_starts(
      f, {{"zero", Eigen::Vector2d::Zero()}, {"far", Eigen::Vector2d(10, 10)}, {"near", Eigen::Vector2d(0.2, -1.5)}},
      StartsOptions{}, 1, 2);
  CHECK(m.converged == 3);
  REQUIRE(m.losses.size() == 3);
  for (double l : m.losses) CHECK(l == doctest::Approx(3.0).epsilon(1e-14));
  CHECK(m.best.loss == doctest::Approx(3.0).epsilon(1e-14));
  REQUIRE(m.best.theta.size() == 2);
  CHECK((m.best.theta - c).norm() < 1e-9);
  CHECK(m.search.starts == 3);
  CHECK(!m.search.still_improving);
  CHECK(m.search.paths[1].start == "far");
}

TEST_CASE("minimize_from_starts: the lower of two wells wins; finding it only at the last start is still improving") {
  const StartsMinimum late = minimize_from_starts(
      kWell, {{"a", v1(1.2)}, {"b", v1(1.1)}, {"c", v1(0.9)}, {"d", v1(-1.2)}}, StartsOptions{}, 1, 2);
  CHECK(late.converged == 4);
  CHECK(late.best.theta[0] < -0.9);
  CHECK(late.best.loss < -0.09);
  CHECK(late.losses[0] > 0.09);  // the first three starts end in the upper well
  CHECK(late.losses[3] == late.best.loss);
  CHECK(late.search.still_improving);

  const StartsMinimum early = minimize_from_starts(
      kWell, {{"d", v1(-1.2)}, {"a", v1(1.2)}, {"b", v1(1.1)}, {"c", v1(0.9)}}, StartsOptions{}, 1, 2);
  CHECK(early.best.loss == late.best.loss);
  CHECK(!early.search.still_improving);
}

TEST_CASE("minimize_from_starts: a start where the objective is not finite does not count") {
  const learn::Objective f = [](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::VectorXd& g) {
    g = 2 * x;
    return std::abs(x[0]) < 5 ? x[0] * x[0] : NAN;
  };
  const StartsMinimum m = minimize_from_starts(f, {{"outside", v1(10)}, {"inside", v1(1)}}, StartsOptions{}, 1, 2);
  CHECK(m.converged == 1);
  CHECK(std::isnan(m.losses[0]));
  CHECK(m.losses[1] < 1e-18);
  CHECK(std::abs(m.best.theta[0]) < 1e-9);
  const StartsMinimum none = minimize_from_starts(f, {{"outside", v1(10)}}, StartsOptions{}, 1, 2);
  CHECK(none.converged == 0);
  CHECK(std::isinf(none.best.loss));
  CHECK(none.best.theta.size() == 0);
}

}  // namespace test_minimize_from_starts
