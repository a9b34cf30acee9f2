// The best single linear self-attention layer on a fixed feature map, exactly.
//
// Sparse form (P = e e^T, Q = diag(Gamma, 0)): the loss of lib/icl/exact/sparse_attention.hpp,
//   L(Gamma) = Ey2 + 2 tr(Gamma S) + (1 - 1/n) tr(Gamma Lam Gamma^T S) + (1/n) tr(Gamma Lam Gamma^T K4),
// is a convex quadratic in Gamma (S, Lam, K4 symmetric PSD). Its gradient is 2 S + 2 M Gamma Lam with
// M = (1/n) K4 + (1 - 1/n) S, so the minimisers solve M Gamma Lam = -S, and
//   Gamma* = -M^+ S Lam^+
// is one (the minimum-norm one) even when M or Lam is singular: range(S) lies in range(M) and in
// range(Lam) (if M v = 0 or Lam v = 0 then v^T u y = 0 almost surely, so S v = 0).
//
// General form: with b the last row of P and A the first p columns of Q (nothing else reaches the
// prediction), yhat = b^T H A u_q, H = (1/n) sum_{i<=n} z_i z_i^T, z = (u, y) (masked attention). Then
//   L(b, A) = E[b^T H A Lam A^T H b] + 2 E[b^T H A xi(w)] + Ey2,
//   E[H_ab H_ce] = (1/n) E[z_a z_b z_c z_e] + (1 - 1/n) E_w[G_ab(w) G_ce(w)],  G(w) = E_x[z z^T | w],
// which is quadratic in A for fixed b and in b for fixed A: `alternating_single_layer` minimises it
// by exact alternating solves (each step a linear solve; the loss never increases).
#pragma once
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/layers/network.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <vector>

namespace icl {

// Pseudo-inverse of a symmetric PSD matrix (eigenvalues below rel_tol * max dropped).
Eigen::MatrixXd psd_pinv(const Eigen::MatrixXd& A, double rel_tol = 1e-12);

// Gamma* = -M^+ S Lam^+ (see above).
Eigen::MatrixXd optimal_sparse_gamma(const FeatureMoments& m, double n);

// Moments for the general single layer (masked attention, n context columns).
struct SingleLayerMoments {
  int p = 0;                // features; z = (u, y) has D = p + 1 entries
  Eigen::MatrixXd Lambda;   // p x p, E[u u^T]
  Eigen::MatrixXd T4;       // D^2 x D^2, [(a,b),(c,e)] = E[z_a z_b z_c z_e]
  Eigen::MatrixXd G2;       // D^2 x D^2, E_w[G_ab G_ce]
  Eigen::MatrixXd X3;       // D^2 x p,   E_w[G_ab xi_j]
  double Ey2 = 0;
  int D() const { return p + 1; }
  Eigen::MatrixXd EHH(double n) const { return T4 / n + (1.0 - 1.0 / n) * G2; }
};
SingleLayerMoments single_layer_moments(const GaussianIclModel& model, const std::vector<Poly>& u);

double single_layer_loss(const SingleLayerMoments& m, const Eigen::VectorXd& b, const Eigen::MatrixXd& A, double n);
// Its gradient: d/db = 2 K_A b + 2 r_A, d/dA = 2 K_b A Lam + 2 R_b, with K_A[a, e] = sum B_bc E[H_ab H_ec]
// (B = A Lam A^T), K_b[k, l] = sum b_a b_e E[H_ka H_le], r_A[a] = sum_{c,j} A_cj E_w[G_ac xi_j],
// R_b[c, j] = sum_a b_a E_w[G_ac xi_j] (the quantities of the alternating solves below). Returns the loss.
double single_layer_gradient(const SingleLayerMoments& m, const Eigen::VectorXd& b, const Eigen::MatrixXd& A, double n,
                             Eigen::VectorXd& grad_b, Eigen::MatrixXd& grad_A);

// Any number of masked heads on one layer (LinearAttentionHeads, or one LinearSelfAttention) predicts
//   yhat = sum_{a,b,c} C[a*D + b, c] H_ab u_q,c,   C[a*D + b, c] = sum_h s_h n P_h[D-1, a] Q_h[b, c]  (c < p),
// s_h the head's scale (1/n by default); nothing else reaches the prediction (the query's label entry is 0).
// The loss is quadratic in C: E[(yhat + y_q)^2] = tr(C^T E[HH] C Lam) + 2 <C, X3> + Ey2 (for one head
// C = b (x) A and this is single_layer_loss(m, b, A, n)).
Eigen::MatrixXd single_layer_coefficients(const std::vector<LinearSelfAttention>& heads, int p, double n);
double single_layer_loss(const SingleLayerMoments& m, const Eigen::MatrixXd& C, double n);
// C averaged with its (a, b) transpose: H is symmetric, so two layers predict alike for every prompt exactly
// when their symmetrised coefficients agree (the loss depends on C only through them).
Eigen::MatrixXd symmetrised_coefficients(const Eigen::MatrixXd& C, int D);

// The same loss as an exact fraction, for a model whose inputs are isotropic (Sigma = I exactly; noise and a fixed w
// enter with the exact values of their doubles): the moments in rational arithmetic, the coefficients C of the
// heads' exact weights (n P[D-1, a] Q[b, c] with the 1/n of the default scale cancelled exactly, not rounded), the
// loss tr(C^T E[HH] C Lam) + 2 <C, X3> + Ey2 with E[HH] = T4 / n + (1 - 1/n) G2. For the reconstruction of closed
// forms from exact values (verdict/proposed_correction.hpp); throws std::invalid_argument for a non-isotropic model.
struct ExactSingleLayerMoments {
  int p = 0;
  RationalMatrix Lambda, T4, G2, X3;
  Rational Ey2;
  int D() const { return p + 1; }
};
ExactSingleLayerMoments exact_single_layer_moments(const GaussianIclModel& model, const std::vector<Poly>& u);
// as_fractions: each weight read as the simplest fraction its double rounds from (algebra/rational_matrix.hpp
// simplest_fraction), for weights a user computed in floating point from fractions; otherwise its exact value.
RationalMatrix exact_single_layer_coefficients(const std::vector<LinearSelfAttention>& heads, int p, const Rational& n,
                                               bool as_fractions = false);
Rational single_layer_loss(const ExactSingleLayerMoments& m, const RationalMatrix& C, const Rational& n);

struct SingleLayerOptimum {
  Eigen::VectorXd b;
  Eigen::MatrixXd A;
  double loss = 0;
  int iterations = 0;
};
// Alternating exact solves from (b0, A0) until the relative loss decrease is below tol.
SingleLayerOptimum alternating_single_layer(const SingleLayerMoments& m, double n, Eigen::VectorXd b0,
                                            Eigen::MatrixXd A0, int max_iter = 5000, double tol = 1e-14);

// alternating_single_layer from `starts` random starts: start k draws b (m.p + 1 entries) and then A ((m.p + 1) x
// m.p), every entry N(0, 1), from PromptRng(seed, purpose, k); the losses reached, start by start.
std::vector<double> alternating_from_random_starts(const SingleLayerMoments& m, double n, int starts, std::uint64_t seed,
                                                   std::uint64_t purpose);

// The sparse form as (b, A): b = e_D, A = [Gamma; 0].
void sparse_as_general(const Eigen::MatrixXd& Gamma, Eigen::VectorXd& b, Eigen::MatrixXd& A);
// Full (D x D) P, Q of a single layer from (b, A); the entries that cannot reach the prediction (other
// rows of P, last column of Q) are filled with `filler` (e.g. random numbers) so that a forward pass
// exercises the whole matrices.
void general_layer_weights(const Eigen::VectorXd& b, const Eigen::MatrixXd& A, const Eigen::MatrixXd& filler,
                           Eigen::MatrixXd& P, Eigen::MatrixXd& Q);

}  // namespace icl
