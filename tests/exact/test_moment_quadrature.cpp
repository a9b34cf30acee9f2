// Gauss rules from moments (lib/icl/exact/moment_quadrature.hpp): exact on polynomials of degree 2n - 1, and
// so exact for the population loss of one LSA layer averaged over a random diagonal covariance.
#include "icl/exact/lsa_population_loss.hpp"
#include "icl/exact/moment_quadrature.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace icl {
namespace test_moment_quadrature {  // named: a unity build compiles several test files as one unit

using test::random_matrix;

namespace {

LsaWeights random_weights(int d, std::uint64_t seed) {
  return {0.5 * random_matrix(d + 1, d + 1, seed), 0.5 * random_matrix(d + 1, d + 1, seed + 1)};
}

}  // namespace

TEST_CASE("moment quadrature: the 2-point rule integrates the random-covariance zfb loss exactly") {
  // Exp(1): m_k = k!. The 2-point rule (moments to 3) and the 3-point rule (moments to 5) must give the
  // same loss for a cubic-in-Lambda integrand; a quartic integrand would tell them apart.
  const GaussRule r2 = gauss_rule_from_moments({1, 1, 2, 6}, 2);
  const GaussRule r3 = gauss_rule_from_moments({1, 1, 2, 6, 24, 120}, 3);
  for (int k = 0; k <= 5; ++k) {
    double s = 0;
    for (int i = 0; i < 3; ++i) s += r3.weights[i] * std::pow(r3.nodes[i], k);
    CHECK(s == doctest::Approx(std::tgamma(k + 1.0)).epsilon(1e-10));
  }
  double q4 = 0;
  for (int i = 0; i < 2; ++i) q4 += r2.weights[i] * std::pow(r2.nodes[i], 4);
  CHECK(std::abs(q4 - 24) > 1);  // the 2-point rule is not exact beyond degree 3
  const int d = 2, N = 3;
  auto tensor = [&](const GaussRule& r) {
    std::vector<double> w;
    std::vector<Eigen::MatrixXd> L;
    const int k = static_cast<int>(r.nodes.size());
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) {
        w.push_back(r.weights[i] * r.weights[j]);
        L.push_back(Eigen::Vector2d(r.nodes[i], r.nodes[j]).asDiagonal());
      }
    return PopulationLoss::mixture(w, L, N);
  };
  const LsaWeights W = random_weights(d, 8);
  const double l2 = tensor(r2).loss(W), l3 = tensor(r3).loss(W);
  INFO("2-point " << l2 << " 3-point " << l3);
  CHECK(std::abs(l2 - l3) < 1e-10 * std::abs(l3));
  const double lr = PopulationLoss::random_diagonal(r2.nodes, r2.weights, d, N).loss(W);
  CHECK(std::abs(lr - l2) < 1e-12 * std::abs(l2));
  // Boost.Math moments of Exp(1) are 1, 1, 2, 6.
  const auto m = PositiveDistribution::parse(0).raw_moments_to_3();
  CHECK(m[1] == doctest::Approx(1));
  CHECK(m[2] == doctest::Approx(2));
  CHECK(m[3] == doctest::Approx(6));
}

}  // namespace test_moment_quadrature
}  // namespace icl
