#include "constructions/sja_algorithm1.hpp"

#include "icl/model/tasks.hpp"

#include <stdexcept>

namespace icl::sja {

Stage1Problem::Stage1Problem(int d, int dbar, Eigen::MatrixXd gamma)
    : d_(d), dbar_(dbar), m_((d + 1) * (d + 2) / 2), gamma_(std::move(gamma)) {
  if (d < 1 || dbar < d + 1) throw std::invalid_argument("Stage1Problem: d >= 1, dbar >= d + 1");
  if (gamma_.rows() != dbar || gamma_.cols() != dbar) throw std::invalid_argument("Stage1Problem: Gamma must be dbar x dbar");
  index_.resize(d + 1, d + 1);
  std::vector<Polynomial<Rational>> basis;
  int k = 0;
  for (int p = 0; p <= d; ++p)
    for (int q = p; q <= d; ++q) {
      Exponent e(static_cast<std::size_t>(d), 0);
      if (p > 0) ++e[static_cast<std::size_t>(p - 1)];
      if (q > 0) ++e[static_cast<std::size_t>(q - 1)];
      basis.push_back(Polynomial<Rational>::monomial(e, Rational(1)));
      index_(p, q) = index_(q, p) = k++;
    }
  base_ = feature_moments(basis, PolynomialTask::quadratic(d));
}

Eigen::MatrixXd Stage1Problem::coefficients(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  if (theta.size() != size()) throw std::invalid_argument("Stage1Problem: theta size");
  const int w = d_ + 1, off = dbar_ * w;
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(dbar_, m_);
  for (int j = 0; j < dbar_; ++j) {
    if (j <= d_) C(j, index_(0, j)) += 1.0;  // the residual: row j of the embedding (1, x, 0...)
    for (int p = 0; p <= d_; ++p)
      for (int q = 0; q <= d_; ++q) C(j, index_(p, q)) += theta[j * w + p] * theta[off + j * w + q];
  }
  return C;
}

FeatureMoments Stage1Problem::features(const Eigen::MatrixXd& C) const {
  FeatureMoments f;
  f.Lambda = C * base_.Lambda * C.transpose();
  f.S = C * base_.S * C.transpose();
  f.K4 = C * base_.K4 * C.transpose();
  f.Ey2 = base_.Ey2;
  return f;
}

double Stage1Problem::loss(const Eigen::Ref<const Eigen::VectorXd>& theta, double n, Eigen::VectorXd* grad) const {
  const Eigen::MatrixXd C = coefficients(theta);
  const FeatureMoments f = features(C);
  const double value = sparse_lsa_loss(f, gamma_, n);
  if (!grad) return value;
  const Eigen::MatrixXd N = (1 - 1 / n) * base_.S + (1 / n) * base_.K4;
  const Eigen::MatrixXd B = C * N * C.transpose();
  const Eigen::MatrixXd X = gamma_.transpose() * B * gamma_;
  const Eigen::MatrixXd Y = gamma_ * f.Lambda * gamma_.transpose();
  const Eigen::MatrixXd G = 2 * (gamma_ + gamma_.transpose()) * C * base_.S + (X + X.transpose()) * C * base_.Lambda +
                            (Y + Y.transpose()) * C * N;
  const int w = d_ + 1, off = dbar_ * w;
  grad->setZero(size());
  for (int j = 0; j < dbar_; ++j)
    for (int p = 0; p <= d_; ++p)
      for (int q = 0; q <= d_; ++q) {
        const double g = G(j, index_(p, q));
        (*grad)[j * w + p] += g * theta[off + j * w + q];
        (*grad)[off + j * w + q] += g * theta[j * w + p];
      }
  return value;
}

BilinearLayer Stage1Problem::layer(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  const int w = d_ + 1, off = dbar_ * w;
  BilinearLayer l;
  l.W0 = Eigen::MatrixXd::Zero(dbar_, dbar_);
  l.W1 = Eigen::MatrixXd::Zero(dbar_, dbar_);
  for (int j = 0; j < dbar_; ++j)
    for (int p = 0; p <= d_; ++p) {
      l.W0(j, p) = theta[j * w + p];
      l.W1(j, p) = theta[off + j * w + p];
    }
  return l;
}

Eigen::VectorXd Stage1Problem::target_spectrum() const {
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(base_.S, base_.Lambda);
  return es.eigenvalues();
}

}  // namespace icl::sja
