// The conditional Monte Carlo estimator (lib/icl/montecarlo/conditional_loss.hpp), which integrates the
// query exactly given the context: against the plain estimator and the exact loss, and its per-layer
// query maps against the real forward pass.
#include "constructions/sja_appC.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/montecarlo/least_squares_gamma.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/verdict/decision.hpp"

#include <doctest/doctest.h>

namespace test_conditional_loss {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("conditional Monte Carlo (query integrated exactly) agrees with the plain estimator and the exact loss") {
  const int d = 2, n = 6, dbar = sja::kernel_width(d);
  const auto task = PolynomialTask::quadratic(d);
  const auto model = GaussianIclModel::from_task(task, test_covariance(d, 2));
  const auto bil = sja::appC_bilinear(d);
  const auto u = bilinear_features(bil, d, dbar);
  const auto fm = model_feature_moments(model, u);
  const Eigen::MatrixXd G = optimal_sparse_gamma(fm, n);
  const double exact = sparse_lsa_loss(fm, G, n);
  Transformer features, attention;
  features.layers.emplace_back(bil);
  attention.layers.emplace_back(sja::sparse_attention(G));
  const Eigen::MatrixXd Psi = query_moment_matrix(model, u);
  MonteCarlo mc(QueryConditionalWorker::dims, 2);
  mc.extend_to(100000, [&] {
    return QueryConditionalWorker(features, attention, model, Psi, sja_shape(d, dbar, n), 1, 23);
  });
  const Estimate plain = make_estimate(mc.total(), 0, 0.999), cond = make_estimate(mc.total(), 1, 0.999);
  INFO("exact " << exact << " plain " << plain.mean << " +/- " << plain.ci_high - plain.mean << " conditional "
                << cond.mean << " +/- " << cond.ci_high - cond.mean);
  CHECK(cond.ci_low <= exact);
  CHECK(cond.ci_high >= exact);
  CHECK(plain.ci_low <= exact);
  CHECK(plain.ci_high >= exact);
  CHECK(cond.stderr_ < 0.5 * plain.stderr_);
  CHECK(mc.total().mean[2] < 1e-18 * exact * exact + 1e-20);
}

TEST_CASE("conditional Monte Carlo: b from the per-layer query maps matches the real forward pass (random masked stack)") {
  const int d = 2, n = 7, dbar = d + 2, D = dbar + 1;
  const auto model = GaussianIclModel::from_task(PolynomialTask::quadratic(d), test_covariance(d, 2));
  const auto u = sja_embedding_features(d, dbar);
  Transformer features, attention;
  PromptRng rng(8, 8, 8);
  for (int l = 0; l < 3; ++l) {
    LinearSelfAttention a;
    a.P.resize(D, D);
    a.Q.resize(D, D);
    rng.fill_normal(a.P);
    rng.fill_normal(a.Q);
    a.P *= 0.2;
    a.Q *= 0.2;
    attention.layers.emplace_back(a);
  }
  const Eigen::MatrixXd Psi = query_moment_matrix(model, u);
  QueryConditionalWorker w(features, attention, model, Psi, sja_shape(d, dbar, n), 1, 31);
  double out[QueryConditionalWorker::dims];
  for (std::uint64_t i = 0; i < 50; ++i) {
    w(i, out);
    INFO("prompt " << i << ": plain " << out[0] << ", conditional " << out[1]);
    CHECK(out[2] <= 1e-20 * std::max(1.0, out[0]));
    CHECK(out[1] >= 0);
  }
}

}  // namespace test_conditional_loss
