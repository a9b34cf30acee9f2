// A task law of one's own: the linear task with x ~ N(0, Sigma) and w ~ N(0, Sigma_w) (any symmetric positive
// definite Sigma_w; acds's law is Sigma^-1), as a GaussianIclModel the exact and Monte Carlo engines take alike.
// y = <w, x> with w = C u, u ~ N(0, I), C C^T = Sigma_w (Cholesky): y = <u, C^T x>, i.e. the linear task on the basis
// (C^T x)_m, whose coefficients u are standard normal as the engines draw them.
#pragma once
#include "icl/model/gaussian_model.hpp"

#include <Eigen/Dense>

#include <string>

namespace icl {

// The linear task under (Sigma, Sigma_w) with label noise sd `noise`; Sigma_w must be symmetric positive definite
// (check it first: covariance_fault). `label` names the law in the model's description.
GaussianIclModel linear_task_with_w_law(const Eigen::MatrixXd& sigma, const Eigen::MatrixXd& sigma_w, double noise,
                                        const std::string& label = "linear, w ~ N(0, w_cov)");

}  // namespace icl
