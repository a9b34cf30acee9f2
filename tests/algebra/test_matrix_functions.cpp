// Small matrix functions (lib/icl/algebra/matrix_functions.hpp): the inverse on a matrix's support.
#include "icl/algebra/matrix_functions.hpp"

#include <doctest/doctest.h>

namespace test_matrix_functions {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("inverse_on_support: inverts the rows and columns with a nonzero diagonal, zero elsewhere, scaled") {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(3, 3);
  M(0, 0) = 2, M(0, 2) = M(2, 0) = 1, M(2, 2) = 3;  // row and column 1 are zero
  const Eigen::MatrixXd g = inverse_on_support(M);
  CHECK(g(1, 1) == 0.0);
  CHECK(g.row(1).norm() == 0.0);
  CHECK(g.col(1).norm() == 0.0);
  // On the support {0, 2}: [[2, 1], [1, 3]]^-1 = [[3, -1], [-1, 2]] / 5.
  CHECK(g(0, 0) == doctest::Approx(0.6));
  CHECK(g(0, 2) == doctest::Approx(-0.2));
  CHECK(g(2, 2) == doctest::Approx(0.4));
  CHECK((M * g * M - M).norm() < 1e-14);  // a generalised inverse
  const Eigen::MatrixXd n = inverse_on_support(M, -1.0);
  CHECK((n + g).norm() == 0.0);
  CHECK_FALSE(std::signbit(n(1, 1)));  // entries off the support stay +0
  CHECK((inverse_on_support(Eigen::MatrixXd::Identity(2, 2)) - Eigen::MatrixXd::Identity(2, 2)).norm() == 0.0);
}

}  // namespace test_matrix_functions
