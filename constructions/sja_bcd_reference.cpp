#include "constructions/sja_bcd_reference.hpp"

#include "icl/montecarlo/worst_case.hpp"

#include <algorithm>
#include <cmath>

namespace icl::sja {

double label_row_error(const Eigen::Ref<const Eigen::RowVectorXd>& z, const MatrixS<long double>& Phi,
                       const Eigen::RowVectorXd& y, const VectorS<long double>& w, int n,
                       const MatrixS<long double>* PhiAbs) {
  double worst = 0;
  for (int c = 0; c <= n; ++c) {
    long double f = 0, scale = c < n ? std::abs(static_cast<long double>(y[c])) : 0.0L;
    for (Eigen::Index m = 0; m < Phi.rows(); ++m) {
      f += w[m] * Phi(m, c);
      scale += PhiAbs ? std::abs(w[m]) * (*PhiAbs)(m, c) : std::abs(w[m] * Phi(m, c));
    }
    const long double ref = (c < n ? static_cast<long double>(y[c]) : 0.0L) + f;
    worst = std::max(worst, scaled_error(z[c], static_cast<double>(ref), static_cast<double>(scale)));
  }
  return worst;
}

BcdReference::BcdReference(MatrixS<long double> PhiL, Eigen::MatrixXd PhiD, Eigen::RowVectorXd y, int n,
                           const std::vector<BlockStep>& steps, MatrixS<long double> PhiAbs)
    : PhiL_(std::move(PhiL)), PhiAbs_(std::move(PhiAbs)), PhiD_(std::move(PhiD)), y_(std::move(y)), n_(n) {
  const Eigen::Index m = PhiL_.rows();
  wL_ = block_coordinate_descent<long double>(PhiL_.leftCols(n), -y_.head(n).transpose().cast<long double>(), steps,
                                              VectorS<long double>::Zero(m));
  wD_ = block_coordinate_descent<double>(PhiD_.leftCols(n), -y_.head(n).transpose(), steps, Eigen::VectorXd::Zero(m));
}

double BcdReference::self_error(std::size_t l) const {
  Eigen::RowVectorXd zref = y_ + (PhiD_.transpose() * wD_[l]).transpose();
  zref[n_] -= y_[n_];
  return label_error(zref, l);
}

double BcdReference::final_query() const {
  long double ref = 0;
  for (Eigen::Index k = 0; k < PhiL_.rows(); ++k) ref += wL_.back()[k] * PhiL_(k, n_);
  return static_cast<double>(ref);
}

bool BcdReference::leaves_double_range(long double limit) const {
  for (const auto& w : wL_)
    for (Eigen::Index c = 0; c < PhiL_.cols(); ++c)
      for (Eigen::Index k = 0; k < PhiL_.rows(); ++k)
        if (!(std::fabs(w[k] * PhiL_(k, c)) <= limit)) return true;  // NaN counts as out of range
  return false;
}

}  // namespace icl::sja
