// acds Thm. 1's trained single layer (constructions/acds_appA.hpp) on a tiny setting where the answer is known
// independently: the exact optimum of the sparse form (exact/optimal_attention.hpp, from exact moments) is what the
// trainer should approach, and no trained layer can have a lower exact loss than it. trained_check judges a run made
// up for it: within and beyond the tolerance, and a diverged run (inconclusive with its reason).
#include "constructions/acds_appA.hpp"
#include "constructions/acds_forms.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"

#include <doctest/doctest.h>

namespace test_acds_appA {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("acds train_single_layer: -A_0 approaches the exact optimal Gamma (d = 2, n = 10, isotropic, quick schedule)") {
  ClaimContext ctx;
  ctx.claim_id = "test.appA";
  ctx.seed = 4;
  ctx.threads = 2;
  ctx.quick = true;
  const int d = 2, n = 10;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), Eigen::MatrixXd::Identity(d, d));
  const FeatureMoments fm = model_feature_moments(model, identity_features(d));
  const Eigen::MatrixXd G = optimal_sparse_gamma(fm, n);
  const double L_opt = sparse_lsa_loss(fm, G, n);

  const acds::SingleLayerTraining t = acds::train_single_layer(ctx, "tiny", model, d, n, fm, G);
  REQUIRE(t.result.ok());
  CHECK(t.config.steps == 300);
  CHECK(t.config.batch == 1000);
  CHECK(t.result.steps_done == 300);
  CHECK((t.gamma + learn::acds_form8(d, 1).group_matrix("A_0", t.result.theta)).cwiseAbs().maxCoeff() == 0.0);
  INFO("trained:\n" << t.gamma << "\nexact optimum:\n" << G);
  CHECK(t.relative == doctest::Approx((t.gamma - G).norm() / G.norm()));
  CHECK(t.relative < 0.05);
  CHECK(t.exact_loss == sparse_lsa_loss(fm, t.gamma, n));
  CHECK(t.exact_loss >= L_opt * (1 - 1e-12));  // the optimum is the optimum
  CHECK(t.exact_loss <= L_opt * 1.002);
  // At the start (A_0 ~ N(0, 0.1^2)) the layer was far from it: training moved it there.
  CHECK(t.result.curve.train_loss.front() > 1.2 * L_opt);

  // The same seed trains the same layer.
  const acds::SingleLayerTraining again = acds::train_single_layer(ctx, "tiny", model, d, n, fm, G);
  CHECK((again.gamma - t.gamma).cwiseAbs().maxCoeff() == 0.0);

  ClaimRun r(ctx);
  acds::report_training(r, t, "tiny");
  CHECK(r.result().extra.contains("training"));
  CHECK(r.result().files.count("training.svg") == 1);
}

TEST_CASE("acds trained_check: the trained matrix against the target, a diverged run inconclusive") {
  acds::SingleLayerTraining t;
  t.config.batch = 100;
  t.result.steps_done = 40;
  t.gamma = Eigen::MatrixXd::Identity(2, 2);
  t.relative = 0.01;
  t.exact_loss = 1.5;
  const argmin_gamma::Extra e = acds::trained_check(t, 0.05);
  CHECK(e.name == "trained_matrix");
  CHECK(e.label == "Training");
  CHECK(e.decision.verdict == Verdict::confirmed);
  CHECK(e.decision.band == 0.05);
  CHECK(e.decision.why.rfind("trained (Adam, 40 steps, batch 100): ||trained - Q0 block||_F / ||Q0 block||_F", 0) == 0);
  CHECK(e.decision.why.find("; its exact loss 1.5") != std::string::npos);
  CaseJson j(Case{{{"d", 2.0}}});
  e.quantities(j);
  CHECK(j.json()["quantities"]["trained_relative_difference"]["value"] == 0.01);
  CHECK(j.json()["quantities"]["trained_exact_loss"]["value"] == 1.5);
  CHECK(j.json()["quantities"].contains("trained_matrix"));
  CHECK(j.json().contains("training_run"));

  t.relative = 0.2;
  CHECK(acds::trained_check(t, 0.05).decision.verdict == Verdict::refuted);
  t.result.status = learn::TrainStatus::diverged;
  t.result.reason = "loss is NaN at step 12";
  const Decision diverged = acds::trained_check(t, 0.05).decision;
  CHECK(diverged.verdict == Verdict::inconclusive);
  CHECK(diverged.why == "training diverged: loss is NaN at step 12");
}

}  // namespace test_acds_appA
