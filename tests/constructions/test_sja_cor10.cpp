// sja Cor. 10 stack on a hand-computable network (d = 1, h = 1: the hidden unit computes x^2).
#include "constructions/sja_cor10.hpp"
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/exact/symbolic_forward.hpp"
#include "icl/model/prompt.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

namespace test_sja_cor10 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("Cor. 10, d = 1, h = 1, hidden = x^2, Gamma = I: one block step by hand") {
  sja::FeatureNetwork net;
  net.d = 1;
  net.h = 1;
  Eigen::MatrixXd a(1, 3);
  a << 0, 1, 0;  // reads x
  net.A0 = {a};
  net.A1 = {a};
  // symbolic: the hidden row is x^2
  auto rows = sja_feature_rows<double>(1, 3);
  apply_symbolic(net.layer(0), rows);
  Exponent e;
  REQUIRE(is_unit_monomial(rows[2], e));
  CHECK(e == Exponent{2});
  // x_1 = 2, y_1 = 1, x_q = 3: as in App. G, yhat = y_1 (1, 2, 4).(1, 3, 9) = 43
  const PromptShape s = sja_shape(1, 3, 1);
  Eigen::MatrixXd X(1, 2);
  X << 2, 3;
  Eigen::RowVectorXd y(2);
  y << 1, 0;
  Eigen::MatrixXd Z = test::embedded(s, X, y);
  ForwardWorkspace ws;
  sja::cor10_stack(net, {Eigen::MatrixXd::Identity(3, 3)}).forward(Z, ws);
  CHECK(prediction(Z) == doctest::Approx(43.0));
  // BCD on (1, x, x^2) with eta = -I
  Eigen::MatrixXd Phi(3, 1);
  Phi << 1, 2, 4;
  const auto it = block_coordinate_descent<double>(Phi, -y.head(1).transpose(), {{{0, 1, 2}, -Eigen::MatrixXd::Identity(3, 3)}},
                                                   Eigen::VectorXd::Zero(3));
  CHECK(Eigen::Vector3d(1, 3, 9).dot(it[1]) == doctest::Approx(43.0));
}

TEST_CASE("Cor. 10: a layer writes only the hidden rows") {
  sja::FeatureNetwork net;
  net.d = 2;
  net.h = 2;
  net.A0 = {Eigen::MatrixXd::Ones(2, 5)};
  net.A1 = {Eigen::MatrixXd::Ones(2, 5)};
  const BilinearLayer b = net.layer(0);
  CHECK(b.W0.topRows(3).isZero());
  CHECK(b.W1.bottomRows(2).isOnes());
}

}  // namespace test_sja_cor10
