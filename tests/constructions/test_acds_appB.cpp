// acds Thm. 2's diagonal form and pair search (constructions/acds_forms.hpp acds_form8_diagonal,
// constructions/acds_appB.hpp search_pairs), checked independently: the diagonal form is form (8) with diagonal A_i
// (same weights, same exact loss as the full form at those A_i); for d = 1 every symmetric pair is diagonal, so both
// searches must find the same minimum, and a brute-force grid over (a_1, a_2) finds nothing lower.
#include "constructions/acds_appB.hpp"
#include "constructions/acds_forms.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

namespace test_acds_appB {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("acds_form8_diagonal: form (8) with diagonal A_i, the same network and exact loss as the full form") {
  const int d = 3, L = 2, n = 4;
  const learn::Parameterisation diag = learn::acds_form8_diagonal(d, L), full = learn::acds_form8(d, L);
  REQUIRE(diag.size() == L * d);
  Eigen::VectorXd theta(L * d);
  theta << 0.3, -0.2, 0.7, 0.1, 0.4, -0.5;
  const Transformer net = diag.network(theta);
  for (int l = 0; l < L; ++l) {
    const Eigen::MatrixXd A = Eigen::VectorXd(theta.segment(l * d, d)).asDiagonal();
    CHECK((diag.group_matrix(l == 0 ? "A_0" : "A_1", theta) - A).cwiseAbs().maxCoeff() == 0.0);
    Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(d + 1, d + 1), P = Eigen::MatrixXd::Zero(d + 1, d + 1);
    Q.topLeftCorner(d, d) = -A;
    P(d, d) = 1.0;
    CHECK((net.weight(l, "Q") - Q).cwiseAbs().maxCoeff() == 0.0);
    CHECK((net.weight(l, "P") - P).cwiseAbs().maxCoeff() == 0.0);
  }
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
  const AcdsPopulation pop(I, I, n, L, false);
  const Eigen::VectorXd theta_full = full.theta_from(net);
  CHECK(learn::acds_exact_loss(pop, diag, theta) == doctest::Approx(learn::acds_exact_loss(pop, full, theta_full)).epsilon(1e-14));
}

TEST_CASE("acds search_pairs: d = 1, the symmetric and diagonal searches agree and a grid finds nothing lower") {
  ClaimContext ctx;
  ctx.claim_id = "test.appB";
  ctx.seed = 2;
  const int d = 1, n = 5, starts = 4;
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
  const AcdsPopulation pop(I, I, n, 2, false);
  const learn::Parameterisation sym = learn::acds_form8(d, 2, true), diag = learn::acds_form8_diagonal(d, 2);
  const StartsMinimum g = acds::search_pairs(pop, sym, starts, ctx, "symmetric");
  const StartsMinimum dg = acds::search_pairs(pop, diag, starts, ctx, "diagonal");
  REQUIRE(g.converged > 0);
  REQUIRE(dg.converged > 0);
  CHECK(g.losses.size() == static_cast<std::size_t>(starts));
  CHECK(g.search.paths[0].start == "zero");
  CHECK(g.search.paths[1].start == "random N(0, 0.5^2) #1");
  CHECK(dg.best.loss == doctest::Approx(g.best.loss).epsilon(1e-12));
  CHECK(g.best.loss < d);  // below the loss of predicting 0, E[y^2] = d

  double grid = INFINITY;
  Eigen::VectorXd th(2), unused;
  for (int i = 0; i <= 120; ++i)
    for (int k = 0; k <= 120; ++k) {
      th << -2 + i / 30.0, -2 + k / 30.0;
      grid = std::min(grid, learn::acds_exact_loss(pop, diag, th));
    }
  INFO("search " << g.best.loss << ", grid " << grid);
  CHECK(grid >= g.best.loss * (1 - 1e-12));
  CHECK(grid <= g.best.loss * (1 + 1e-2));  // the grid comes close: the search found the grid's basin
}

}  // namespace test_acds_appB
