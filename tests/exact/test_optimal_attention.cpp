// The best single attention layer (lib/icl/exact/optimal_attention.hpp): the optimal sparse Gamma is
// stationary and beats perturbations, the exact losses agree with Monte Carlo through the forward pass,
// and the general single-layer loss and its alternating minimiser never beat the sparse optimum.
#include "constructions/sja_appC.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/montecarlo/least_squares_gamma.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/verdict/decision.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

namespace test_optimal_attention {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

Estimate mc_loss(const Transformer& t, const GaussianIclModel& m, const PromptShape& shape, std::uint64_t prompts,
                 double sign = +1.0, std::uint64_t purpose = 11) {
  MonteCarlo mc(1, 2);
  mc.extend_to(prompts, [&] { return ModelPromptWorker(t, m, shape, 1, purpose, sign); });
  return make_estimate(mc.total(), 0, 0.999);
}

Transformer single_attention(const LinearSelfAttention& a) {
  Transformer t;
  t.layers.emplace_back(a);
  return t;
}

LinearSelfAttention acds_sparse(const Eigen::MatrixXd& Gamma) { return test::sparse_layer(Gamma); }

}  // namespace

TEST_CASE("optimal sparse Gamma is a stationary point and beats perturbations") {
  const int d = 2;
  const auto model = GaussianIclModel::from_task(PolynomialTask::quadratic(d), test_covariance(d, 2));
  const auto m = model_feature_moments(model, sja_embedding_features(d, d + 2));  // includes a zero row
  for (double n : {1.0, 3.0, 50.0}) {
    const Eigen::MatrixXd G = optimal_sparse_gamma(m, n);
    const double L0 = sparse_lsa_loss(m, G, n);
    PromptRng rng(5, 5, static_cast<std::uint64_t>(n));
    for (int k = 0; k < 20; ++k) {
      Eigen::MatrixXd E(G.rows(), G.cols());
      rng.fill_normal(E);
      const double Lp = sparse_lsa_loss(m, G + 1e-3 * E, n), Lm = sparse_lsa_loss(m, G - 1e-3 * E, n);
      CHECK(Lp >= L0 - 1e-12);
      CHECK(Lm >= L0 - 1e-12);
      CHECK(std::abs(Lp - Lm) < 1e-9 * std::max(1.0, L0));  // zero directional derivative
    }
  }
}

TEST_CASE("exact sparse loss = Monte Carlo through the forward pass (rotated Sigma, noisy and fixed-w tasks)") {
  const int d = 2, n = 5;
  auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 2));
  model.random_w = false;
  model.fixed_w = Eigen::Vector2d(0.7, -1.3);
  model.noise_sd = 0.5;
  const auto m = model_feature_moments(model, identity_features(d));
  const Eigen::MatrixXd G = optimal_sparse_gamma(m, n);
  const double exact = sparse_lsa_loss(m, G, n);
  const Estimate e = mc_loss(single_attention(acds_sparse(G)), model, acds_shape(d, n), 200000);
  INFO("exact " << exact << " mc " << e.mean << " +/- " << e.ci_high - e.mean);
  CHECK(e.ci_low <= exact);
  CHECK(e.ci_high >= exact);
}

TEST_CASE("general single-layer loss: sparse form agrees with the sparse loss; random (b, A) agrees with Monte Carlo") {
  const int d = 2, n = 4;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 2));
  const auto u = identity_features(d);
  const auto fm = model_feature_moments(model, u);
  const auto sm = single_layer_moments(model, u);
  const Eigen::MatrixXd G = optimal_sparse_gamma(fm, n);
  Eigen::VectorXd b;
  Eigen::MatrixXd A;
  sparse_as_general(G, b, A);
  CHECK(single_layer_loss(sm, b, A, n) == doctest::Approx(sparse_lsa_loss(fm, G, n)).epsilon(1e-10));

  PromptRng rng(9, 9, 0);
  Eigen::VectorXd b2(d + 1);
  Eigen::MatrixXd A2(d + 1, d), filler(d + 1, d + 1);
  rng.fill_normal(b2);
  rng.fill_normal(A2);
  rng.fill_normal(filler);
  b2 *= 0.5;
  A2 *= 0.5;
  LinearSelfAttention att;
  general_layer_weights(b2, A2, filler, att.P, att.Q);
  const double exact = single_layer_loss(sm, b2, A2, n);
  const Estimate e = mc_loss(single_attention(att), model, acds_shape(d, n), 400000);
  INFO("exact " << exact << " mc " << e.mean << " +/- " << e.ci_high - e.mean);
  CHECK(e.ci_low <= exact);
  CHECK(e.ci_high >= exact);
}

TEST_CASE("alternating exact solves from random starts reach, and never beat, the sparse optimum (acds d = 2)") {
  const int d = 2;
  const double n = 3;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 3));
  const auto u = identity_features(d);
  const auto sm = single_layer_moments(model, u);
  const double sparse = sparse_lsa_loss(model_feature_moments(model, u), optimal_sparse_gamma(model_feature_moments(model, u), n), n);
  PromptRng rng(4, 4, 4);
  double best = INFINITY;
  for (int s = 0; s < 10; ++s) {
    Eigen::VectorXd b(d + 1);
    Eigen::MatrixXd A(d + 1, d);
    rng.fill_normal(b);
    rng.fill_normal(A);
    const auto o = alternating_single_layer(sm, n, b, A);
    CHECK(o.loss >= sparse - 1e-9);
    best = std::min(best, o.loss);
  }
  CHECK(best == doctest::Approx(sparse).epsilon(1e-6));
}

TEST_CASE("alternating_from_random_starts: the solver from the stream's draws (b, then A), never below the sparse optimum") {
  const int d = 2;
  const double n = 5;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 2));
  const auto u = identity_features(d);
  const auto sm = single_layer_moments(model, u);
  const auto fm = model_feature_moments(model, u);
  const double sparse = sparse_lsa_loss(fm, optimal_sparse_gamma(fm, n), n);
  const std::vector<double> losses = alternating_from_random_starts(sm, n, 4, 11, 22);
  REQUIRE(losses.size() == 4);
  for (int s = 0; s < 4; ++s) {
    CAPTURE(s);
    PromptRng rng(11, 22, static_cast<std::uint64_t>(s));
    Eigen::VectorXd b(d + 1);
    Eigen::MatrixXd A(d + 1, d);
    rng.fill_normal(b);
    rng.fill_normal(A);
    CHECK(losses[s] == alternating_single_layer(sm, n, b, A).loss);
    CHECK(losses[s] >= sparse * (1 - 1e-9));
  }
  CHECK(losses[0] != losses[1]);  // different starts
  CHECK(alternating_from_random_starts(sm, n, 0, 11, 22).empty());
}

}  // namespace test_optimal_attention
