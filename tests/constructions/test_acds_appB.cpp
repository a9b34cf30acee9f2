// acds Thm. 2's diagonal form and pair search (constructions/acds_forms.hpp acds_form8_diagonal,
// constructions/acds_appB.hpp search_pairs), checked independently: the diagonal form is form (8) with diagonal A_i
// (same weights, same exact loss as the full form at those A_i); for d = 1 every symmetric pair is diagonal, so both
// searches must find the same minimum, and a brute-force grid over (a_1, a_2) finds nothing lower. pair_shape on
// pairs whose commutator, eigenbasis mass and distance from multiples of I are known by hand; Theorem 2's searches
// (search_symmetric_and_diagonal) at d = 1 against search_pairs, and best_pairs / pair_look on them.
#include "constructions/acds_appB.hpp"
#include "constructions/acds_forms.hpp"
#include "icl/claim/case_json.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace test_acds_appB {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("acds_form8_diagonal: form (8) with diagonal A_i, the same network and exact loss as the full form") {
  const int d = 3, L = 2, n = 4;
  const icl::Parameterisation diag = learn::acds_form8_diagonal(d, L), full = learn::acds_form8(d, L);
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
  const icl::Parameterisation sym = learn::acds_form8(d, 2, true), diag = learn::acds_form8_diagonal(d, 2);
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

TEST_CASE("acds pair_shape: commuting and non-commuting pairs, by hand") {
  Eigen::MatrixXd A1(2, 2), A2(2, 2), S(2, 2);
  A1 << 1, 0, 0, 2;
  A2 << 3, 0, 0, 4;
  S << 0, 1, 1, 0;
  const acds::PairShape both_diagonal = acds::pair_shape(A1, A2);
  CHECK(both_diagonal.commutator == 0.0);
  CHECK(both_diagonal.offdiagonal == doctest::Approx(0.0));
  // A1 - 1.5 I = diag(-1/2, 1/2): sqrt(1/2) / sqrt(5); A2 - 3.5 I: sqrt(1/2) / 5.
  CHECK(both_diagonal.scalar_residual == doctest::Approx(std::sqrt(0.5 / 5)));
  // [A1, S] = [[0, -1], [1, 0]]: sqrt(2) / (sqrt(5) sqrt(2)); S is wholly off-diagonal in A1's eigenbasis.
  const acds::PairShape swapped = acds::pair_shape(A1, S);
  CHECK(swapped.commutator == doctest::Approx(1 / std::sqrt(5.0)));
  CHECK(swapped.offdiagonal == doctest::Approx(1.0));
  CHECK(swapped.scalar_residual == doctest::Approx(1.0));  // S has trace 0
  const Eigen::MatrixXd I3 = Eigen::MatrixXd::Identity(3, 3);
  const acds::PairShape scalar = acds::pair_shape(2 * I3, -I3);
  CHECK(scalar.scalar_residual == 0.0);
  const family_argmin::Look look = acds::pair_look(swapped);
  CHECK(look.sentence == "Best symmetric pair: commutator 4.5e-01, off-diagonal mass in A_1's eigenbasis 1.0e+00, "
                         "distance from multiples of I 1.0e+00");
  CHECK(look.tallied == swapped.scalar_residual);
  CaseJson j(Case{{{"d", 2.0}}});
  look.quantities(j);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.json()["quantities"].items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"commutator", "offdiagonal_in_eigenbasis", "scalar_residual", "best_A1",
                                          "best_A2", "diagonal_A1", "diagonal_A2"});
}

TEST_CASE("acds search_symmetric_and_diagonal: d = 1, the two searches of search_pairs, and the best pairs") {
  ClaimContext ctx;
  ctx.claim_id = "test.appB";
  ctx.seed = 2;
  const int d = 1, n = 5, starts = 3;
  const family_argmin::Searches f = acds::search_symmetric_and_diagonal(ctx, d, n, starts, "case");
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
  const AcdsPopulation pop(I, I, n, 2, false);
  const StartsMinimum g = acds::search_pairs(pop, learn::acds_form8(d, 2, true), starts, ctx, "case/symmetric");
  REQUIRE(f.general.converged > 0);
  REQUIRE(f.restricted.converged > 0);
  CHECK(f.general.best.loss == g.best.loss);
  CHECK(f.restricted.best.loss == doctest::Approx(g.best.loss).epsilon(1e-12));
  CHECK(f.shape.rows() == d + 1);
  CHECK(f.model.d == d);
  const Transformer net = f.restricted_network(f.restricted.best.theta);
  CHECK(net.weight(0, "Q")(0, 0) == -f.restricted.best.theta[0]);
  const acds::PairShape p = acds::best_pairs(d, f, true);
  CHECK(p.A1(0, 0) == learn::acds_form8(d, 2, true).group_matrix("A_0", f.general.best.theta)(0, 0));
  CHECK(p.diagonal_A2(0, 0) == f.restricted.best.theta[1]);
  CHECK(p.scalar_residual == 0.0);  // every 1 x 1 matrix is a multiple of I
  CHECK(std::isnan(acds::best_pairs(d, f, false).A1(0, 0)));
}

}  // namespace test_acds_appB
