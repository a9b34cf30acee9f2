#include "icl/exact/moment_quadrature.hpp"

#include <Eigen/Dense>
#include <boost/math/distributions/exponential.hpp>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/distributions/lognormal.hpp>
#include <boost/math/distributions/uniform.hpp>
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace icl {

GaussRule gauss_rule_from_moments(const std::vector<double>& m, int n) {
  if (n < 1 || static_cast<int>(m.size()) < 2 * n) throw std::invalid_argument("gauss rule: need moments m_0..m_{2n-1}");
  // Monic orthogonal polynomial p_n(x) = x^n + sum_k c_k x^k: sum_k c_k m_{k+j} = -m_{n+j}, j < n.
  Eigen::MatrixXd H(n, n);
  Eigen::VectorXd rhs(n);
  for (int j = 0; j < n; ++j) {
    for (int k = 0; k < n; ++k) H(j, k) = m[k + j];
    rhs[j] = -m[n + j];
  }
  const Eigen::VectorXd c = H.fullPivLu().solve(rhs);
  Eigen::MatrixXd comp = Eigen::MatrixXd::Zero(n, n);  // companion matrix
  for (int i = 1; i < n; ++i) comp(i, i - 1) = 1;
  for (int i = 0; i < n; ++i) comp(i, n - 1) = -c[i];
  Eigen::EigenSolver<Eigen::MatrixXd> es(comp);
  GaussRule r;
  for (int i = 0; i < n; ++i) {
    if (std::abs(es.eigenvalues()[i].imag()) > 1e-9 * (1 + std::abs(es.eigenvalues()[i].real())))
      throw std::runtime_error("gauss rule: complex node (moments not of a distribution?)");
    r.nodes.push_back(es.eigenvalues()[i].real());
  }
  std::sort(r.nodes.begin(), r.nodes.end());
  Eigen::MatrixXd V(n, n);  // sum_i w_i x_i^k = m_k
  Eigen::VectorXd mk(n);
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < n; ++i) V(k, i) = std::pow(r.nodes[i], k);
    mk[k] = m[k];
  }
  const Eigen::VectorXd w = V.fullPivLu().solve(mk);
  r.weights.assign(w.data(), w.data() + n);
  return r;
}

PositiveDistribution PositiveDistribution::parse(int code) {
  switch (code) {
    case 0: return {"exp", 1, 0};
    case 1: return {"gamma", 2, 0.5};
    case 2: return {"uniform", 0.5, 1.5};
    case 3: return {"lognormal", 0, 0.5};
    default: throw std::invalid_argument("distribution code must be 0 (Exp), 1 (Gamma), 2 (Uniform), 3 (LogNormal)");
  }
}

std::string PositiveDistribution::label() const {
  if (name == "exp") return fmt::format("Exp({:g})", a);
  if (name == "gamma") return fmt::format("Gamma(shape {:g}, scale {:g})", a, b);
  if (name == "uniform") return fmt::format("Uniform[{:g}, {:g}]", a, b);
  return fmt::format("LogNormal({:g}, {:g})", a, b);
}

namespace {
template <class F>
auto with_dist(const PositiveDistribution& p, F&& f) {
  namespace bm = boost::math;
  if (p.name == "exp") return f(bm::exponential_distribution<double>(p.a));
  if (p.name == "gamma") return f(bm::gamma_distribution<double>(p.a, p.b));
  if (p.name == "uniform") return f(bm::uniform_distribution<double>(p.a, p.b));
  if (p.name == "lognormal") return f(bm::lognormal_distribution<double>(p.a, p.b));
  throw std::invalid_argument("unknown distribution " + p.name);
}
}  // namespace

double PositiveDistribution::mean() const {
  return with_dist(*this, [](const auto& d) { return boost::math::mean(d); });
}

std::vector<double> PositiveDistribution::raw_moments_to_3() const {
  return with_dist(*this, [](const auto& d) {
    const double mu = boost::math::mean(d), var = boost::math::variance(d), sk = boost::math::skewness(d);
    const double sd = std::sqrt(var);
    return std::vector<double>{1.0, mu, var + mu * mu, sk * sd * sd * sd + 3 * mu * var + mu * mu * mu};
  });
}

double PositiveDistribution::quantile(double u) const {
  return with_dist(*this, [u](const auto& d) { return boost::math::quantile(d, u); });
}

}  // namespace icl
