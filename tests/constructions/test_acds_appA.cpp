// acds Thm. 1's trained single layer (constructions/acds_appA.hpp) on a tiny setting where the answer is known
// independently: the exact optimum of the sparse form (exact/optimal_attention.hpp, from exact moments) is what the
// trainer should approach, and no trained layer can have a lower exact loss than it.
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

}  // namespace test_acds_appA
