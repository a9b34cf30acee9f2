// Zhang, Frei, Bartlett (003): the initialisation of Assumption 3 and the stated limits of Theorem 4
// (eq. 11) and Theorem 8 (eq. 22), as weight matrices W^{PV}, W^{KQ} in R^{(d+1)x(d+1)}.
#pragma once
#include "icl/exact/lsa_population_loss.hpp"

#include <Eigen/Dense>

#include <cstdint>

namespace icl::zfb {

// Gamma = (1 + 1/N) Lam + tr(Lam)/N I (Theorem 4).
Eigen::MatrixXd zfb_gamma(const Eigen::MatrixXd& lambda, int N);

// Assumption 3 (eq. 10): W^{PV}(0) = sigma [0, 0; 0, 1], W^{KQ}(0) = sigma [Theta Theta^T, 0; 0, 0]
// (Theta is rescaled so that ||Theta Theta^T||_F = 1).
LsaWeights assumption3_init(double sigma, const Eigen::MatrixXd& theta);

// Test family for Theta: kind 0, 1 Gaussian d x d matrices; kind 2 rank one (Theta = v e_1^T).
Eigen::MatrixXd assumption3_theta(int kind, int d, std::uint64_t seed);

// sigma_max of Theorem 4: sigma^2 ||Gamma||_op sqrt(d) < 2.
double thm4_sigma_bound(const Eigen::MatrixXd& lambda, int N);

// Theorem 4 (eq. 11): W^{KQ}_* = tr(Gamma^-2)^{-1/4} [Gamma^-1, 0; 0, 0], W^{PV}_* = tr(Gamma^-2)^{1/4} [0, 0; 0, 1].
LsaWeights thm4_limit(const Eigen::MatrixXd& lambda, int N);

// Theorem 8 (eq. 22) with A = [E Gamma_tau Lambda_tau^2]^{-1} E Lambda_tau^2:
// W^{KQ}_* = ||A||_F^{-1/2} [A, 0; 0, 0], W^{PV}_* = ||A||_F^{1/2} [0, 0; 0, 1].
LsaWeights thm8_limit(const Eigen::MatrixXd& e_gamma_lambda2, const Eigen::MatrixXd& e_lambda2);

// The product B = w^{PV}_22 W^{KQ}_11 that the prediction of a reduced-form model uses:
// yhat = w^T (sum_i x_i x_i^T / N) B x_q.
Eigen::MatrixXd reduced_product(const LsaWeights& w);

}  // namespace icl::zfb
