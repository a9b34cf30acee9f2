// sja App. H layers by hand (d = 2, p = 3) and the symbolic forward pass they are checked with.
#include "constructions/sja_appG.hpp"
#include "constructions/sja_appH.hpp"
#include "icl/exact/symbolic_forward.hpp"
#include "icl/model/prompt.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

namespace test_sja_appH {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("App. H schedule for d = 2, p = 3: clear/generate/multiply, 9 blocks") {
  const auto s = sja::appH_schedule(2, 3);
  REQUIRE(s.size() == 9);  // C(3, 2) * 3
  const std::vector<std::string> want{"clear", "generate(1)", "multiply(1)", "clear", "generate(1)",
                                      "multiply(2)", "clear", "generate(2)", "multiply(2)"};
  for (std::size_t k = 0; k < 9; ++k) CHECK(s[k].name() == want[k]);
  CHECK(sja::appH_schedule(3, 1).size() == 1);  // p = 1: a single clear
}

TEST_CASE("App. H layers on numbers: x = (2, 3)") {
  const int d = 2, dbar = sja::appG_width(d);
  const PromptShape shape = sja_shape(d, dbar, 1);
  Eigen::MatrixXd X(2, 2);
  X << 2, 1, 3, 1;
  Eigen::RowVectorXd y = Eigen::RowVectorXd::Zero(2);
  Eigen::MatrixXd Z = test::embedded(shape, X, y);
  ForwardWorkspace ws;
  const auto s = sja::appH_schedule(d, 3);
  // scratch (rows 3, 4) of column 0 after each step
  const double want[9][2] = {{0, 0}, {4, 6}, {8, 12}, {0, 0}, {4, 6}, {12, 18}, {0, 0}, {6, 9}, {18, 27}};
  for (std::size_t k = 0; k < 9; ++k) {
    sja::appH_layer(d, s[k]).apply(Z, ws);
    CHECK(Z(3, 0) == doctest::Approx(want[k][0]));
    CHECK(Z(4, 0) == doctest::Approx(want[k][1]));
    CHECK(Z.topRows(3).col(0) == Eigen::Vector3d(1, 2, 3));  // 1 and x carried by the residual
  }
}

TEST_CASE("symbolic forward: the multiply layer turns x1 x[k] into x1^2 x[k] exactly") {
  const int d = 2;
  auto rows = sja_feature_rows<double>(d, sja::appG_width(d));
  apply_symbolic(sja::appH_generate(d, 1), rows);
  apply_symbolic(sja::appH_multiply(d, 1), rows);
  Exponent e;
  REQUIRE(is_unit_monomial(rows[3], e));
  CHECK(e == Exponent{3, 0});
  REQUIRE(is_unit_monomial(rows[4], e));
  CHECK(e == Exponent{2, 1});
  apply_symbolic(sja::appH_clear(d), rows);
  CHECK(rows[3].terms().empty());
  CHECK(rows[4].terms().empty());
  // generate on a non-cleared scratch would not give a monomial: the check can fail
  apply_symbolic(sja::appH_generate(d, 2), rows);
  apply_symbolic(sja::appH_generate(d, 1), rows);
  CHECK_FALSE(is_unit_monomial(rows[3], e));
}

}  // namespace test_sja_appH
