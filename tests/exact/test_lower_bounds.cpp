// Unit tests of lib/icl/exact/lower_bounds and constructions/sja_lower_bound: the worst case over projections
// against an exhaustive search, the coefficient covariance of the quadratic task, and the explicit
// bilinear layers (their projected dimension and their limit loss against the infimum).
#include "constructions/sja_appC.hpp"
#include "constructions/sja_lower_bound.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/lower_bounds.hpp"
#include "icl/exact/optimal_attention.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

namespace test_lower_bounds {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// Exhaustive search over a fine grid of unit vectors in R^3: the best rank-2 projection excludes one
// direction e (loss e^T C e); the best rank-1 projection keeps one direction e (loss tr C - e^T C e).
void sphere_search(const Eigen::Matrix3d& C, double& best_rank2, double& best_rank1) {
  best_rank2 = INFINITY;
  best_rank1 = INFINITY;
  const int K = 400;
  for (int a = 0; a <= K; ++a)
    for (int b = 0; b < 2 * K; ++b) {
      const double th = std::numbers::pi * a / K, ph = std::numbers::pi * b / K;
      const Eigen::Vector3d e(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th));
      const double q = e.dot(C * e);
      best_rank2 = std::min(best_rank2, q);
      best_rank1 = std::min(best_rank1, C.trace() - q);
    }
}

}  // namespace

TEST_CASE("projection infimum equals an exhaustive search over projections (m = 3)") {
  const int d = 1;
  const auto model = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
  const Eigen::MatrixXd Cq = coefficient_covariance(model, sja::orthonormal_v(d));
  PromptRng rng(3, 3, 3);
  Eigen::Matrix3d R;
  rng.fill_normal(R);
  for (const Eigen::Matrix3d& C : {Eigen::Matrix3d(Cq), Eigen::Matrix3d(R * R.transpose())}) {
    double s2, s1;
    sphere_search(C, s2, s1);
    INFO("C =\n" << C);
    CHECK(projection_infimum(C, 2) == doctest::Approx(s2).epsilon(1e-4));
    CHECK(projection_infimum(C, 1) == doctest::Approx(s1).epsilon(1e-4));
    CHECK(projection_infimum(C, 3) == 0.0);
    CHECK(projection_infimum(C, 0) == doctest::Approx(C.trace()));
    // No coordinate projection beats it either.
    for (int i = 0; i < 3; ++i) CHECK(C(i, i) >= projection_infimum(C, 2) - 1e-12);
  }
  // For the quadratic task at d = 1 the best rank-2 projection leaves 2 - sqrt(2), not 1.
  CHECK(projection_infimum(Cq, 2) == doctest::Approx(2 - std::sqrt(2.0)).epsilon(1e-12));
}

TEST_CASE("coefficient covariance of the quadratic task in the orthonormal basis") {
  for (int d = 1; d <= 3; ++d) {
    const auto model = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
    const Eigen::MatrixXd C = coefficient_covariance(model, sja::orthonormal_v(d));
    const int m = sja::kernel_width(d), n1 = d * (d + 1) / 2;
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(C);
    const Eigen::VectorXd ev = es.eigenvalues();
    CHECK(ev[0] == doctest::Approx(sja::lambda_minus(d)).epsilon(1e-12));
    CHECK(ev[m - 1] == doctest::Approx(sja::lambda_plus(d)).epsilon(1e-12));
    for (int i = 1; i <= n1; ++i) CHECK(ev[i] == doctest::Approx(1.0).epsilon(1e-12));
    for (int i = n1 + 1; i < m - 1; ++i) CHECK(ev[i] == doctest::Approx(2.0).epsilon(1e-12));
    // The v_ij are orthonormal: the cross moments of v with itself are the identity.
    const auto v = sja::orthonormal_v(d);
    CHECK((feature_projection(model, v, v) - Eigen::MatrixXd::Identity(m, m)).norm() < 1e-12);
  }
}

TEST_CASE("explicit bilinear layers realise the optimal spans (quadratic task)") {
  for (int d = 1; d <= 3; ++d) {
    const int m = sja::kernel_width(d), n1 = d * (d + 1) / 2;
    const auto model = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
    const auto v = sja::orthonormal_v(d);
    const Eigen::MatrixXd C = coefficient_covariance(model, v);
    for (int k = 1; k <= m; ++k) {
      const auto b = sja::quadratic_exclusion_layer(d, k);
      const auto feats = bilinear_features(b.layer, d, b.dbar);
      const Eigen::MatrixXd U = feature_projection(model, v, feats);
      INFO("d = " << d << ", k = " << k << ": " << b.description);
      CHECK(numerical_rank(U) == m - k);
      // Features inside span{v}: their norms equal the norms of their projections.
      for (std::size_t a = 0; a < feats.size(); ++a) {
        const FlatPoly f(model.compose(feats[a]));
        CHECK(expect_product(f, f) == doctest::Approx(U.col(static_cast<Eigen::Index>(a)).squaredNorm()).epsilon(1e-10));
      }
      const double limit = projected_residual(C, U), inf = projection_infimum(C, m - k);
      CHECK(limit >= inf - 1e-10);
      if (k <= 1 + n1) CHECK(limit == doctest::Approx(inf).epsilon(1e-10));
      if (k <= 1 + n1 && k < m && d + k < m && (n1 + 1 - k) >= 1) CHECK(b.dbar == m - k);
      // The finite-n optimal loss is above the limit and approaches it.
      const auto fm = model_feature_moments(model, feats);
      const double L100 = sparse_lsa_loss(fm, optimal_sparse_gamma(fm, 100), 100);
      const double L1e5 = sparse_lsa_loss(fm, optimal_sparse_gamma(fm, 1e5), 1e5);
      CHECK(L100 >= limit - 1e-9);
      CHECK(L1e5 >= limit - 1e-9);
      CHECK(L1e5 <= L100 + 1e-9);
      CHECK(L1e5 - limit < 1e-2 * std::max(1.0, limit));
    }
  }
}

TEST_CASE("orthonormal subset layers output exactly the chosen v's") {
  const int d = 2;
  const auto model = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
  const auto v = sja::orthonormal_v(d);
  const std::vector<int> keep{0, 2, 3, 5};
  const auto b = sja::orthonormal_subset_layer(d, keep);
  const auto feats = bilinear_features(b.layer, d, b.dbar);
  const Eigen::MatrixXd U = feature_projection(model, v, feats);
  CHECK(numerical_rank(U) == static_cast<int>(keep.size()));
  for (int a : keep) {
    bool found = false;
    for (Eigen::Index c = 0; c < U.cols(); ++c)
      if ((U.col(c) - Eigen::VectorXd::Unit(U.rows(), a)).norm() < 1e-12) found = true;
    CHECK(found);
  }
}

}  // namespace test_lower_bounds
