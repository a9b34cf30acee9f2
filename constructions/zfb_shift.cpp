#include "constructions/zfb_shift.hpp"

#include <cmath>

namespace icl::zfb {

Eigen::MatrixXd shift_lambda(int d) {
  Eigen::VectorXd lam(d);
  for (int i = 0; i < d; ++i) lam[i] = d == 1 ? 1.0 : std::pow(4.0, -static_cast<double>(i) / (d - 1));
  return lam.asDiagonal();
}

double conditional_mean(const LsaWeights& W, const Eigen::MatrixXd& lam, int M, const Eigen::VectorXd& w,
                        const Eigen::VectorXd& xq) {
  const int d = W.d();
  Eigen::MatrixXd A(d + 1, d);
  A.topRows(d).setIdentity();
  A.row(d) = w.transpose();
  Eigen::VectorXd zq = Eigen::VectorXd::Zero(d + 1);
  zq.head(d) = xq;
  const Eigen::MatrixXd EG = A * lam * A.transpose() + zq * zq.transpose() / M;
  return W.pv.row(d) * EG * W.kq.leftCols(d) * xq;
}

PopulationLoss shift_loss(bool random_cov, const GaussRule& rule, const Eigen::MatrixXd& lambda, int d, int N) {
  return random_cov ? PopulationLoss::random_diagonal(rule.nodes, rule.weights, d, N) : PopulationLoss::gaussian(lambda, N);
}

ShiftCase shift_train_case(std::uint64_t seed, int case_d, int case_n, int scenario, const GaussRule& rule, const FlowOptions& opt) {
  ShiftCase s;
  s.d = case_d, s.n = case_n, s.sc = scenario;
  const int d = s.d, n = s.n;
  s.random_cov = s.sc >= 2;
  s.scale = s.sc == 0 ? 0.5 : s.sc == 1 ? 2.0 : 1.0;
  s.lambda = shift_lambda(d), s.I = Eigen::MatrixXd::Identity(d, d);
  const PopulationLoss pl = shift_loss(s.random_cov, rule, s.lambda, d, n);
  const double sigma = s.random_cov ? 0.1 : 0.5 * thm4_sigma_bound(s.lambda, n);
  const LsaWeights init = assumption3_init(sigma, assumption3_theta(0, d, seed));
  s.target = s.random_cov ? thm8_limit(((n + 1.0) / n * kExpM3 + (kExpM3 + (d - 1) * kExpM1 * kExpM2) / n) * s.I, kExpM2 * s.I)
                          : thm4_limit(s.lambda, n);
  s.z = zfb_gradient_flow(pl, init, s.target, opt);
  s.converged = s.z->flow.status == FlowStatus::converged;
  s.xq = Eigen::VectorXd::LinSpaced(d, 1.0, 0.5), s.wfix = Eigen::VectorXd::Ones(d);
  s.test_lam = s.random_cov ? (kExpM1 * s.I).eval() : (s.scale * s.scale * s.lambda).eval();
  return s;
}

}  // namespace icl::zfb
