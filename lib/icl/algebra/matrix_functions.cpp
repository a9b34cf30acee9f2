#include "icl/algebra/matrix_functions.hpp"

#include <algorithm>
#include <cmath>

namespace icl {

Eigen::MatrixXd sqrt_psd(const Eigen::MatrixXd& S) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(S);
  return es.eigenvectors() * es.eigenvalues().cwiseMax(0.0).cwiseSqrt().asDiagonal() * es.eigenvectors().transpose();
}

double dist_identity(const Eigen::MatrixXd& M) {
  const double f2 = M.squaredNorm();
  if (!(f2 > 0)) return 1.0;
  const double tr = M.trace();
  return std::sqrt(std::max(0.0, 1.0 - tr * tr / (static_cast<double>(M.rows()) * f2)));
}

}  // namespace icl
