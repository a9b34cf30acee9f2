// The covariate-shift setting (constructions/zfb_shift) by hand: Lambda's spectrum; E[yhat | x_q, w] of an LSA in
// closed form at d = 1; the trained transformer of a fixed-Lambda scenario reaches Theorem 4's limit and of an Exp(1)
// scenario Theorem 8's, with the test covariance each scenario states.
#include "constructions/zfb_shift.hpp"

#include <doctest/doctest.h>

namespace test_zfb_shift {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("covariate shift: Lambda, and E[yhat | x_q, w] by hand at d = 1") {
  const Eigen::MatrixXd L = zfb::shift_lambda(3);
  CHECK(L(0, 0) == 1.0);
  CHECK(L(1, 1) == doctest::Approx(0.5));
  CHECK(L(2, 2) == doctest::Approx(0.25));
  CHECK(zfb::shift_lambda(1)(0, 0) == 1.0);
  // d = 1, pv = e e^T, kq = k e_1 e_1^T: E[G] = [[lam + x_q^2 / M, lam w], [lam w, lam w^2]], so E[yhat | x_q, w] =
  // (lam w, lam w^2) (k, 0)^T x_q = lam w k x_q.
  LsaWeights W = LsaWeights::zero(1);
  W.pv(1, 1) = 1;
  W.kq(0, 0) = 0.5;
  Eigen::MatrixXd lam(1, 1);
  lam << 2.0;
  CHECK(zfb::conditional_mean(W, lam, 7, Eigen::VectorXd::Constant(1, 3.0), Eigen::VectorXd::Constant(1, 1.5)) ==
        doctest::Approx(2.0 * 3.0 * 0.5 * 1.5));
}

TEST_CASE("covariate shift: the trained transformers and their test covariances") {
  const GaussRule rule = gauss_rule_from_moments({1, zfb::kExpM1, zfb::kExpM2, zfb::kExpM3}, 2);
  FlowOptions opt;
  opt.t_max = 1e5;
  const zfb::ShiftCase a = zfb::shift_train_case(5, 2, 20, 1, rule, opt);  // fixed Lambda, c = 2
  CHECK(a.converged);
  CHECK_FALSE(a.random_cov);
  CHECK(a.scale == 2.0);
  CHECK(a.test_lam.isApprox(4.0 * zfb::shift_lambda(2)));
  CHECK(zfb::reduced_product(a.z->end).isApprox(zfb::reduced_product(a.target), 1e-5));
  const zfb::ShiftCase b = zfb::shift_train_case(5, 2, 20, 2, rule, opt);  // Exp(1) covariances
  CHECK(b.random_cov);
  CHECK(b.test_lam.isIdentity());
  CHECK(b.converged);
  CHECK(b.xq.isApprox(Eigen::Vector2d(1.0, 0.5)));
}

}  // namespace test_zfb_shift
