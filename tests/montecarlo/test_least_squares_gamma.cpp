// The Monte Carlo least-squares fit of the optimal Gamma (lib/icl/montecarlo/least_squares_gamma.hpp)
// against the exact optimum of lib/icl/exact/optimal_attention.hpp, through the acds layer and through
// the sja bilinear layer.
#include "constructions/sja_appC.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/montecarlo/least_squares_gamma.hpp"
#include "icl/verdict/matrix_check.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/verdict/decision.hpp"

#include <doctest/doctest.h>

namespace test_least_squares_gamma {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("exact optimal Gamma matches a brute-force Monte Carlo least-squares fit (acds, d = 2, rotated Sigma, n = 3)") {
  const int d = 2, n = 3;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 2));
  const auto m = model_feature_moments(model, identity_features(d));
  const Eigen::MatrixXd G = optimal_sparse_gamma(m, n);
  const Transformer none;
  const auto est = mc_least_squares_gamma(none, model, acds_shape(d, n), 3, 17, 2, 2000000, 20);
  const Decision dec = judge_matrix_equal(est, G, 0.1 * G.cwiseAbs().maxCoeff(), 0.01);
  INFO(dec.why);
  INFO("exact:\n" << G << "\nMonte Carlo:\n" << est.gamma);
  CHECK(dec.verdict == Verdict::confirmed);
  // The large-n answer -Sigma^{-1} is a different matrix at n = 3: the fit must tell them apart.
  const Decision wrong = judge_matrix_equal(est, -test_covariance(d, 2).inverse(), 0.0, 0.01);
  CHECK(wrong.verdict == Verdict::refuted);
}

TEST_CASE("exact optimal Gamma matches the least-squares fit through the sja bilinear layer (d = 1, n = 4)") {
  const int d = 1, n = 4, dbar = sja::kernel_width(d);
  const auto task = PolynomialTask::quadratic(d);
  const auto model = GaussianIclModel::from_task(task, Eigen::MatrixXd::Identity(d, d));
  Transformer features;
  features.layers.emplace_back(sja::appC_bilinear(d));
  const auto m = model_feature_moments(model, bilinear_features(sja::appC_bilinear(d), d, dbar));
  const Eigen::MatrixXd G = optimal_sparse_gamma(m, n);
  const auto est = mc_least_squares_gamma(features, model, sja_shape(d, dbar, n), 3, 19, 2, 2000000, 20);
  const Decision dec = judge_matrix_equal(est, G, 0.05 * G.cwiseAbs().maxCoeff(), 0.01);
  INFO(dec.why);
  INFO("exact:\n" << G << "\nMonte Carlo:\n" << est.gamma);
  CHECK(dec.verdict == Verdict::confirmed);
}

TEST_CASE("conditional least squares (query integrated out) finds the same optimal Gamma, with less spread") {
  // acds, d = 2, rotated Sigma, n = 3: the conditional fit must confirm the exact optimum, refute the large-n answer
  // -Sigma^{-1}, and have smaller per-entry standard errors than the plain fit on as many prompts.
  const int d = 2, n = 3;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 2));
  const auto u = identity_features(d);
  const auto m = model_feature_moments(model, u);
  const Eigen::MatrixXd G = optimal_sparse_gamma(m, n);
  const Eigen::MatrixXd Psi = query_moment_matrix(model, u);
  const Transformer none;
  const auto cond = mc_least_squares_gamma(none, model, acds_shape(d, n), 3, 17, 2, 400000, 20, +1.0, &Psi);
  const auto plain = mc_least_squares_gamma(none, model, acds_shape(d, n), 3, 17, 2, 400000, 20);
  const Decision dec = judge_matrix_equal(cond, G, 0.1 * G.cwiseAbs().maxCoeff(), 0.01);
  INFO(dec.why);
  INFO("exact:\n" << G << "\nconditional:\n" << cond.gamma << "\nstderr conditional:\n" << cond.stderr_
                  << "\nstderr plain:\n" << plain.stderr_);
  CHECK(dec.verdict == Verdict::confirmed);
  CHECK(judge_matrix_equal(cond, -test_covariance(d, 2).inverse(), 0.0, 0.01).verdict == Verdict::refuted);
  CHECK(cond.stderr_.maxCoeff() < plain.stderr_.maxCoeff());
  // Same numbers whatever the thread count.
  const auto cond1 = mc_least_squares_gamma(none, model, acds_shape(d, n), 3, 17, 1, 400000, 20, +1.0, &Psi);
  CHECK((cond1.gamma - cond.gamma).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("conditional least squares through the sja bilinear layer (d = 1, n = 4) and its guard on sizes") {
  const int d = 1, n = 4, dbar = sja::kernel_width(d);
  const auto task = PolynomialTask::quadratic(d);
  const auto model = GaussianIclModel::from_task(task, Eigen::MatrixXd::Identity(d, d));
  Transformer features;
  features.layers.emplace_back(sja::appC_bilinear(d));
  const auto u = bilinear_features(sja::appC_bilinear(d), d, dbar);
  const auto m = model_feature_moments(model, u);
  const Eigen::MatrixXd G = optimal_sparse_gamma(m, n);
  const Eigen::MatrixXd Psi = query_moment_matrix(model, u);
  const auto est = mc_least_squares_gamma(features, model, sja_shape(d, dbar, n), 3, 19, 2, 400000, 20, +1.0, &Psi);
  const Decision dec = judge_matrix_equal(est, G, 0.05 * G.cwiseAbs().maxCoeff(), 0.01);
  INFO(dec.why);
  INFO("exact:\n" << G << "\nMonte Carlo:\n" << est.gamma);
  CHECK(dec.verdict == Verdict::confirmed);
  const Eigen::MatrixXd wrong_size = Eigen::MatrixXd::Identity(2, 2);
  CHECK_THROWS_AS(mc_least_squares_gamma(features, model, sja_shape(d, dbar, n), 3, 19, 1, 1000, 2, +1.0, &wrong_size),
                  std::invalid_argument);
}

}  // namespace test_least_squares_gamma
