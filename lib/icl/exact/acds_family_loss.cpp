#include "icl/exact/acds_family_loss.hpp"

#include "icl/exact/wishart_chain.hpp"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace icl {

namespace {

// A value with its gradient in theta (forward mode).
struct Dual {
  double v = 0;
  Eigen::VectorXd g;
};
Dual operator*(const Dual& x, const Dual& y) { return {x.v * y.v, x.v * y.g + y.v * x.g}; }
Dual operator+(const Dual& x, const Dual& y) { return {x.v + y.v, x.g + y.g}; }

// Polynomials in W with Dual coefficients (index = power of W).
using DPoly = std::vector<Dual>;
DPoly constant(double c, int P) { return {Dual{c, Eigen::VectorXd::Zero(P)}}; }
DPoly mul(const DPoly& p, const DPoly& q) {
  const int P = static_cast<int>(p[0].g.size());
  DPoly r(p.size() + q.size() - 1, Dual{0, Eigen::VectorXd::Zero(P)});
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = 0; j < q.size(); ++j) r[i + j] = r[i + j] + p[i] * q[j];
  return r;
}
// 1 - s W p
DPoly one_minus_wp(const DPoly& p, const Dual& s) {
  const int P = static_cast<int>(s.g.size());
  DPoly r(p.size() + 1, Dual{0, Eigen::VectorXd::Zero(P)});
  r[0].v = 1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Dual t = s * p[i];
    r[i + 1] = Dual{-t.v, -t.g};
  }
  return r;
}

}  // namespace

std::vector<double> wishart_trace_moments(int d, int n, int jmax) {
  if (jmax > TraceExpectation::kMaxDegree) throw std::invalid_argument("wishart_trace_moments: degree above the engine's limit");
  // The tables of the engine are built once per degree; the moments once per (d, n, j).
  static std::mutex mu;
  static std::map<std::tuple<int, int, int>, double> cache;
  std::vector<double> m(jmax + 1);
  m[0] = d;
  NcPoly p = NcPoly::identity();
  for (int j = 1; j <= jmax; ++j) {
    p = p * NcPoly::S();
    {
      std::lock_guard<std::mutex> lock(mu);
      if (auto it = cache.find({d, n, j}); it != cache.end()) {
        m[j] = it->second;
        continue;
      }
    }
    const TraceExpectation te(p, 0);
    m[j] = te.value({}, Eigen::MatrixXd::Identity(d, d), n);
    std::lock_guard<std::mutex> lock(mu);
    cache[{d, n, j}] = m[j];
  }
  return m;
}

ReducedFamilyLoss::ReducedFamilyLoss(int d, int n, int L, bool with_B) : L_(L), with_B_(with_B) {
  // deg pi: form (8) L; form (11) deg tau_{k+1} = 3 deg tau_k + 1, deg pi = sum_k (1 + 2 deg tau_k).
  int deg = 0, dt = 0;
  for (int k = 0; k < L; ++k) {
    deg += 1 + 2 * dt;
    if (with_B) dt = 3 * dt + 1;
  }
  moments_ = wishart_trace_moments(d, n, 2 * deg);
}

double ReducedFamilyLoss::operator()(const Eigen::Ref<const Eigen::VectorXd>& theta, Eigen::VectorXd& grad) const {
  const int P = size();
  auto var = [&](int k) {
    Dual x{theta[k], Eigen::VectorXd::Zero(P)};
    x.g[k] = 1;
    return x;
  };
  DPoly tau = constant(1, P), pi = constant(1, P);
  for (int k = 0; k < L_; ++k) {
    const Dual a = var(with_B_ ? 2 * k : k);
    const DPoly t2 = mul(tau, tau);
    pi = mul(pi, one_minus_wp(t2, a));
    if (with_B_) tau = mul(tau, one_minus_wp(t2, a * var(2 * k + 1)));
  }
  const DPoly pi2 = mul(pi, pi);
  if (pi2.size() > moments_.size()) throw std::logic_error("ReducedFamilyLoss: degree above the moments computed");
  Dual f{0, Eigen::VectorXd::Zero(P)};
  for (std::size_t j = 0; j < pi2.size(); ++j) f = f + Dual{pi2[j].v * moments_[j], pi2[j].g * moments_[j]};
  grad = f.g;
  return f.v;
}

FamilyOptimum reduced_family_optimum(int d, int n, int L) {
  if (L < 1 || L > 4) throw std::invalid_argument("reduced_family_optimum: L must be 1..4");
  const std::vector<double> m = wishart_trace_moments(d, n, 2 * L);
  Eigen::MatrixXd H(L, L);
  Eigen::VectorXd rhs(L);
  for (int i = 1; i <= L; ++i) {
    rhs[i - 1] = -m[i];
    for (int j = 1; j <= L; ++j) H(i - 1, j - 1) = m[i + j];
  }
  const Eigen::VectorXd c = H.ldlt().solve(rhs);
  FamilyOptimum o;
  // pi(x) = 1 + sum c_j x^j = c_L prod (x - r_k): the roots from the companion matrix of the monic x^L + ... + 1/c_L.
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(L, L);
  for (int i = 1; i < L; ++i) C(i, i - 1) = 1;
  for (int j = 0; j < L; ++j) C(j, L - 1) = -(j == 0 ? 1.0 : c[j - 1]) / c[L - 1];
  const Eigen::VectorXcd roots = Eigen::EigenSolver<Eigen::MatrixXd>(C, false).eigenvalues();
  std::vector<double> a;
  for (int k = 0; k < L; ++k) {
    o.max_root_imag = std::max(o.max_root_imag, std::abs(roots[k].imag()));
    a.push_back(1.0 / roots[k].real());
  }
  std::sort(a.begin(), a.end());
  o.a = Eigen::Map<const Eigen::VectorXd>(a.data(), L);
  const ReducedFamilyLoss fam(d, n, L, false);
  Eigen::VectorXd g;
  o.loss = fam(o.a, g);  // the family's own loss at the optimum (equal to m_0 + c.m up to rounding)
  o.gradient_norm = g.norm();
  return o;
}

}  // namespace icl
