#include "icl/algebra/matrix_functions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

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

Eigen::MatrixXd inverse_on_support(const Eigen::MatrixXd& M, double scale) {
  std::vector<Eigen::Index> rows;
  for (Eigen::Index i = 0; i < M.rows(); ++i)
    if (M(i, i) != 0) rows.push_back(i);
  Eigen::MatrixXd sub(rows.size(), rows.size());
  for (std::size_t a = 0; a < rows.size(); ++a)
    for (std::size_t b = 0; b < rows.size(); ++b) sub(a, b) = M(rows[a], rows[b]);
  const Eigen::MatrixXd inv = sub.inverse();
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(M.rows(), M.cols());
  for (std::size_t a = 0; a < rows.size(); ++a)
    for (std::size_t b = 0; b < rows.size(); ++b) g(rows[a], rows[b]) = scale * inv(a, b);
  return g;
}

}  // namespace icl
