// Block-coordinate descent (sja eq. (9)) and preconditioned gradient descent (acds eq. (9)) on an
// empirical least-squares risk, written from the formulas and nothing else: no layer, no prompt
// matrix, no attention. It is the independent reference the Transformer constructions are checked
// against.
//
// Risk over n examples with feature vectors phi_i in R^m and targets t_i:
//     R(w) = (1 / 2n) sum_i (phi_i^T w - t_i)^2,     grad R(w) = (1/n) sum_i (phi_i^T w - t_i) phi_i.
// A step on a block b (a list of coordinates) with an |b| x |b| preconditioner eta:
//     w[b] <- w[b] - eta * (grad R(w))[b],           w[j] unchanged for j not in b.
// sja (9) uses L(w) = (1/2n) sum (f(x_i; w) + y_i)^2, i.e. targets t_i = -y_i and phi_i the monomials
// of x_i; acds uses R(w) = (1/2n) sum (w^T x_i - y_i)^2, i.e. phi_i = x_i, t_i = y_i, one block of all
// coordinates (plain preconditioned gradient descent).
//
// Everything is templated on the scalar so the same code runs in double and in long double; the long
// double run serves as the "truth" against which the double forward pass and the double reference
// are both measured.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"

#include <Eigen/Dense>
#include <vector>

namespace icl {

template <class S>
using MatrixS = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
template <class S>
using VectorS = Eigen::Matrix<S, Eigen::Dynamic, 1>;

// One block step: the coordinates it updates (into w) and its preconditioner (|block| x |block|).
struct BlockStep {
  std::vector<int> block;
  Eigen::MatrixXd eta;
};

// grad R(w) for features Phi (m x n, column i = phi_i) and targets t (length n).
template <class S>
VectorS<S> least_squares_gradient(const MatrixS<S>& Phi, const VectorS<S>& t, const VectorS<S>& w);

// Runs the steps from w0; returns the iterates w^(0), w^(1), ..., w^(L) (L = steps.size()).
template <class S>
std::vector<VectorS<S>> block_coordinate_descent(const MatrixS<S>& Phi, const VectorS<S>& t,
                                                 const std::vector<BlockStep>& steps, const VectorS<S>& w0);

// Preconditioned gradient descent w^(l+1) = w^(l) - A_l grad R(w^(l)) from w^(0) = 0 (one block of
// all coordinates); returns w^(0..L).
template <class S>
std::vector<VectorS<S>> preconditioned_gradient_descent(const MatrixS<S>& Phi, const VectorS<S>& t,
                                                        const std::vector<Eigen::MatrixXd>& A);

// Monomial features: phi_m(x) = prod_k x_k^{e_m[k]}, by repeated multiplication (no bilinear layer).
// X is d x N (a column per point); returns m x N.
template <class S>
MatrixS<S> monomial_features(const std::vector<Exponent>& monomials, const MatrixS<S>& X);

// The symmetric matrix W with [1 x] W [1 x]^T = sum_m w_m x^{e_m} for monomials of degree <= 2 in d
// variables (sja Thm. 7's W^(l)): W_00 = w_1, W_0k = W_k0 = w_{x_k}/2, W_kk = w_{x_k^2},
// W_jk = W_kj = w_{x_j x_k}/2 (j != k). Throws if a monomial has degree > 2.
Eigen::MatrixXd quadratic_form_matrix(int d, const std::vector<Exponent>& monomials, const Eigen::VectorXd& w);

// Index of each exponent of `block` in `monomials` (throws if one is missing).
std::vector<int> monomial_indices(const std::vector<Exponent>& monomials, const std::vector<Exponent>& block);

}  // namespace icl
