#include "icl/exact/acds_population.hpp"

#include <stdexcept>

namespace icl {

// Base matrices: A_0..A_{L-1}, then (form (11)) B_0..B_{L-1}, then Sigma, then Sigma_w.
AcdsPopulation::AcdsPopulation(Eigen::MatrixXd sigma, Eigen::MatrixXd sigma_w, int n, int L, bool form11)
    : sigma_(std::move(sigma)), sigma_w_(std::move(sigma_w)), n_(n), L_(L), form11_(form11) {
  const int d = static_cast<int>(sigma_.rows());
  if (d < 1 || sigma_.cols() != d || sigma_w_.rows() != d || sigma_w_.cols() != d)
    throw std::invalid_argument("AcdsPopulation: Sigma and Sigma_w must be d x d");
  if (n < 1 || L < 1) throw std::invalid_argument("AcdsPopulation: n, L >= 1");
  const int nb = form11 ? 2 * L : L;
  const int id_sigma = nb, id_sigma_w = nb + 1;
  const NcPoly I = NcPoly::identity(), S = NcPoly::S();
  NcPoly T = I, Pi = I;
  for (int k = 0; k < L; ++k) {
    const NcPoly A = NcPoly::base(k);
    const NcPoly C = T.transpose() * A * T;
    Pi = Pi * (I - S * C);
    if (form11 && k + 1 < L) T = T - NcPoly::base(L + k) * T * S * C;
  }
  const NcPoly loss = NcPoly::base(id_sigma_w) * Pi * NcPoly::base(id_sigma) * Pi.transpose();
  expectation_ = std::make_shared<TraceExpectation>(loss, nb + 2);
}

std::vector<Eigen::MatrixXd> AcdsPopulation::bases(const std::vector<Eigen::MatrixXd>& A,
                                                   const std::vector<Eigen::MatrixXd>& B) const {
  if (static_cast<int>(A.size()) != L_) throw std::invalid_argument("AcdsPopulation: need L matrices A_i");
  if (form11_ && static_cast<int>(B.size()) != L_) throw std::invalid_argument("AcdsPopulation: need L matrices B_i");
  std::vector<Eigen::MatrixXd> b(A);
  if (form11_) b.insert(b.end(), B.begin(), B.end());
  b.push_back(sigma_);
  b.push_back(sigma_w_);
  return b;
}

double AcdsPopulation::loss(const std::vector<Eigen::MatrixXd>& A, const std::vector<Eigen::MatrixXd>& B) const {
  return expectation_->value(bases(A, B), sigma_, n_);
}

double AcdsPopulation::loss_and_gradient(const std::vector<Eigen::MatrixXd>& A, const std::vector<Eigen::MatrixXd>& B,
                                         std::vector<Eigen::MatrixXd>& gA, std::vector<Eigen::MatrixXd>& gB) const {
  std::vector<Eigen::MatrixXd> g;
  const double v = expectation_->value_and_gradient(bases(A, B), sigma_, n_, g);
  gA.assign(g.begin(), g.begin() + L_);
  if (form11_)
    gB.assign(g.begin() + L_, g.begin() + 2 * L_);
  else
    gB.clear();
  return v;
}

}  // namespace icl
