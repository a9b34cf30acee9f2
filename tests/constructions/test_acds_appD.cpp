// acds App. D's baselines (constructions/acds_appD.hpp) where the answer is known: the step-size grid's ends, the
// preconditioned baseline's exact loss is the grid's minimum of the exact family loss and the per-step optimum is no
// worse, and the paired test of a network against itself gives a difference of exactly 0.
#include "constructions/acds_appD.hpp"
#include "constructions/acds_forms.hpp"
#include "constructions/acds_training.hpp"
#include "icl/exact/acds_family_loss.hpp"
#include "icl/learn/prompts.hpp"
#include "icl/model/prompt.hpp"

#include <doctest/doctest.h>

namespace test_acds_appD {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("acds App. D: the eta grid, the preconditioned baseline's exact minimum, a network against itself") {
  const std::vector<double> grid = acds_exp::appD_eta_grid();
  REQUIRE(grid.size() == 81);
  CHECK(grid.front() == doctest::Approx(0.01));
  CHECK(grid.back() == doctest::Approx(3.0));

  ClaimContext ctx;
  ctx.claim_id = "test.appD";
  ctx.seed = 3;
  ctx.threads = 2;
  ctx.samples = 2048;
  const int d = 5, n = 10, L = 1;
  const Eigen::MatrixXd sigma = Eigen::MatrixXd::Identity(d, d);
  const learn::PromptSource source = learn::gaussian_prompts(inverse_weight_model(sigma), acds_shape(d, n));
  const learn::Parameterisation gd = learn::acds_family(d, L, sigma, false);
  const acds_exp::Baselines b = acds_exp::appD_baselines(ctx, n, L, "point", source, gd);
  const ReducedFamilyLoss fam(d, n, L, false);
  Eigen::VectorXd g;
  double best = INFINITY;
  for (double eta : grid) best = std::min(best, fam(Eigen::VectorXd::Constant(L, eta), g));
  CHECK(b.pre_exact == best);
  CHECK(b.per_step <= b.pre_exact * (1 + 1e-12));
  CHECK(b.pre_exact < d);  // one good step beats predicting 0 (loss E[y^2] = d)

  const learn::Network net = gd.network(Eigen::VectorXd::Constant(L, b.pre_eta));
  const learn::Network nets[3] = {net, net, gd.network(Eigen::VectorXd::Constant(L, b.gd_eta))};
  const acds_exp::PairedTest m = acds_exp::appD_paired_test(ctx, n, "point", source, nets, 0.01);
  CHECK(m.diff.mean == 0.0);
  CHECK(m.trained.mean == m.pre.mean);
  CHECK(m.ols.mean < 1e-20);  // n >= d, noiseless labels: least squares recovers w
  CHECK(m.trained.mean == doctest::Approx(b.pre_exact).epsilon(0.15));  // Monte Carlo of the exact loss, 2048 prompts
}

}  // namespace test_acds_appD
