// sja App. G stack on hand-computable prompts (d = 1 and d = 2, n = 1).
#include "constructions/sja_appG.hpp"
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

namespace test_sja_appG {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("App. G, d = 1, n = 1, Gamma = I: one block step by hand") {
  // rows 1, x, scratch, y; x_1 = 2, y_1 = 1, x_q = 3.
  const PromptShape s = sja_shape(1, sja::appG_width(1), 1);
  Eigen::MatrixXd X(1, 2);
  X << 2, 3;
  Eigen::RowVectorXd y(2);
  y << 1, 0;
  Eigen::MatrixXd Z = test::embedded(s, X, y);
  ForwardWorkspace ws;
  std::vector<Eigen::MatrixXd> seen;
  std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> obs =
      [&](int, const Eigen::Ref<const Eigen::MatrixXd>& Zk) { seen.push_back(Zk); };
  sja::appG_stack(1, {Eigen::MatrixXd::Identity(3, 3)}).forward(Z, ws, &obs);
  REQUIRE(seen.size() == 2);
  CHECK(seen[0](2, 0) == 4.0);  // x_1^2
  CHECK(seen[0](2, 1) == 9.0);  // x_q^2
  CHECK(seen[0](3, 0) == 1.0);  // label carried
  // attention: y_q += y_1 xbar_1 . xbar_q = 1 * (1 + 6 + 36) = 43; y_1 += 1 * (1 + 4 + 16) = 22.
  CHECK(Z(3, 1) == doctest::Approx(43.0));
  CHECK(Z(3, 0) == doctest::Approx(22.0));
  // BCD: w = -eta grad L(0) with eta = -Gamma^T = -I, grad = -(1/n) y_1 xbar_1, so w = (1, 2, 4).
  const auto mons = monomials_up_to(1, 2, 0);
  const auto it = block_coordinate_descent<double>(monomial_features<double>(mons, X.leftCols(1)),
                                                   -y.head(1).transpose(),
                                                   {{monomial_indices(mons, sja::appG_block(1, 1)),
                                                     -Eigen::MatrixXd::Identity(3, 3)}},
                                                   Eigen::VectorXd::Zero(3));
  CHECK(it[1][0] == doctest::Approx(1.0));
  CHECK(it[1][1] == doctest::Approx(2.0));
  CHECK(it[1][2] == doctest::Approx(4.0));
}

TEST_CASE("App. G, d = 2: the scratch rows cycle x[1] x, x[2] x, x[1] x") {
  const int d = 2;
  const PromptShape s = sja_shape(d, sja::appG_width(d), 1);
  Eigen::MatrixXd X(2, 2);
  X << 2, 1, 3, -1;
  Eigen::RowVectorXd y(2);
  y << 0.5, 0;
  Eigen::MatrixXd Z = test::embedded(s, X, y);
  ForwardWorkspace ws;
  std::vector<Eigen::MatrixXd> seen;
  std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> obs =
      [&](int, const Eigen::Ref<const Eigen::MatrixXd>& Zk) { seen.push_back(Zk); };
  const std::vector<Eigen::MatrixXd> G(3, Eigen::MatrixXd::Zero(5, 5));  // attention does nothing
  sja::appG_stack(d, G).forward(Z, ws, &obs);
  REQUIRE(seen.size() == 6);
  // column 0: x = (2, 3). After bilinear 1: (x1 x1, x2 x1) = (4, 6); 2: (x1 x2, x2 x2) = (6, 9); 3: (4, 6).
  CHECK(seen[0](3, 0) == 4.0);
  CHECK(seen[0](4, 0) == 6.0);
  CHECK(seen[2](3, 0) == 6.0);
  CHECK(seen[2](4, 0) == 9.0);
  CHECK(seen[4](3, 0) == 4.0);
  CHECK(seen[4](4, 0) == 6.0);
  // The weights as printed: W1~ of layer 2 is -E_1 + E_2.
  const BilinearLayer b2 = sja::appG_bilinear(d, 2);
  CHECK(b2.W1(3, 1) == -1.0);
  CHECK(b2.W1(3, 2) == 1.0);
  CHECK(b2.W0(4, 2) == 1.0);
  CHECK(b2.W0.topRows(3).isZero());
  const auto block = sja::appG_block(d, 2);  // 1, x1, x2, x1 x2, x2^2
  REQUIRE(block.size() == 5);
  CHECK(block[3] == Exponent{1, 1});
  CHECK(block[4] == Exponent{0, 2});
}

TEST_CASE("App. G, d = 2, random non-symmetric Gamma: prediction equals BCD with eta = -Gamma^T") {
  const int d = 2, n = 4, L = 3, dbar = sja::appG_width(d);
  std::vector<Eigen::MatrixXd> G;
  for (int l = 0; l < L; ++l) G.push_back(0.1 * test::random_matrix(dbar, dbar, 11 + l));
  auto [X, y, Z] = test::random_prompt(sja_shape(d, dbar, n), 11, 5);
  ForwardWorkspace ws;
  sja::appG_stack(d, G).forward(Z, ws);
  const auto mons = monomials_up_to(d, 2, 0);
  std::vector<BlockStep> steps, wrong;
  for (int l = 1; l <= L; ++l) {
    const auto b = monomial_indices(mons, sja::appG_block(d, l));
    steps.push_back({b, -G[l - 1].transpose()});
    wrong.push_back({b, -G[l - 1]});
  }
  const Eigen::MatrixXd F = monomial_features<double>(mons, X);
  const auto it = block_coordinate_descent<double>(F.leftCols(n), -y.head(n).transpose(), steps,
                                                   Eigen::VectorXd::Zero(6));
  const auto bad = block_coordinate_descent<double>(F.leftCols(n), -y.head(n).transpose(), wrong,
                                                    Eigen::VectorXd::Zero(6));
  const double ref = F.col(n).dot(it.back());
  CHECK(prediction(Z) == doctest::Approx(ref).epsilon(1e-12));
  CHECK(std::abs(prediction(Z) - F.col(n).dot(bad.back())) > 1e-6);  // the check can fail
  // context columns carry y_i + f(x_i; w^(L))
  for (int i = 0; i < n; ++i) CHECK(Z(dbar, i) == doctest::Approx(y[i] + F.col(i).dot(it.back())).epsilon(1e-12));
}

}  // namespace test_sja_appG
