// verdict/loss_check.hpp: the loss of the optimal sparse layer (exact/optimal_attention.hpp, acds convention, d = 2,
// isotropic, n = 5) through the forward pass against its exact value (sparse_lsa_loss), against a wrong stated value,
// and the same outcome as sequential_equality run by hand on ModelPromptWorker.
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/verdict/loss_check.hpp"

#include <doctest/doctest.h>

namespace test_loss_check {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("forward_loss_equality: the optimal sparse layer's loss, a wrong stated value, and the hand-made check") {
  const int d = 2, n = 5;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), Eigen::MatrixXd::Identity(d, d));
  const FeatureMoments fm = model_feature_moments(model, identity_features(d));
  const Eigen::MatrixXd G = optimal_sparse_gamma(fm, n);
  const double L = sparse_lsa_loss(fm, G, n);
  LinearSelfAttention a;  // P = e e^T, Q = [Gamma, 0; 0, 0]
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = 1.0;
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d) = G;
  Transformer net;
  net.layers.emplace_back(a);
  const PromptShape shape = acds_shape(d, n);
  SamplingPlan plan;
  plan.seed = 5;
  plan.threads = 2;
  plan.samples = 65536;
  const Tolerance tol{0.05, 0.0}, exact_tol{1e-9, 1e-12};

  const EqualityOutcome o = forward_loss_equality(plan, 0.01, net, model, shape, 9, L, L, tol, exact_tol, 4096, 16384);
  INFO(o.verdict.why);
  CHECK(o.verdict.verdict == Verdict::confirmed);
  CHECK(o.mc.mean == doctest::Approx(L).epsilon(0.05));
  CHECK(o.looks_planned == sequential_looks(4096, 65536).size());
  CHECK(o.mc.samples >= 16384);  // no look stops before min_samples

  auto make_worker = [&] { return ModelPromptWorker(net, model, shape, 5, 9); };
  const EqualityOutcome h = sequential_equality(plan, 0.01, L, L, tol, exact_tol, 1, 0, 4096, make_worker, 16384);
  CHECK(h.mc.mean == o.mc.mean);
  CHECK(h.looks_used == o.looks_used);
  CHECK(h.verdict.why == o.verdict.why);

  // 30% above the exact value: the exact value and Monte Carlo both exclude it.
  const EqualityOutcome wrong = forward_loss_equality(plan, 0.01, net, model, shape, 9, 1.3 * L, L, tol, exact_tol, 4096,
                                                      16384);
  CHECK(wrong.verdict.verdict == Verdict::refuted);
  // Without an exact value, Monte Carlo alone judges the stated value.
  const EqualityOutcome alone = forward_loss_equality(plan, 0.01, net, model, shape, 9, L, std::nullopt, tol, Tolerance{},
                                                      16384, 16384);
  CHECK(alone.mc_vs_stated.verdict == Verdict::confirmed);
  CHECK(!alone.exact_vs_stated);
}

}  // namespace test_loss_check
