// The block-coordinate-descent / preconditioned-GD reference on its own: hand-computed gradients and
// steps, and convergence to a direct least-squares solve.
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"

#include <doctest/doctest.h>

namespace test_block_coordinate_descent {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("least_squares_gradient: hand-computed case") {
  // Two examples in R^2: phi_1 = (1, 2), t_1 = 1; phi_2 = (3, -1), t_2 = 0; w = (1, 1).
  Eigen::MatrixXd Phi(2, 2);
  Phi << 1, 3, 2, -1;
  Eigen::VectorXd t(2), w(2);
  t << 1, 0;
  w << 1, 1;
  // residuals: 1 + 2 - 1 = 2 and 3 - 1 - 0 = 2; grad = (1/2)(2 (1,2) + 2 (3,-1)) = (4, 1).
  const Eigen::VectorXd g = least_squares_gradient<double>(Phi, t, w);
  CHECK(g[0] == doctest::Approx(4.0).epsilon(1e-15));
  CHECK(g[1] == doctest::Approx(1.0).epsilon(1e-15));
}

TEST_CASE("block step moves only its block, with eta applied to the block gradient") {
  Eigen::MatrixXd Phi(3, 2);
  Phi << 1, 3, 2, -1, 0, 1;
  Eigen::VectorXd t(2);
  t << 1, 0;
  Eigen::MatrixXd eta(2, 2);
  eta << 1, 2, 0, 1;  // not symmetric: the order of eta * g matters
  const auto it = block_coordinate_descent<double>(Phi, t, {{{2, 0}, eta}}, Eigen::VectorXd::Zero(3));
  REQUIRE(it.size() == 2);
  // grad at 0 = (1/2)(-1)(1, 2, 0) = (-0.5, -1, 0); block (2, 0) gradient = (0, -0.5);
  // eta * (0, -0.5) = (-1, -0.5): w_2 = 1, w_0 = 0.5, w_1 untouched.
  CHECK(it[1][0] == doctest::Approx(0.5));
  CHECK(it[1][1] == 0.0);
  CHECK(it[1][2] == doctest::Approx(1.0));
}

TEST_CASE("one Newton step (eta = (Phi Phi^T / n)^-1) lands on the least-squares solution") {
  PromptRng rng(7, 1, 0);
  Eigen::MatrixXd Phi(4, 30);
  rng.fill_normal(Phi);
  Eigen::VectorXd t(30);
  rng.fill_normal(t);
  const Eigen::MatrixXd H = Phi * Phi.transpose() / 30.0;
  const auto it = preconditioned_gradient_descent<double>(Phi, t, {H.inverse()});
  const Eigen::VectorXd ls = Phi.transpose().colPivHouseholderQr().solve(t);
  CHECK((it[1] - ls).norm() / ls.norm() < 1e-12);
}

TEST_CASE("cyclic exact block minimisation over overlapping blocks converges to least squares") {
  PromptRng rng(7, 2, 0);
  Eigen::MatrixXd Phi(5, 40);
  rng.fill_normal(Phi);
  Eigen::VectorXd t(40);
  rng.fill_normal(t);
  const std::vector<std::vector<int>> blocks{{0, 1, 2}, {2, 3}, {3, 4, 0}};
  std::vector<BlockStep> steps;
  for (int sweep = 0; sweep < 200; ++sweep)
    for (const auto& b : blocks) {
      Eigen::MatrixXd Hb(b.size(), b.size());
      for (std::size_t i = 0; i < b.size(); ++i)
        for (std::size_t j = 0; j < b.size(); ++j) Hb(i, j) = Phi.row(b[i]).dot(Phi.row(b[j])) / 40.0;
      steps.push_back({b, Hb.inverse()});
    }
  const auto it = block_coordinate_descent<double>(Phi, t, steps, Eigen::VectorXd::Zero(5));
  const Eigen::VectorXd ls = Phi.transpose().colPivHouseholderQr().solve(t);
  CHECK((it.back() - ls).norm() / ls.norm() < 1e-10);
  // and long double agrees with double
  const auto itl = block_coordinate_descent<long double>(Phi.cast<long double>(), t.cast<long double>(), steps,
                                                         VectorS<long double>::Zero(5));
  CHECK((itl.back().cast<double>() - it.back()).norm() / ls.norm() < 1e-12);
}

TEST_CASE("plain gradient descent with a small step converges to least squares") {
  PromptRng rng(7, 3, 0);
  Eigen::MatrixXd Phi(3, 25);
  rng.fill_normal(Phi);
  Eigen::VectorXd t(25);
  rng.fill_normal(t);
  std::vector<Eigen::MatrixXd> A(3000, 0.3 * Eigen::MatrixXd::Identity(3, 3));
  const auto it = preconditioned_gradient_descent<double>(Phi, t, A);
  const Eigen::VectorXd ls = Phi.transpose().colPivHouseholderQr().solve(t);
  CHECK((it.back() - ls).norm() / ls.norm() < 1e-10);
}

TEST_CASE("monomial features and the quadratic-form matrix") {
  const auto mons = monomials_up_to(2, 2, 0);  // 1, x1, x2, x1^2, x1 x2, x2^2
  Eigen::MatrixXd X(2, 1);
  X << 2, 3;
  const Eigen::MatrixXd F = monomial_features<double>(mons, X);
  const std::vector<double> want{1, 2, 3, 4, 6, 9};
  REQUIRE(F.rows() == 6);
  for (int k = 0; k < 6; ++k) CHECK(F(k, 0) == want[static_cast<std::size_t>(k)]);
  Eigen::VectorXd w(6);
  w << 1, -2, 0.5, 3, 4, -1;
  const Eigen::MatrixXd W = quadratic_form_matrix(2, mons, w);
  Eigen::Vector3d v(1, 2, 3);
  CHECK(v.dot(W * v) == doctest::Approx(F.col(0).dot(w)));
  CHECK(W(1, 2) == doctest::Approx(2.0));  // x1 x2 coefficient 4 split in halves
  CHECK(monomial_indices(mons, {mons[4], mons[0]}) == std::vector<int>{4, 0});
}

}  // namespace test_block_coordinate_descent
