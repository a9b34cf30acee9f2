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

// acds's law, Sigma_w = Sigma^-1, symmetrised (the inverse of a symmetric matrix, to rounding).
Eigen::MatrixXd inverse_law(const Eigen::MatrixXd& sigma);

// The task of a claim of one's own, eval and the Python module: the named task (model/tasks.hpp named_task, which
// throws std::invalid_argument for a bad name) under x ~ N(0, Sigma) with label noise; with sigma_w, the linear task
// under w ~ N(0, *sigma_w) instead (the name must then be "linear": std::invalid_argument otherwise).
GaussianIclModel task_law_model(const std::string& task, const Eigen::MatrixXd& sigma, const Eigen::MatrixXd* sigma_w,
                                double noise);

}  // namespace icl
