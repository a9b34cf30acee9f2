// Exact feature moments under a GaussianIclModel (lib/icl/exact/feature_moments.hpp): the double-precision
// moments against the rational sja ones, and the closed forms for y = <w, x> under N(0, Sigma).
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

namespace test_feature_moments {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("generic double moments agree with the rational sja moments (kernel features, d = 2)") {
  const int d = 2;
  const auto task = PolynomialTask::quadratic(d);
  const auto rational = feature_moments(sja::kernel_features(d), task);
  std::vector<Poly> u;
  for (const auto& f : sja::kernel_features(d)) u.push_back(f.to_double_poly());
  const auto model = GaussianIclModel::from_task(task, Eigen::MatrixXd::Identity(d, d));
  const auto generic = model_feature_moments(model, u);
  CHECK((generic.Lambda - rational.Lambda).norm() < 1e-9);
  CHECK((generic.S - rational.S).norm() < 1e-9);
  CHECK((generic.K4 - rational.K4).norm() < 1e-7);
  CHECK(generic.Ey2 == doctest::Approx(rational.Ey2).epsilon(1e-12));
}

TEST_CASE("N(0, Sigma) moments: Lambda = Sigma, S = Sigma^2, K4 = tr(Sigma) Sigma + 2 Sigma^2 for y = <w, x>") {
  const int d = 3;
  const Eigen::MatrixXd sigma = test_covariance(d, 3);
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), sigma);
  const auto m = model_feature_moments(model, identity_features(d));
  CHECK((m.Lambda - sigma).norm() < 1e-10);
  CHECK((m.S - sigma * sigma).norm() < 1e-9);
  CHECK((m.K4 - (sigma.trace() * sigma + 2 * sigma * sigma)).norm() < 1e-8);
  CHECK(m.Ey2 == doctest::Approx(sigma.trace()));
}

TEST_CASE("best_predictor_loss: 0 when the features span the label, E[y^2] minus the explained part otherwise") {
  const int d = 2;
  std::vector<Polynomial<Rational>> x, one;
  for (int j = 0; j < d; ++j) x.push_back(Polynomial<Rational>::variable(d, j));
  one.push_back(Polynomial<Rational>::constant(d, Rational(1)));
  // y = <w, x>, w ~ N(0, I): features x explain it all; the constant explains nothing (E[y^2] = d remains).
  CHECK(std::abs(best_predictor_loss(feature_moments(x, PolynomialTask::linear(d)))) < 1e-14);
  CHECK(best_predictor_loss(feature_moments(one, PolynomialTask::linear(d))) == doctest::Approx(2.0));
  // Quadratic task (d = 2: y = w_0 + w_1 x_1 + w_2 x_2 + w_11 x_1^2 + w_12 x_1 x_2 + w_22 x_2^2) on the features
  // (1, x): E[y^2] = 1 + 1 + 1 + 3 + 1 + 3 = 10; the best predictor explains E(w_0 + w_11 + w_22)^2 + E w_1^2 +
  // E w_2^2 = 3 + 2, leaving 5.
  std::vector<Polynomial<Rational>> lin = one;
  lin.insert(lin.end(), x.begin(), x.end());
  const FeatureMoments q = feature_moments(lin, PolynomialTask::quadratic(d));
  CHECK(q.Ey2 == doctest::Approx(10.0));
  CHECK(best_predictor_loss(q) == doctest::Approx(5.0));
}

}  // namespace test_feature_moments
