#include "icl/exact/lsa_population_loss.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

namespace icl {

LsaWeights LsaWeights::zero(int d) {
  return {Eigen::MatrixXd::Zero(d + 1, d + 1), Eigen::MatrixXd::Zero(d + 1, d + 1)};
}

LsaWeights LsaWeights::from_theta(int d, const Eigen::Ref<const Eigen::VectorXd>& theta) {
  const int n = d + 1;
  if (theta.size() != 2 * n * n) throw std::invalid_argument("LsaWeights: theta has the wrong size");
  LsaWeights w;
  w.pv = Eigen::Map<const Eigen::MatrixXd>(theta.data(), n, n);
  w.kq = Eigen::Map<const Eigen::MatrixXd>(theta.data() + n * n, n, n);
  return w;
}

Eigen::VectorXd LsaWeights::theta() const {
  const Eigen::Index nn = pv.size();
  Eigen::VectorXd t(2 * nn);
  t.head(nn) = Eigen::Map<const Eigen::VectorXd>(pv.data(), nn);
  t.tail(nn) = Eigen::Map<const Eigen::VectorXd>(kq.data(), nn);
  return t;
}

namespace {

// E[z_i1 ... z_i6] for z ~ N(0, L): the 15 pairings (Isserlis).
double isserlis6(const Eigen::MatrixXd& L, const std::array<int, 6>& i) {
  static constexpr int P[15][6] = {{0, 1, 2, 3, 4, 5}, {0, 1, 2, 4, 3, 5}, {0, 1, 2, 5, 3, 4}, {0, 2, 1, 3, 4, 5},
                                   {0, 2, 1, 4, 3, 5}, {0, 2, 1, 5, 3, 4}, {0, 3, 1, 2, 4, 5}, {0, 3, 1, 4, 2, 5},
                                   {0, 3, 1, 5, 2, 4}, {0, 4, 1, 2, 3, 5}, {0, 4, 1, 3, 2, 5}, {0, 4, 1, 5, 2, 3},
                                   {0, 5, 1, 2, 3, 4}, {0, 5, 1, 3, 2, 4}, {0, 5, 1, 4, 2, 3}};
  double s = 0;
  for (const auto& p : P) s += L(i[p[0]], i[p[1]]) * L(i[p[2]], i[p[3]]) * L(i[p[4]], i[p[5]]);
  return s;
}

double isserlis4(const Eigen::MatrixXd& L, int a, int b, int c, int e) {
  return L(a, b) * L(c, e) + L(a, c) * L(b, e) + L(a, e) * L(b, c);
}

}  // namespace

void PopulationLoss::add_gaussian(const Eigen::MatrixXd& lam, double weight) {
  const int d = d_, n = d + 1, h = d;  // h: the label row
  const double N = N_;
  const Eigen::MatrixXd lam2 = lam * lam;
  const double tr = lam.trace(), tr2 = lam2.trace();
  Eigen::MatrixXd lt = Eigen::MatrixXd::Zero(n, n);  // covariance of the query column (x_q, 0)
  lt.topLeftCorner(d, d) = lam;

  // Sigma_w entries: kind 0 constant Lam_ab, 1 linear (Lam w)_k, 2 quadratic w^T Lam w.
  auto kind = [&](int a, int b) { return (a == h) + (b == h); };
  auto other = [&](int a, int b) { return a == h ? b : a; };
  auto e_sigma = [&](int a, int b) {
    const int k = kind(a, b);
    return k == 0 ? lam(a, b) : (k == 1 ? 0.0 : tr);
  };
  auto e_sigma2 = [&](int a, int b, int c, int e) {  // E_w[Sigma_ab Sigma_ce]
    const int k1 = kind(a, b), k2 = kind(c, e);
    if (k1 == 0 && k2 == 0) return lam(a, b) * lam(c, e);
    if (k1 == 0 && k2 == 2) return lam(a, b) * tr;
    if (k1 == 2 && k2 == 0) return lam(c, e) * tr;
    if (k1 == 1 && k2 == 1) return lam2(other(a, b), other(c, e));
    if (k1 == 2 && k2 == 2) return tr * tr + 2 * tr2;
    return 0.0;  // odd in w
  };

  const int D = n * n * d;
  std::vector<int> A(D), B(D), C(D);
  for (int c = 0; c < d; ++c)
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < n; ++a) {
        const int i = index(a, b, c);
        A[i] = a, B[i] = b, C[i] = c;
      }
  for (int i = 0; i < D; ++i) {
    const int a = A[i], b = B[i], c = C[i];
    if (kind(a, b) == 1) m_[i] += weight * lam2(c, other(a, b));
    for (int j = i; j < D; ++j) {
      const int a2 = A[j], b2 = B[j], c2 = C[j];
      double v = lam(c, c2) * (e_sigma2(a, b, a2, b2) + (e_sigma2(a, a2, b, b2) + e_sigma2(a, b2, b, a2)) / N);
      v += (e_sigma(a, b) * isserlis4(lt, a2, b2, c, c2) + e_sigma(a2, b2) * isserlis4(lt, a, b, c, c2)) / N;
      v += isserlis6(lt, {a, b, a2, b2, c, c2}) / (N * N);
      K_(i, j) += weight * v;
      if (j != i) K_(j, i) += weight * v;
    }
  }
  ey2_ += weight * tr;
}

PopulationLoss PopulationLoss::gaussian(const Eigen::MatrixXd& lambda, int N) { return mixture({1.0}, {lambda}, N); }

PopulationLoss PopulationLoss::mixture(const std::vector<double>& weights, const std::vector<Eigen::MatrixXd>& lambdas,
                                       int N) {
  if (weights.size() != lambdas.size() || lambdas.empty()) throw std::invalid_argument("PopulationLoss: bad mixture");
  if (N < 1) throw std::invalid_argument("PopulationLoss: N >= 1");
  PopulationLoss p;
  p.d_ = static_cast<int>(lambdas[0].rows());
  p.N_ = N;
  const int D = (p.d_ + 1) * (p.d_ + 1) * p.d_;
  p.K_ = Eigen::MatrixXd::Zero(D, D);
  p.m_ = Eigen::VectorXd::Zero(D);
  for (std::size_t k = 0; k < lambdas.size(); ++k) {
    if (lambdas[k].rows() != p.d_ || lambdas[k].cols() != p.d_) throw std::invalid_argument("PopulationLoss: shapes");
    p.add_gaussian(lambdas[k], weights[k]);
  }
  return p;
}

PopulationLoss PopulationLoss::random_diagonal(const std::vector<double>& nodes, const std::vector<double>& weights,
                                               int d, int N) {
  if (nodes.size() != weights.size() || nodes.empty()) throw std::invalid_argument("random_diagonal: bad rule");
  return independent_diagonal(std::vector<std::vector<double>>(static_cast<std::size_t>(d), nodes),
                              std::vector<std::vector<double>>(static_cast<std::size_t>(d), weights), N);
}

PopulationLoss PopulationLoss::independent_diagonal(const std::vector<std::vector<double>>& nodes,
                                                    const std::vector<std::vector<double>>& weights, int N) {
  const int d = static_cast<int>(nodes.size());
  if (d < 1 || weights.size() != nodes.size()) throw std::invalid_argument("independent_diagonal: one rule per entry");
  std::size_t total = 1;
  for (int i = 0; i < d; ++i) {
    if (nodes[i].empty() || nodes[i].size() != weights[i].size())
      throw std::invalid_argument("independent_diagonal: bad rule");
    total *= nodes[i].size();
  }
  std::vector<double> w;
  std::vector<Eigen::MatrixXd> lambdas;
  for (std::size_t code = 0; code < total; ++code) {
    Eigen::VectorXd lam(d);
    double wt = 1;
    std::size_t c = code;
    for (int i = 0; i < d; ++i) {
      const std::size_t k = nodes[i].size();
      lam[i] = nodes[i][c % k];
      wt *= weights[i][c % k];
      c /= k;
    }
    w.push_back(wt);
    lambdas.push_back(lam.asDiagonal());
  }
  return mixture(w, lambdas, N);
}

double PopulationLoss::cross_moment(const LsaWeights& w) const {
  const int d = d_, n = d + 1;
  double s = 0;
  for (int c = 0; c < d; ++c)
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < n; ++a) s += m_[index(a, b, c)] * w.pv(d, a) * w.kq(b, c);
  return s;
}

double PopulationLoss::loss(const LsaWeights& w) const { return loss(w.theta()); }

double PopulationLoss::loss(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  Eigen::VectorXd g(theta.size());
  return loss_and_gradient(theta, g);
}

double PopulationLoss::loss_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& theta,
                                         Eigen::Ref<Eigen::VectorXd> grad) const {
  const int d = d_, n = d + 1;
  if (theta.size() != 2 * n * n || grad.size() != theta.size()) throw std::invalid_argument("loss: theta size");
  const Eigen::Map<const Eigen::MatrixXd> pv(theta.data(), n, n), kq(theta.data() + n * n, n, n);
  Eigen::VectorXd p(K_.rows());
  for (int c = 0; c < d; ++c)
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < n; ++a) p[index(a, b, c)] = pv(d, a) * kq(b, c);
  Eigen::VectorXd Kp = K_.selfadjointView<Eigen::Upper>() * p;
  const double L = 0.5 * (p.dot(Kp) - 2 * m_.dot(p) + ey2_);
  Kp -= m_;  // dL/dp
  grad.setZero();
  Eigen::Map<Eigen::MatrixXd> gpv(grad.data(), n, n), gkq(grad.data() + n * n, n, n);
  for (int c = 0; c < d; ++c)
    for (int b = 0; b < n; ++b)
      for (int a = 0; a < n; ++a) {
        const double g = Kp[index(a, b, c)];
        gpv(d, a) += g * kq(b, c);
        gkq(b, c) += g * pv(d, a);
      }
  return L;
}

double PopulationLoss::tensor_lower_bound() const {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(K_);
  const Eigen::VectorXd& ev = es.eigenvalues();
  const double cut = 1e-12 * std::max(1.0, ev.cwiseAbs().maxCoeff());
  const Eigen::VectorXd mt = es.eigenvectors().transpose() * m_;
  double q = 0;
  for (Eigen::Index i = 0; i < ev.size(); ++i)
    if (ev[i] > cut) q += mt[i] * mt[i] / ev[i];
  return 0.5 * (ey2_ - q);
}

Eigen::MatrixXd PopulationLoss::reduced_minimiser() const {
  const int d = d_;
  Eigen::MatrixXd Kr(d * d, d * d);
  Eigen::VectorXd mr(d * d);
  for (int c = 0; c < d; ++c)
    for (int b = 0; b < d; ++b) {
      const int r = b + d * c;
      mr[r] = m_[index(d, b, c)];
      for (int c2 = 0; c2 < d; ++c2)
        for (int b2 = 0; b2 < d; ++b2) Kr(r, b2 + d * c2) = K_(index(d, b, c), index(d, b2, c2));
    }
  const Eigen::VectorXd v = Kr.ldlt().solve(mr);
  return Eigen::Map<const Eigen::MatrixXd>(v.data(), d, d);
}

// ---------------------------------------------------------------------------------------------------

}  // namespace icl
