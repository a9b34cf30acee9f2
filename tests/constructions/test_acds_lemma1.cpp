// acds eq. (8) stack on hand-computable prompts (d = 1 and d = 2, n = 1).
#include "constructions/acds_lemma1.hpp"
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/model/prompt.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

namespace test_acds_lemma1 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("acds sparse layer, d = 1, n = 1: one GD step by hand") {
  // x_1 = 2, y_1 = 3 (w_* = 1.5), x_q = 1, A_0 = 0.25.
  const PromptShape s = acds_shape(1, 1);
  Eigen::MatrixXd X(1, 2);
  X << 2, 1;
  Eigen::RowVectorXd y(2);
  y << 3, 0;
  Eigen::MatrixXd Z = test::embedded(s, X, y);
  ForwardWorkspace ws;
  acds::sparse_stack({Eigen::MatrixXd::Constant(1, 1, 0.25)}).forward(Z, ws);
  // query: 0 - y_1 x_1 A x_q = -1.5; context: 3 - y_1 x_1 A x_1 = 0; x row unchanged.
  CHECK(Z(1, 1) == doctest::Approx(-1.5));
  CHECK(Z(1, 0) == doctest::Approx(0.0));
  CHECK(Z(0, 0) == 2.0);
  CHECK(Z(0, 1) == 1.0);
  // Lemma 1: w^1 = -A grad R(0) = 0.25 * 2 * 3 = 1.5 and the query entry is -x_q w^1.
  const auto w = preconditioned_gradient_descent<double>(X.leftCols(1), y.head(1).transpose(),
                                                         {Eigen::MatrixXd::Constant(1, 1, 0.25)});
  CHECK(-X(0, 1) * w[1][0] == doctest::Approx(Z(1, 1)));
}

TEST_CASE("acds sparse layer, d = 2: a non-symmetric A acts through its transpose") {
  // x_1 = (1, 0), y_1 = 1, x_q = (0, 1), A = [0 1; 0 0].
  const PromptShape s = acds_shape(2, 1);
  Eigen::MatrixXd X(2, 2);
  X << 1, 0, 0, 1;
  Eigen::RowVectorXd y(2);
  y << 1, 0;
  Eigen::MatrixXd A(2, 2);
  A << 0, 1, 0, 0;
  Eigen::MatrixXd Z = test::embedded(s, X, y);
  ForwardWorkspace ws;
  acds::sparse_stack({A}).forward(Z, ws);
  // The layer adds -(1/n) y_1 x_1^T A x_q = -A(0, 1) = -1 to the query entry.
  CHECK(Z(2, 1) == doctest::Approx(-1.0));
  const auto w_stated = preconditioned_gradient_descent<double>(X.leftCols(1), y.head(1).transpose(), {A});
  const auto w_transposed =
      preconditioned_gradient_descent<double>(X.leftCols(1), y.head(1).transpose(), {Eigen::MatrixXd(A.transpose())});
  const Eigen::VectorXd xq = X.col(1);
  CHECK(-xq.dot(w_stated[1]) == doctest::Approx(0.0));      // the recursion as stated misses it
  CHECK(-xq.dot(w_transposed[1]) == doctest::Approx(-1.0));  // with A^T it matches
}

}  // namespace test_acds_lemma1
