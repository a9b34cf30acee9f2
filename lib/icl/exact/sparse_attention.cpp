#include "icl/exact/sparse_attention.hpp"

namespace icl {

FeatureMoments feature_moments(const std::vector<Polynomial<Rational>>& u, const PolynomialTask& task) {
  const int d = task.d;
  const auto phi = task.features();
  const auto one = Polynomial<Rational>::constant(d, Rational(1));
  FeatureMoments m;
  m.Lambda = to_eigen(moment_matrix(u, u, one));
  const Eigen::MatrixXd C = to_eigen(moment_matrix(phi, u, one));  // C[m][a] = E[phi_m u_a]
  m.S = C.transpose() * C;                                          // sum_m c_m c_m^T
  const auto k = task.kernel_diagonal();                            // E_w[y^2 | x]
  m.K4 = to_eigen(moment_matrix(u, u, k));
  m.Ey2 = to_double(k.gaussian_expectation());
  return m;
}

FeatureMoments feature_moments_fixed_w(const std::vector<Polynomial<Rational>>& u, const PolynomialTask& task,
                                       const Eigen::VectorXd& w) {
  const int d = task.d;
  Polynomial<double> y(d);
  for (int i = 0; i < task.num_coefficients(); ++i) y += Polynomial<double>::monomial(task.monomials[i], w[i]);
  std::vector<Polynomial<double>> ud;
  for (const auto& p : u) ud.push_back(p.to_double_poly());
  const auto one = Polynomial<double>::constant(d, 1.0);
  FeatureMoments m;
  m.Lambda = to_eigen(moment_matrix(ud, ud, one));
  m.xi.resize(static_cast<Eigen::Index>(u.size()));
  for (std::size_t a = 0; a < u.size(); ++a) m.xi[a] = (ud[a] * y).gaussian_expectation();
  m.S = m.xi * m.xi.transpose();
  m.K4 = to_eigen(moment_matrix(ud, ud, y * y));
  m.Ey2 = (y * y).gaussian_expectation();
  return m;
}

double best_predictor_loss(const FeatureMoments& m) { return m.Ey2 - (m.Lambda.inverse() * m.S).trace(); }

double sparse_lsa_loss(const FeatureMoments& m, const Eigen::MatrixXd& G, double n) {
  const Eigen::MatrixXd GLG = G * m.Lambda * G.transpose();
  return m.Ey2 + 2.0 * (G * m.S).trace() + (1.0 - 1.0 / n) * (GLG * m.S).trace() + (GLG * m.K4).trace() / n;
}

ExactFeatureMoments exact_feature_moments(const std::vector<Polynomial<Rational>>& u, const PolynomialTask& task) {
  const int d = task.d;
  const auto phi = task.features();
  const auto one = Polynomial<Rational>::constant(d, Rational(1));
  ExactFeatureMoments m;
  m.Lambda = RationalMatrix::from_rows(moment_matrix(u, u, one));
  const RationalMatrix C = RationalMatrix::from_rows(moment_matrix(phi, u, one));  // C[m][a] = E[phi_m u_a]
  m.S = C.transpose() * C;
  const auto k = task.kernel_diagonal();  // E_w[y^2 | x]
  m.K4 = RationalMatrix::from_rows(moment_matrix(u, u, k));
  m.Ey2 = k.gaussian_expectation();
  return m;
}

Rational sparse_lsa_loss(const ExactFeatureMoments& m, const RationalMatrix& G, const Rational& n) {
  const RationalMatrix GLG = G * m.Lambda * G.transpose();
  return m.Ey2 + Rational(2) * (G * m.S).trace() + (Rational(1) - Rational(1) / n) * (GLG * m.S).trace() +
         (GLG * m.K4).trace() / n;
}

Eigen::MatrixXd sparse_lsa_gradient(const FeatureMoments& m, const Eigen::MatrixXd& G, double n) {
  const Eigen::MatrixXd M = (1.0 - 1.0 / n) * m.S + m.K4 / n;
  return 2.0 * m.S + 2.0 * M * G * m.Lambda;
}

}  // namespace icl
