// acds App. D's baselines (constructions/acds_appD.hpp) where the answer is known: the step-size grid's ends, the
// preconditioned baseline's exact loss is the grid's minimum of the exact family loss and the per-step optimum is no
// worse, and the paired test of a network against itself gives a difference of exactly 0.
#include "constructions/acds_appD.hpp"
#include "constructions/acds_forms.hpp"
#include "constructions/acds_training.hpp"
#include "icl/exact/acds_family_loss.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/optimizers.hpp"
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
  const icl::PromptSource source = icl::gaussian_prompts(inverse_weight_model(sigma), acds_shape(d, n));
  const icl::Parameterisation gd = learn::acds_family(d, L, sigma, false);
  const acds_exp::Baselines b = acds_exp::appD_baselines(ctx, n, L, "point", source, gd);
  const ReducedFamilyLoss fam(d, n, L, false);
  Eigen::VectorXd g;
  double best = INFINITY;
  for (double eta : grid) best = std::min(best, fam(Eigen::VectorXd::Constant(L, eta), g));
  CHECK(b.pre_exact == best);
  CHECK(b.per_step <= b.pre_exact * (1 + 1e-12));
  CHECK(b.pre_exact < d);  // one good step beats predicting 0 (loss E[y^2] = d)

  const icl::Network net = gd.network(Eigen::VectorXd::Constant(L, b.pre_eta));
  const icl::Network nets[3] = {net, net, gd.network(Eigen::VectorXd::Constant(L, b.gd_eta))};
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
  ctx.settings["protocol"] = 0;
  ctx.settings["figures"] = 67;
  for (int n : {10, 2})
    for (int L : {1, 3})
      ctx.cases.push_back(icl::Case{{{"n", double(n)}, {"L", double(L)}, {"steps", 40.0}, {"batch", 64.0}, {"lr", 0.02}, {"trials", 2.0}}});
  const icl::acds_exp::AppDGrid g = icl::acds_exp::appD_grid(ctx);
  REQUIRE(g.points.size() == 4);
  CHECK((g.points[0].n == 2 && g.points[0].L == 3 && g.points[0].part == "a"));
  CHECK((g.points[1].n == 10 && g.points[1].L == 3 && g.points[1].part == "a"));
  CHECK((g.points[2].n == 20 && g.points[2].L == 1 && g.points[2].part == "b"));
  CHECK((g.points[3].n == 20 && g.points[3].L == 3 && g.points[3].part == "b"));
  CHECK((g.steps == 40 && g.batch == 64 && g.lr == 0.02 && g.trials == 2 && !g.authors));
  // Ours: form (8) at the grid's settings; the authors' (protocol 1): form (11) at each figure's own (issue 65).
  const icl::acds_exp::RunSettings ours = icl::acds_exp::appD_settings(g.points[2], g);
  CHECK((!ours.form11 && ours.steps == 40 && ours.batch == 64 && ours.lr_decay_every == 10 && ours.select_last == 0));
  ctx.settings["protocol"] = 1;
  const icl::acds_exp::AppDGrid a = icl::acds_exp::appD_grid(ctx);
  REQUIRE(a.authors);
  const icl::acds_exp::RunSettings fig7 = icl::acds_exp::appD_settings(a.points[2], a);
  CHECK((fig7.form11 && fig7.steps == 20000 && fig7.batch == 20000 && fig7.resample == 100 && fig7.clip == 0.01));
  CHECK((fig7.learning_rate == 0.01 && fig7.lr_decay_every == 4000 && fig7.beta1 == 0.99 && fig7.beta2 == 0.9));
  CHECK((fig7.init_sd == 1e-4 && fig7.select_last == 20));
  const icl::acds_exp::RunSettings fig6 = icl::acds_exp::appD_settings(a.points[0], a);  // n = 2 < 5: lr 0.001
  CHECK((fig6.steps == 8000 && fig6.batch == 40000 && fig6.resample == 1 && fig6.clip == 0.001));
  CHECK((fig6.learning_rate == 0.001 && fig6.lr_decay_every == 2000 && fig6.beta2 == 0.99 && fig6.select_last == 10));
  CHECK(icl::acds_exp::appD_settings(a.points[1], a).learning_rate == 0.01);  // n = 10
  CHECK(icl::acds_exp::appD_tag(a.points[2], 0) == "n=20, L=1");
  CHECK(icl::acds_exp::appD_tag(a.points[2], 3) == "n=20, L=1, trial=3");
  ctx.settings["figures"] = 7;  // Fig. 7 alone: part b's points
  const icl::acds_exp::AppDGrid seven = icl::acds_exp::appD_grid(ctx);
  REQUIRE(seven.points.size() == 2);
  CHECK((seven.points[0].part == "b" && seven.points[1].part == "b"));
}

}  // namespace test_acds_appD_grid

namespace test_acds_appD_case {  // named: a unity build compiles several test files as one unit

TEST_CASE("acds App. D case, figure row and training block: the point's numbers under their keys, in order") {
  using namespace icl;
  const acds_exp::AppDPoint pt{20, 2, "b"};
  std::vector<acds_exp::AppDTrial> trials(2);
  trials[0].b = acds_exp::Baselines{0.7, 0.25, 0.2, 0.4};  // pre_eta, pre_exact, per_step, gd_eta
  trials[0].m.trained.mean = 0.24, trials[0].m.gd.mean = 0.9, trials[0].m.ols.mean = 0.5, trials[0].m.diff.mean = -0.01;
  trials[0].trained = false;  // left out of the figure's means; the case's quantities are the first trained trial's
  trials[1] = trials[0];
  trials[1].trained = true;
  trials[1].m.trained.mean = 0.26;
  CaseJson j = acds_exp::appD_case(pt, trials);
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
  CHECK(c["quantities"]["mc"]["mean"] == 0.26);
  CHECK(c["trained_trials"] == 1);
  CHECK(c["trials"].size() == 2);
  CHECK(c.contains("training_run"));
  const nlohmann::ordered_json row = acds_exp::appD_figure_row(pt, trials);
  CHECK(row["L"] == 2);
  CHECK(row["trained"] == 0.26);
  CHECK(row["precond_gd"] == 0.25);
  CHECK(row["precond_per_step"] == 0.2);
  ClaimContext ctx;
  ctx.claim_id = "test.appD";
  const std::vector<acds_exp::RunOutcome> outs(2);
  acds_exp::AppDGrid g{{pt, pt}, 400, 1000, 0.02};
  nlohmann::ordered_json t = acds_exp::appD_training_json(ctx, g, outs);
  CHECK(t["trials"] == 1);
  CHECK(t["paper_settings_differences"].get<std::string>().rfind("minibatch 1000 (paper 20000, Sec. 4.3); ", 0) == 0);
  CHECK(t["paper_settings_differences"].get<std::string>().find("400 steps, learning rate 0.02 halved every 100 steps") !=
        std::string::npos);
  g.batch = 20000;
  CHECK(acds_exp::appD_training_json(ctx, g, outs)["paper_settings_differences"].get<std::string>().rfind(
            "minibatch 20000 as Sec. 4.3", 0) == 0);
  g.authors = true;
  CHECK(acds_exp::appD_training_json(ctx, g, outs)["paper_settings_differences"].get<std::string>().find(
            "variable_L_exp.ipynb") != std::string::npos);
}

}  // namespace test_acds_appD_case

namespace test_acds_family_optimum {  // named: a unity build compiles several test files as one unit

using namespace icl;

// The Thm. 3 family's optimum is per layer (issue 65): the loss is symmetric in the a_i, so an L-BFGS search started
// on the diagonal stays on it and finds the best common step (0.2683 at n = 20, L = 3), not the optimum (about 0.133
// at a ~ (0.42, 0.69, 1.71); L = 4: 0.0550 at a ~ (0.36, 0.52, 0.89, 2.14)). The stationary equations' solution is
// checked against a search from non-symmetric starts, and its gradient is 0.
TEST_CASE("acds Thm. 3 family optimum: per-layer steps from the stationary equations, below the best common step") {
  const int d = 5, n = 20;
  const ReducedFamilyLoss fam3(d, n, 3, false);
  const FamilyOptimum o3 = reduced_family_optimum(d, n, 3);
  CHECK(o3.loss == doctest::Approx(0.133).epsilon(0.01));
  CHECK(o3.a[0] == doctest::Approx(0.42).epsilon(0.02));
  CHECK(o3.a[1] == doctest::Approx(0.69).epsilon(0.02));
  CHECK(o3.a[2] == doctest::Approx(1.71).epsilon(0.02));
  CHECK(o3.max_root_imag < 1e-9);
  CHECK(o3.gradient_norm < 1e-9);
  CHECK(acds_exp::family_optimum(d, n, 3) == o3.loss);
  const FamilyOptimum o4 = reduced_family_optimum(d, n, 4);
  CHECK(o4.loss == doctest::Approx(0.0550).epsilon(0.01));
  CHECK(o4.a[0] == doctest::Approx(0.36).epsilon(0.03));
  CHECK(o4.a[3] == doctest::Approx(2.14).epsilon(0.02));
  CHECK(o4.gradient_norm < 1e-9);

  // The best common step (the old search's answer) is much worse, and no search from non-symmetric starts goes below
  // the optimum.
  Eigen::VectorXd g;
  double common = INFINITY;
  for (double eta : acds_exp::appD_eta_grid()) common = std::min(common, fam3(Eigen::VectorXd::Constant(3, eta), g));
  CHECK(common == doctest::Approx(0.2683).epsilon(0.01));
  const learn::Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& th, Eigen::VectorXd& gr) { return fam3(th, gr); };
  for (const Eigen::Vector3d& start : {Eigen::Vector3d(0.2, 0.5, 1.5), Eigen::Vector3d(2.0, 0.3, 0.8), Eigen::Vector3d(0.9, 1.1, 0.1)}) {
    learn::LbfgsOptions lo;
    lo.max_iterations = 500;
    lo.gradient_tolerance = 1e-12;
    const double l = learn::minimize_lbfgs(f, start, lo).loss;
    CHECK(l >= o3.loss * (1 - 1e-9));
  }
  // L = 1: the one-layer optimum is the best single step, a = m_1 / m_2.
  const FamilyOptimum o1 = reduced_family_optimum(d, n, 1);
  const std::vector<double> m = wishart_trace_moments(d, n, 2);
  CHECK(o1.a[0] == doctest::Approx(m[1] / m[2]).epsilon(1e-12));
  CHECK(o1.loss == doctest::Approx(m[0] - m[1] * m[1] / m[2]).epsilon(1e-12));
}

}  // namespace test_acds_family_optimum
