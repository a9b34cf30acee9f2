// Unit tests of lib/icl/gaussian_model and lib/icl/optimal_attention: the generic exact moments
// against the rational ones, the exact optimal Gamma against a brute-force Monte Carlo least-squares
// fit, the exact losses against Monte Carlo through the forward pass, and the general single-layer loss
// and its alternating minimiser.
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

using namespace icl;

namespace {

}  // namespace

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
