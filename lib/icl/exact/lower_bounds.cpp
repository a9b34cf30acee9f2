#include "icl/exact/lower_bounds.hpp"

#include <algorithm>

namespace icl {

double projection_infimum(const Eigen::MatrixXd& C, int rank) {
  const Eigen::Index m = C.rows();
  if (rank >= m) return 0.0;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (C + C.transpose()));
  const Eigen::VectorXd ev = es.eigenvalues();  // ascending
  return ev.head(m - std::max(rank, 0)).sum();
}

namespace {
Eigen::MatrixXd cross_moments(const GaussianIclModel& model, const std::vector<Poly>& a, const std::vector<Poly>& b) {
  std::vector<FlatPoly> fa, fb;
  for (const auto& p : a) fa.emplace_back(model.compose(p));
  for (const auto& p : b) fb.emplace_back(model.compose(p));
  Eigen::MatrixXd M(fa.size(), fb.size());
  for (std::size_t i = 0; i < fa.size(); ++i)
    for (std::size_t j = 0; j < fb.size(); ++j) M(i, j) = expect_product(fa[i], fb[j]);
  return M;
}
}  // namespace

Eigen::MatrixXd projection_matrix_B(const GaussianIclModel& model, const std::vector<Poly>& v) {
  return cross_moments(model, v, model.basis);
}

Eigen::MatrixXd coefficient_covariance(const GaussianIclModel& model, const std::vector<Poly>& v) {
  const Eigen::MatrixXd B = projection_matrix_B(model, v);
  return B * B.transpose();
}

Eigen::MatrixXd feature_projection(const GaussianIclModel& model, const std::vector<Poly>& v,
                                   const std::vector<Poly>& features) {
  return cross_moments(model, v, features);
}

int numerical_rank(const Eigen::MatrixXd& U, double rel_tol) {
  if (U.size() == 0) return 0;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(U);
  const Eigen::VectorXd s = svd.singularValues();
  if (s.size() == 0 || s[0] == 0) return 0;
  int r = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s[i] > rel_tol * s[0]) ++r;
  return r;
}

double projected_residual(const Eigen::MatrixXd& C, const Eigen::MatrixXd& U) {
  const Eigen::Index m = C.rows();
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(m, m);
  const int r = numerical_rank(U);
  if (r > 0) {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(U, Eigen::ComputeThinU);
    const Eigen::MatrixXd Q = svd.matrixU().leftCols(r);
    P = Q * Q.transpose();
  }
  return ((Eigen::MatrixXd::Identity(m, m) - P) * C).trace();
}

}  // namespace icl
