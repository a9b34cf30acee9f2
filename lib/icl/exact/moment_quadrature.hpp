// Gauss quadrature from raw moments, for expectations over a random covariance (zfb Theorem 8).
//
// An n-point Gauss rule built from the raw moments m_0 .. m_{2n-1} of a distribution integrates every
// polynomial of degree <= 2n - 1 exactly; the tensor product of such rules over d independent
// coordinates integrates exactly every polynomial whose degree in each coordinate is <= 2n - 1. The
// zfb population loss is a polynomial of degree 3 in the entries of Lambda, so n = 2 (moments up to the
// third, which Theorem 8 assumes finite) gives its expectation over Lambda_tau exactly.
#pragma once
#include <string>
#include <vector>

namespace icl {

struct GaussRule {
  std::vector<double> nodes, weights;
};

// raw_moments[k] = E[X^k], k = 0 .. 2n-1 at least.
GaussRule gauss_rule_from_moments(const std::vector<double>& raw_moments, int n);

// Distributions of a positive covariance entry lambda, with Boost.Math for moments and quantiles.
struct PositiveDistribution {
  std::string name;  // "exp", "gamma", "uniform", "lognormal"
  double a = 1, b = 1;  // exp: rate a; gamma: shape a, scale b; uniform: [a, b]; lognormal: location a, scale b
  static PositiveDistribution parse(int code);  // 0 Exp(1), 1 Gamma(2, 1/2), 2 Uniform[0.5, 1.5], 3 LogNormal(0, 1/2)
  std::string label() const;
  double mean() const;
  // E[X^k] for k = 0, 1, 2, 3 from Boost.Math's mean, variance and skewness.
  std::vector<double> raw_moments_to_3() const;
  double quantile(double u) const;
};

}  // namespace icl
