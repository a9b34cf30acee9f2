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

}  // namespace test_feature_moments
