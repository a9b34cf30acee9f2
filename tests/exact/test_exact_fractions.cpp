// The exact side as fractions (for proposed corrections): RationalMatrix's inverse, exact partial expectations, and
// the losses of exact_feature_moments / exact_single_layer_moments, which must equal the double engine's values and,
// for the one-step GD layer, Isserlis' closed form exactly.
#include "icl/algebra/rational_matrix.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/gaussian_model.hpp"

#include <doctest/doctest.h>

namespace test_exact_fractions {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// One GD step of size c: P = [[0, 0], [0, -c]], Q = [[I, 0], [0, 0]].
LinearSelfAttention gd_step(int d, double c) {
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = -c;
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d).setIdentity();
  return a;
}

}  // namespace

TEST_CASE("exact fractions: RationalMatrix products, inverse and exact conversion") {
  RationalMatrix a(3, 3);
  const int v[3][3] = {{2, 1, 0}, {1, 3, 1}, {0, 1, 4}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a(i, j) = v[i][j];
  const RationalMatrix inv = a.inverse();
  CHECK(a * inv == RationalMatrix::identity(3));
  CHECK(inv(0, 0) == Rational(11, 18));  // (3*4 - 1) / det, det = 18
  RationalMatrix z(2, 2);
  z(0, 1) = 1;
  z(1, 0) = 1;  // needs a row swap
  CHECK(z.inverse() == z);
  CHECK_THROWS_AS(RationalMatrix(2, 2).inverse(), std::domain_error);
  Eigen::MatrixXd m(1, 2);
  m << 0.1, -3.75;
  const RationalMatrix r = RationalMatrix::from_double(m);
  CHECK(r(0, 1) == Rational(-15, 4));
  CHECK(r(0, 0) != Rational(1, 10));  // 0.1 is not a tenth: its exact binary value is kept
  CHECK(r.to_double() == m);
}

TEST_CASE("exact fractions: partial expectations keep the other variables") {
  // p = x0^2 x1 + 3 x0 x1^2 + x1: E over x0 gives x1 + x1 = 2 x1.
  const auto x0 = Polynomial<Rational>::variable(2, 0), x1 = Polynomial<Rational>::variable(2, 1);
  const auto p = x0 * x0 * x1 + Rational(3) * x0 * x1 * x1 + x1;
  const auto e = partial_gaussian_expectation(p, 0, 1);
  CHECK(e.terms().size() == 1);
  CHECK(e.terms().begin()->second == 2);
  CHECK((e * x1).gaussian_expectation() == 2);
}

TEST_CASE("exact fractions: the one-step GD layer's loss is d (c^2 (n+d+1)/n - 2c + 1) exactly") {
  for (int d : {1, 2, 4}) {
    const GaussianIclModel model = GaussianIclModel::from_task(PolynomialTask::linear(d), Eigen::MatrixXd::Identity(d, d));
    const ExactSingleLayerMoments ex = exact_single_layer_moments(model, identity_features(d));
    const SingleLayerMoments dbl = single_layer_moments(model, identity_features(d));
    for (int n : {1, 7, 49}) {
      for (double c : {0.5, 0.75, 1.0}) {
        const Rational q = single_layer_loss(ex, exact_single_layer_coefficients({gd_step(d, c)}, d, Rational(n)), Rational(n));
        const Rational D(d), N(n), C(c);
        CHECK(q == D * (C * C * (N + D + 1) / N - 2 * C + 1));
        const double fp = single_layer_loss(dbl, single_layer_coefficients({gd_step(d, c)}, d, n), n);
        CHECK(q.convert_to<double>() == doctest::Approx(fp).epsilon(1e-12));
      }
    }
  }
  // Only isotropic inputs: a covariance enters through a rounded Cholesky factor.
  const GaussianIclModel rotated = GaussianIclModel::from_task(PolynomialTask::linear(2), test_covariance(2, 2));
  CHECK_THROWS_AS(exact_single_layer_moments(rotated, identity_features(2)), std::invalid_argument);
}

TEST_CASE("exact fractions: the sparse layer's loss as a fraction equals the double engine's") {
  for (int d : {1, 2, 3}) {
    std::vector<Polynomial<Rational>> u = {Polynomial<Rational>::constant(d, Rational(1))};
    for (int i = 0; i < d; ++i) u.push_back(Polynomial<Rational>::variable(d, i));
    const PolynomialTask task = PolynomialTask::quadratic(d);
    const ExactFeatureMoments ex = exact_feature_moments(u, task);
    const FeatureMoments dbl = feature_moments(u, task);
    const RationalMatrix gamma = -ex.Lambda.inverse();
    for (int n : {3, 100}) {
      const Rational q = sparse_lsa_loss(ex, gamma, Rational(n));
      CHECK(q.convert_to<double>() == doctest::Approx(sparse_lsa_loss(dbl, gamma.to_double(), n)).epsilon(1e-12));
    }
  }
}

}  // namespace test_exact_fractions
