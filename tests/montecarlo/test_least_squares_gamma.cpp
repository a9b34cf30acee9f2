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
