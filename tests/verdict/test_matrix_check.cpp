// verdict/matrix_check.hpp beyond judge_matrix_equal (tests/montecarlo/test_least_squares_gamma.cpp): a relative
// difference against its tolerance, and the least-squares fit judged in sequential looks (acds layer, d = 2, rotated
// Sigma, n = 3, the exact optimum of exact/optimal_attention.hpp as the target).
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/verdict/matrix_check.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_matrix_check {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("judge_relative_difference: within the tolerance, beyond it, NaN") {
  const Decision in = judge_relative_difference(0.01, 0.05, "||A - B|| / ||B||");
  CHECK(in.verdict == Verdict::confirmed);
  CHECK(in.band == 0.05);
  CHECK(in.why == "||A - B|| / ||B|| = 0.01 (<= 0.05)");
  const Decision out = judge_relative_difference(0.0625, 0.05, "r");
  CHECK(out.verdict == Verdict::refuted);
  CHECK(out.why == "r = 0.0625 (> 0.05)");
  CHECK(judge_relative_difference(0.05, 0.05, "r").verdict == Verdict::confirmed);  // the edge is within
  CHECK(judge_relative_difference(9.5e-16, 1e-9, "r").why == "r = 9.5e-16 (<= 1e-09)");
  CHECK(judge_relative_difference(NAN, 1e-9, "r").verdict == Verdict::refuted);
}

TEST_CASE("judge_matrix_in_looks: a look that decides ends the looks; an undecided one runs the next") {
  const int d = 2, n = 3;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 2));
  const auto u = identity_features(d);
  const Eigen::MatrixXd G = optimal_sparse_gamma(model_feature_moments(model, u), n);
  const Eigen::MatrixXd Psi = query_moment_matrix(model, u);
  const PromptShape shape = acds_shape(d, n);
  const Transformer none;
  const double band = 0.1 * G.cwiseAbs().maxCoeff();
  const std::vector<MatrixLook> looks{{17, 40000}, {18, 80000}};

  // The exact optimum within 10% of its largest entry: the first look (at alpha / 2) confirms it, as judge_matrix_equal
  // does on the same fit made by hand.
  const MatrixFit f = judge_matrix_in_looks(none, model, shape, 3, 2, looks, 20, Psi, G, band, 0.01);
  const GammaLeastSquares first = mc_least_squares_gamma(none, model, shape, 3, 17, 2, 40000, 20, +1.0, &Psi);
  INFO(f.decision.why);
  CHECK(f.looks == 1);
  CHECK(f.decision.verdict == Verdict::confirmed);
  CHECK(f.lsq.samples == first.samples);
  CHECK((f.lsq.gamma - first.gamma).cwiseAbs().maxCoeff() == 0.0);
  CHECK(f.decision.why == judge_matrix_equal(first, G, band, 0.005).why);

  // The large-n answer -Sigma^{-1} is another matrix at n = 3: refuted at the first look.
  const MatrixFit off = judge_matrix_in_looks(none, model, shape, 3, 2, looks, 20, Psi, -test_covariance(d, 2).inverse(),
                                              0.0, 0.01);
  CHECK(off.looks == 1);
  CHECK(off.decision.verdict == Verdict::refuted);

  // A band of 0 around the true optimum can never be confirmed and is refuted only by chance: both looks run, and the
  // result is the second look's fit on its own stream.
  const MatrixFit open = judge_matrix_in_looks(none, model, shape, 3, 2, looks, 20, Psi, G, 0.0, 0.01);
  const GammaLeastSquares second = mc_least_squares_gamma(none, model, shape, 3, 18, 2, 80000, 20, +1.0, &Psi);
  CHECK(open.looks == 2);
  CHECK(open.decision.verdict == Verdict::inconclusive);
  CHECK(open.lsq.samples == second.samples);
  CHECK((open.lsq.gamma - second.gamma).cwiseAbs().maxCoeff() == 0.0);

  // Without query moments: the plain fit.
  const MatrixFit plain = judge_matrix_in_looks(none, model, shape, 3, 2, {{17, 40000}}, 20, Eigen::MatrixXd(), G, band,
                                                0.01);
  const GammaLeastSquares plain_fit = mc_least_squares_gamma(none, model, shape, 3, 17, 2, 40000, 20);
  CHECK((plain.lsq.gamma - plain_fit.gamma).cwiseAbs().maxCoeff() == 0.0);
  CHECK(plain.lsq.stderr_.maxCoeff() > first.stderr_.maxCoeff());  // the query's noise is back
}

}  // namespace test_matrix_check
