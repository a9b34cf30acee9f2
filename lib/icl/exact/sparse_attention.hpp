// Exact loss of one linear self-attention layer in the sparse form P = e e^T, Q = diag(Gamma, 0)
// acting on features u(x) (polynomials; the prompt columns are (u(x_i), y_i) and (u(x_q), 0)),
// with targets y = w^T phi(x), x ~ N(0, I). The prediction is yhat = (1/n) sum_i y_i u_i^T Gamma u_q
// and the sja/acds loss is E[(yhat + y_q)^2].
//
// Expanding the square directly (independently of any paper's lemma):
//   E[(yhat + y_q)^2] = E y^2 + 2 tr(Gamma S) + (1 - 1/n) tr(Gamma Lam Gamma^T S)
//                                             + (1/n)     tr(Gamma Lam Gamma^T K4),
// with Lam = E[u u^T], S = E[xi xi^T] where xi = E_x[u y] (averaged over w, or xi xi^T for one fixed
// w), K4 = E[y^2 u u^T], E y^2. All are Gaussian moments of polynomials, computed exactly.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/algebra/rational_matrix.hpp"
#include "icl/model/tasks.hpp"

#include <Eigen/Dense>
#include <vector>

namespace icl {

struct FeatureMoments {
  Eigen::MatrixXd Lambda;  // E[u u^T]
  Eigen::MatrixXd S;       // E_w[xi xi^T]  (xi xi^T for a fixed w)
  Eigen::MatrixXd K4;      // E[y^2 u u^T]  (averaged over w, or for the fixed w)
  double Ey2 = 0;          // E[y^2]
  Eigen::VectorXd xi;      // E[u y] for a fixed w (empty when averaged over w)
};

// The loss of the best linear predictor on the features, min_beta E(<beta, u> - y)^2 = E[y^2] - tr(Lambda^-1 S)
// (averaged over w where the moments are).
double best_predictor_loss(const FeatureMoments& m);

// Averaged over w ~ N(0, I): exact in rational arithmetic, converted to double at the end.
FeatureMoments feature_moments(const std::vector<Polynomial<Rational>>& u, const PolynomialTask& task);
// For one fixed coefficient vector w.
FeatureMoments feature_moments_fixed_w(const std::vector<Polynomial<Rational>>& u, const PolynomialTask& task,
                                       const Eigen::VectorXd& w);

double sparse_lsa_loss(const FeatureMoments& m, const Eigen::MatrixXd& Gamma, double n);

// The same moments as exact fractions, averaged over w ~ N(0, I), and the loss as one: for a value that must come out
// exactly (the reconstruction of a closed form from exact values, verdict/proposed_correction.hpp). The double
// functions above stay as they are: their numbers are what the reports have always held.
struct ExactFeatureMoments {
  RationalMatrix Lambda, S, K4;
  Rational Ey2;
};
ExactFeatureMoments exact_feature_moments(const std::vector<Polynomial<Rational>>& u, const PolynomialTask& task);
Rational sparse_lsa_loss(const ExactFeatureMoments& m, const RationalMatrix& Gamma, const Rational& n);
// Its gradient in Gamma: 2 S + 2 M Gamma Lam, M = (1 - 1/n) S + (1/n) K4 (S, Lam, K4 symmetric).
Eigen::MatrixXd sparse_lsa_gradient(const FeatureMoments& m, const Eigen::MatrixXd& Gamma, double n);

}  // namespace icl
