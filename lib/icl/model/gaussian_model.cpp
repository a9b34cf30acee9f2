#include "icl/model/gaussian_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace icl {

GaussianIclModel GaussianIclModel::from_task(const PolynomialTask& task, const Eigen::MatrixXd& sigma) {
  std::vector<Poly> basis;
  for (const auto& e : task.monomials) basis.push_back(Poly::monomial(e, 1.0));
  return from_basis(task.d, std::move(basis), sigma, task.name);
}

GaussianIclModel GaussianIclModel::from_basis(int d, std::vector<Poly> basis, const Eigen::MatrixXd& sigma,
                                              std::string name) {
  GaussianIclModel m;
  m.d = d;
  m.sigma = sigma;
  m.basis = std::move(basis);
  m.name = std::move(name);
  for (const auto& g : m.basis)
    if (g.nvars() != d) throw std::invalid_argument("GaussianIclModel: basis polynomial arity");
  if (sigma.rows() != d || sigma.cols() != d) throw std::invalid_argument("GaussianIclModel: Sigma shape");
  return m;
}

Eigen::MatrixXd GaussianIclModel::cholesky() const {
  Eigen::LLT<Eigen::MatrixXd> llt(sigma);
  if (llt.info() != Eigen::Success) throw std::invalid_argument("Sigma is not positive definite");
  return llt.matrixL();
}

std::vector<Poly> GaussianIclModel::inputs() const {
  const int nv = num_vars();
  const Eigen::MatrixXd L = cholesky();
  std::vector<Poly> xs;
  for (int i = 0; i < d; ++i) {
    Poly xi(nv);
    for (int j = 0; j <= i; ++j)
      if (L(i, j) != 0.0) xi += Poly::variable(nv, j) * L(i, j);
    xs.push_back(xi);
  }
  return xs;
}

Poly GaussianIclModel::compose(const Poly& f) const {
  if (f.nvars() != d) throw std::invalid_argument("compose: polynomial must be in the d input variables");
  const bool isotropic = sigma.isApprox(Eigen::MatrixXd::Identity(d, d), 0.0);
  if (isotropic) return lift(f, num_vars());
  return f.substitute(inputs());
}

Poly GaussianIclModel::label() const {
  const int nv = num_vars();
  Poly y(nv);
  for (int m = 0; m < num_coefficients(); ++m) {
    const Poly g = compose(basis[m]);
    if (random_w)
      y += Poly::variable(nv, example_vars() + m) * g;
    else
      y += g * fixed_w[m];
  }
  if (noise_sd > 0) y += Poly::variable(nv, d) * noise_sd;
  return y;
}

GaussianPromptSampler::GaussianPromptSampler(const GaussianIclModel& task, int columns)
    : task_(&task), chol_(task.cholesky()) {
  for (const auto& g : task.basis) basis_.emplace_back(g);
  isotropic_ = task.sigma.isApprox(Eigen::MatrixXd::Identity(task.d, task.d), 0.0);
  X_.resize(task.d, columns);
  w_.resize(task.num_coefficients());
  y_.resize(columns);
  xcol_.resize(task.d);
}

void GaussianPromptSampler::draw(PromptRng& rng) {
  rng.fill_normal(w_);
  rng.fill_normal(X_);
  const Eigen::Index d = X_.rows();
  if (!isotropic_)
    for (Eigen::Index c = 0; c < X_.cols(); ++c)
      for (Eigen::Index r = d - 1; r >= 0; --r) {
        double s = 0;
        for (Eigen::Index j = 0; j <= r; ++j) s += chol_(r, j) * X_(j, c);
        X_(r, c) = s;
      }
  const Eigen::VectorXd& w = task_->random_w ? w_ : task_->fixed_w;
  for (Eigen::Index c = 0; c < X_.cols(); ++c) {
    for (Eigen::Index r = 0; r < d; ++r) xcol_[r] = X_(r, c);
    double y = 0;
    for (std::size_t m = 0; m < basis_.size(); ++m) y += w[static_cast<Eigen::Index>(m)] * basis_[m].evaluate(xcol_.data());
    if (task_->noise_sd > 0) y += task_->noise_sd * rng.normal();
    y_[c] = y;
  }
}

CovarianceFault covariance_fault(const Eigen::MatrixXd& s, int d) {
  if (s.rows() != d || s.cols() != d) return CovarianceFault::shape;
  if (!s.allFinite()) return CovarianceFault::non_finite;
  if ((s - s.transpose()).cwiseAbs().maxCoeff() > 1e-12 * std::max(1.0, s.cwiseAbs().maxCoeff()))
    return CovarianceFault::not_symmetric;
  if (Eigen::LLT<Eigen::MatrixXd>(s).info() != Eigen::Success) return CovarianceFault::not_positive_definite;
  return CovarianceFault::none;
}

Eigen::MatrixXd test_covariance(int d, int kind) {
  if (kind == 0) return Eigen::MatrixXd::Identity(d, d);
  Eigen::VectorXd lam(d);
  const double lo = kind == 3 ? 0.1 : 0.5, hi = kind == 3 ? 10.0 : 2.0;
  for (int i = 0; i < d; ++i) lam[i] = d == 1 ? hi : lo * std::pow(hi / lo, static_cast<double>(i) / (d - 1));
  Eigen::MatrixXd U = Eigen::MatrixXd::Identity(d, d);
  if (kind >= 2 && d > 1) {
    Eigen::VectorXd v(d);
    for (int i = 0; i < d; ++i) v[i] = i + 1.0;
    v.normalize();
    U -= 2.0 * v * v.transpose();
  }
  if (kind < 0 || kind > 3) throw std::invalid_argument("test_covariance: kind must be 0..3");
  return U * lam.asDiagonal() * U.transpose();
}

std::string covariance_name(int kind, int d) {
  if (d != 1) return covariance_name(kind);
  const Eigen::MatrixXd s = test_covariance(1, kind);
  return fmt::format("variance {:g}", s(0, 0));
}

std::string covariance_name(int kind) {
  switch (kind) {
    case 0: return "isotropic";
    case 1: return "diagonal, spectrum [1/2, 2]";
    case 2: return "rotated, spectrum [1/2, 2]";
    case 3: return "rotated, ill-conditioned, spectrum [1/10, 10]";
    default: return "?";
  }
}

const std::vector<std::pair<double, std::string>>& test_covariance_names() {
  static const std::vector<std::pair<double, std::string>> names = {
      {0, "isotropic"}, {1, "diagonal"}, {2, "rotated"}, {3, "rot-k100"}};
  return names;
}

Eigen::MatrixXd random_orthogonal(int d, std::uint64_t seed, std::uint64_t purpose) {
  PromptRng rng(seed, purpose, 0);
  Eigen::MatrixXd G(d, d);
  rng.fill_normal(G);
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(G);
  Eigen::MatrixXd Q = qr.householderQ();
  const Eigen::MatrixXd R = qr.matrixQR().triangularView<Eigen::Upper>();
  for (int j = 0; j < d; ++j)
    if (R(j, j) < 0) Q.col(j) *= -1.0;
  return Q;
}

GaussianIclModel inverse_weight_model(const Eigen::MatrixXd& sigma) {
  const int d = static_cast<int>(sigma.rows());
  const Eigen::MatrixXd Cinv = Eigen::MatrixXd(sigma.llt().matrixL()).inverse();
  std::vector<Poly> basis;
  for (int m = 0; m < d; ++m) {
    Poly g(d);
    for (int j = 0; j < d; ++j) g += Poly::variable(d, j) * Cinv(m, j);
    basis.push_back(g);
  }
  return GaussianIclModel::from_basis(d, basis, sigma, "y = <w, x>, w ~ N(0, Sigma^-1)");
}

}  // namespace icl
