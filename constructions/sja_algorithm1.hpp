// sja (000) Algorithm 1: stage 1 as an exact optimisation problem and its search, and stage 2 exactly (used by
// sja.cor6).
//
// One bilinear layer on the sja embedding (rows 1, x_1..x_d, zeros up to dbar) computes, in row j,
//   xt_j(x) = e_j(x) + (a_j . (1, x)) (b_j . (1, x)),
// a_j, b_j the first d+1 entries of row j of W0, W1 (the other columns multiply zero rows). Every xt_j is
// a polynomial of degree <= 2, so xt = C m(x) exactly, m the C(d+2,2) monomials 1, x_p, x_p x_q (p <= q),
// and every moment the sparse single-layer loss needs (exact/sparse_attention.hpp) is a congruence of the
// monomials' exact moments: Lam~ = C Lam C^T, S~ = C S C^T, K4~ = C K4 C^T. With the attention frozen at
// P0 = e e^T, Q0 = diag(Gamma, 0) (Algorithm 1, line 1) the stage-1 loss is
//   L(C) = E y^2 + 2 tr(Gamma C S C^T) + tr(Gamma A Gamma^T B),  A = C Lam C^T,  B = C N C^T,
//   N = (1 - 1/n) S + (1/n) K4,
// with gradient dL/dC = 2 (Gamma + Gamma^T) C S + (X + X^T) C Lam + (Y + Y^T) C N, X = Gamma^T B Gamma,
// Y = Gamma A Gamma^T, and dL/da_jp = sum_q dL/dC[j, (p,q)] b_jq (and the same with a, b swapped).
// theta = (a_0, ..., a_{dbar-1}, b_0, ..., b_{dbar-1}), each of length d+1.
#pragma once
#include "icl/exact/sparse_attention.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/search/search.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <vector>

namespace icl::sja {

class Stage1Problem {
public:
  // Quadratic task with N(0,1) coefficients, x ~ N(0, I_d); Gamma is dbar x dbar.
  Stage1Problem(int d, int dbar, Eigen::MatrixXd gamma);

  int d() const { return d_; }
  int dbar() const { return dbar_; }
  int monomials() const { return m_; }
  int size() const { return 2 * dbar_ * (d_ + 1); }
  const FeatureMoments& base() const { return base_; }  // the monomials' exact moments
  const Eigen::MatrixXd& gamma() const { return gamma_; }

  // C (dbar x monomials): the layer's features in the monomial basis.
  Eigen::MatrixXd coefficients(const Eigen::Ref<const Eigen::VectorXd>& theta) const;
  // The moments of the layer's features (congruences of base()).
  FeatureMoments features(const Eigen::MatrixXd& C) const;
  // Stage-1 loss at context length n; its gradient in theta into *grad if given.
  double loss(const Eigen::Ref<const Eigen::VectorXd>& theta, double n, Eigen::VectorXd* grad = nullptr) const;
  // The same layer as the project's forward-pass type (W0, W1 dbar x dbar, zero beyond column d).
  BilinearLayer layer(const Eigen::Ref<const Eigen::VectorXd>& theta) const;
  // The exact Gram matrix of the monomials (E[m m^T]) and the generalised eigenvalues of (S, Lam): the
  // spectrum of E_w[c c^T] for the target's coefficients c in an orthonormal basis of the quadratics.
  Eigen::VectorXd target_spectrum() const;

private:
  int d_, dbar_, m_;
  Eigen::MatrixXi index_;  // (d+1) x (d+1): monomial index of (1,x)_p (1,x)_q
  FeatureMoments base_;
  Eigen::MatrixXd gamma_;
};

// Algorithm 1, line 1's Gamma (diagonal, dbar x dbar) by kind: 0 -I, 1 -diag(0.5 .. 2) (evenly spaced), 2 kind 1
// with the last entry +1 (one positive entry), 3 +I (positive definite); its name and its number of positive entries.
Eigen::MatrixXd algorithm1_gamma(int dbar, int kind);
const char* algorithm1_gamma_name(int kind);
int algorithm1_gamma_positive_entries(int kind, int dbar);

// theta whose layer computes identically zero features: a_j = e_0 (the constant 1), b_j = -e_j for the rows
// 1, x_1..x_d that the residual carries (their product cancels the residual), zero elsewhere.
Eigen::VectorXd zero_feature_theta(const Stage1Problem& pr);

// Stage 1 as a search (lib/icl/search): `starts` random starts (entries N(0, 0.5^2), stream purpose, index k), each
// refined by L-BFGS (at most 3000 iterations, gradient tolerance 1e-10) on the exact population loss at context length
// n; the selection value is -loss; no continuation (the loss is quartic in the weights). theta and loss: the best
// found (start 1 where none is finite); second: the second-smallest start loss (ties count); converged: the starts
// whose L-BFGS converged; search: the profile (best stage-1 loss against starts).
struct Stage1Search {
  Eigen::VectorXd theta;
  double loss = INFINITY, second = INFINITY;
  int converged = 0, starts = 0;
  SearchResult search;
};
Stage1Search algorithm1_stage1(const Stage1Problem& pr, double n, int starts, std::uint64_t seed, std::uint64_t purpose);

// Algorithm 1 at context length n: stage 1 (algorithm1_stage1), then stage 2 exactly: the optimal sparse attention
// Gstar for the stage-1 features (exact/optimal_attention.hpp) and its loss loss2; sigma_min/max: the singular values'
// range of the features' whitening (sqrt of Lambda's eigenvalues); delta = ||Lambda^1/2 Gstar Lambda^1/2 + I||_F (the
// whitened distance to OLS); layer: the stage-1 bilinear layer. With `general`: moment_check, the features' moments
// through the real layer (exact/feature_moments.hpp) against the congruences (relative), and general_best, the best
// general single layer found by alternating minimisation from the sparse optimum and 2 random starts (stream
// purpose ^ 0x5eed).
struct Algorithm1Run {
  int n = 0;
  Stage1Search s1;
  double sigma_min = 0, sigma_max = 0, loss2 = 0, general_best = INFINITY, delta = 0, moment_check = 0;
  Eigen::MatrixXd Gstar;
  BilinearLayer layer;
};
Algorithm1Run algorithm1_run(const Stage1Problem& pr, const GaussianIclModel& gm, int n, int starts, std::uint64_t seed,
                             std::uint64_t purpose, bool general);

}  // namespace icl::sja
