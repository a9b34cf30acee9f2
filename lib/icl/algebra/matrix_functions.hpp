// Small functions of a matrix that several computations share.
#pragma once
#include <Eigen/Dense>

namespace icl {

// The symmetric square root of a positive semi-definite matrix (negative eigenvalues from rounding taken as 0).
Eigen::MatrixXd sqrt_psd(const Eigen::MatrixXd& S);
// Dist(M, I) = min_alpha || M / ||M||_F - alpha I ||_F = sqrt(1 - tr(M)^2 / (d ||M||_F^2)) (acds Sec. 4.3's distance
// to the identity's multiples); 0 exactly for a nonzero multiple of I, and 1 for M = 0 by convention.
double dist_identity(const Eigen::MatrixXd& M);
// The inverse of a square matrix on its support, times `scale`: the rows and columns i with M(i, i) != 0 form a
// submatrix, inverted; every entry outside them is 0 (a pseudo-inverse for a matrix whose zero diagonal entries have
// zero rows and columns, e.g. the Gram matrix of features some of which are identically 0).
Eigen::MatrixXd inverse_on_support(const Eigen::MatrixXd& M, double scale = 1.0);

}  // namespace icl
