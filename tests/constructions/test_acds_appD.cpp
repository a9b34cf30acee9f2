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

namespace test_acds_appD_grid {  // named: a unity build compiles several test files as one unit

TEST_CASE("acds App. D grid: Fig. 6's n at L = 3 (part a), then Fig. 7's L at n = 20 (part b), the training settings") {
  icl::ClaimContext ctx;
  for (int n : {10, 2})
    for (int L : {1, 3})
      ctx.cases.push_back(icl::Case{{{"n", double(n)}, {"L", double(L)}, {"steps", 40.0}, {"batch", 64.0}, {"lr", 0.02}}});
  const icl::acds_exp::AppDGrid g = icl::acds_exp::appD_grid(ctx);
  REQUIRE(g.points.size() == 4);
  CHECK((g.points[0].n == 2 && g.points[0].L == 3 && g.points[0].part == "a"));
  CHECK((g.points[1].n == 10 && g.points[1].L == 3 && g.points[1].part == "a"));
  CHECK((g.points[2].n == 20 && g.points[2].L == 1 && g.points[2].part == "b"));
  CHECK((g.points[3].n == 20 && g.points[3].L == 3 && g.points[3].part == "b"));
  CHECK((g.steps == 40 && g.batch == 64 && g.lr == 0.02));
}

}  // namespace test_acds_appD_grid

namespace test_acds_appD_case {  // named: a unity build compiles several test files as one unit

TEST_CASE("acds App. D case, figure row and training block: the point's numbers under their keys, in order") {
  using namespace icl;
  const acds_exp::AppDPoint pt{20, 2, "b"};
  const acds_exp::Baselines b{0.7, 0.25, 0.2, 0.4};  // pre_eta, pre_exact, per_step, gd_eta
  acds_exp::PairedTest m;
  m.trained.mean = 0.24, m.gd.mean = 0.9, m.ols.mean = 0.5, m.diff.mean = -0.01;
  const std::vector<acds_exp::RunOutcome> outs(2);
  CaseJson j = acds_exp::appD_case(pt, outs[0], b, m);
  const nlohmann::ordered_json& c = j.json();
  CHECK(c["params"]["n"] == 20);
  CHECK(c["part"] == "b");
  std::vector<std::string> keys;
  for (const auto& [k, v] : c["quantities"].items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"stated", "mc", "precond_gd_exact", "precond_gd_mc", "precond_gd_eta",
                                         "precond_per_step_optimum", "gd_mc", "gd_eta", "ols_mc",
                                         "trained_minus_precond"});
  CHECK(c["quantities"]["stated"]["value"] == 0.25);  // the bound is the preconditioned baseline's exact loss
  CHECK(c["quantities"]["gd_eta"]["value"] == 0.4);
  CHECK(c.contains("training_run"));
  const nlohmann::ordered_json row = acds_exp::appD_figure_row(pt, b, m);
  CHECK(row["L"] == 2);
  CHECK(row["trained"] == 0.24);
  CHECK(row["precond_gd"] == 0.25);
  CHECK(row["precond_per_step"] == 0.2);
  ClaimContext ctx;
  ctx.claim_id = "test.appD";
  acds_exp::AppDGrid g{{pt, pt}, 400, 1000, 0.02};
  nlohmann::ordered_json t = acds_exp::appD_training_json(ctx, g, outs);
  CHECK(t["trials"] == 2);
  CHECK(t["paper_settings_differences"].get<std::string>().rfind("minibatch 1000 (paper 20000, Sec. 4.3); ", 0) == 0);
  CHECK(t["paper_settings_differences"].get<std::string>().find("400 steps, learning rate 0.02 halved every 100 steps") !=
        std::string::npos);
  g.batch = 20000;
  CHECK(acds_exp::appD_training_json(ctx, g, outs)["paper_settings_differences"].get<std::string>().rfind(
            "minibatch 20000 as Sec. 4.3", 0) == 0);
}

}  // namespace test_acds_appD_case
