// Ahn, Cheng, Daneshmand, Sra (002), Theorems 3 and 4 (Appendices B.2, B.3): the acds forms on the families
//   A_i = a_i Sigma^-1                  (form (8), Theorem 3),
//   A_i = a_i Sigma^-1, B_i = b_i I     (form (11), Theorem 4),
// with x ~ N(0, Sigma), w ~ N(0, Sigma^-1), y = <w, x>, n context examples: a case's setting (Sigma, the exact
// engine exact/acds_population.hpp, the family and its reduced loss exact/acds_family_loss.hpp) and the engine's
// numbers at a point of the family that the stationary kind (lib/icl/claim/kinds/stationary.hpp) decides on.
// The project's sign convention: Q_i = -[A_i, 0; 0, 0], P_i = [B_i, 0; 0, 1], X_{k+1} = X_k - B_k S_k A_k X_k.
//
// The symmetry behind the theorems (ours): f(A, B) = g(Sigma^{1/2} A Sigma^{1/2}, Sigma^{-1/2} B Sigma^{1/2}) with
// g the isotropic loss, which is invariant under A, B -> U A U^T, U B U^T; at A_i = a_i I, B_i = b_i I its
// gradient therefore commutes with every rotation and is c_i I, d_i I. Hence on the family the full gradient is
// grad_{A_i} f = c_i Sigma and grad_{B_i} f = d_i I, the derivative along the family is d c_i (resp. d d_i),
// and a stationary point of the loss restricted to the family is a critical point over all entries. The
// claims measure this (`direction_residual`) rather than assume it.
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/claim/kinds/stationary.hpp"
#include "icl/exact/acds_family_loss.hpp"
#include "icl/exact/acds_population.hpp"
#include "icl/model/parameters.hpp"
#include "icl/verdict/checks.hpp"

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace icl::acds_landscape {

// A point of form (8) or (11): the matrices A_l (and B_l; zero for form (8)).
struct Point {
  std::vector<Eigen::MatrixXd> A, B;
};

// A case's setting (params d, L, n, cov): Sigma, the exact engine, the family and its reduced loss.
struct CaseSetting {
  int d, L, n, cov;
  bool form11;
  Eigen::MatrixXd sigma, sigma_inv, I;
  AcdsPopulation pop;
  icl::Parameterisation fam;
  ReducedFamilyLoss reduced;
  std::string tag;
  CaseSetting(const Case& c, bool form11);
  // The family's point theta as matrices.
  Point point(const Eigen::VectorXd& theta) const;
  // "a_0 = ..., a_1 = ..." (and b_l for form (11)).
  std::string coefficients_text(const Eigen::VectorXd& theta) const;
  // The coefficients as a matrix: row 0 the a_l, row 1 the b_l (form (11)).
  Eigen::MatrixXd coefficients(const Eigen::VectorXd& theta) const;
};

// The engine's numbers at the family point theta: the gradient over every entry of every trained matrix, the same at
// the zero network (the scale), off the family (each matrix moved by s.perturbation of its norm in a direction drawn
// from (seed, purpose)), and on it at 1.1 theta with the residual of each block outside span{Sigma} (A) / span{I} (B).
stationary::Gradients exact_gradients(const CaseSetting& cs, const stationary::Settings& s, const Eigen::VectorXd& theta,
                                      std::uint64_t seed, std::uint64_t purpose);

// The exact loss at the point against Monte Carlo through the real forward pass: y = <w, x> with w ~ N(0, Sigma^-1)
// drawn as y = sum_m u_m (L^-1 x)_m, u ~ N(0, I), Sigma = L L^T. The query is integrated out exactly given the
// context (QueryConditionalWorker): the stack is masked LSA, so yhat = b^T x_q with b read from the same forward pass,
// and E[(yhat + y_q)^2 | context, w] = c^T Psi c with Psi the exact second moments of (x_q, the label basis) of the
// query alone (not the loss: Monte Carlo stays independent of the engine's loss it is judged against). It runs until
// that decision is made, past the budget up to 4x where needed (checks.hpp), within mc_tolerance (relative). The
// per-prompt loss is heavy-tailed (sd up to ~40 x the mean at these points), so at the budget it may stay too noisy,
// which is reported with its detectable discrepancy.
EqualityOutcome mc_loss_check(const ClaimContext& ctx, const CaseSetting& cs, double mc_tolerance, const Eigen::VectorXd& theta,
                              double loss_engine, double alpha_case);

}  // namespace icl::acds_landscape
