// Ahn, Cheng, Daneshmand, Sra (002), Theorem 2 and Appendix B.1: the search for the best pair (A_1, A_2) of a
// two-layer form (8) (constructions/acds_forms.hpp: symmetric pairs acds_form8(d, 2, true), diagonal pairs
// acds_form8_diagonal(d, 2)) on the exact population loss (exact/acds_population.hpp through learn::acds_exact_loss).
// Starts: the zero pair, then `starts - 1` random ones with entries N(0, 0.5^2) (icl::normal_theta from the stream
// ctx.purpose(tag + "/k"), k = 1, 2, ...); each refined by L-BFGS (at most 200 iterations, gradient 1e-10, relative
// decrease 1e-14) and Newton steps; a start counts where its gradient is <= 1e-9 (search/minimize_from_starts.hpp;
// the search's own stream ctx.purpose(tag + "/search")).
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/claim/kinds/family_argmin.hpp"
#include "icl/exact/acds_population.hpp"
#include "icl/model/parameters.hpp"
#include "icl/search/minimize_from_starts.hpp"

#include <Eigen/Dense>

#include <string>

namespace icl::acds {

StartsMinimum search_pairs(const AcdsPopulation& pop, const icl::Parameterisation& p, int starts,
                           const ClaimContext& ctx, const std::string& tag);

// Theorem 2's case as the family-argmin kind's searches (claim/kinds/family_argmin.hpp): x, w ~ N(0, I_d), two layers
// of form (8), n examples; the best symmetric pair (general) and the best diagonal pair (restricted) by search_pairs
// (tags label + "/symmetric" and label + "/diagonal"), the model (linear task, Sigma = I) and prompts
// (acds_shape(d, n)) of the Monte Carlo check, and the diagonal form's network.
family_argmin::Searches search_symmetric_and_diagonal(const ClaimContext& ctx, int d, int n, int starts,
                                                      const std::string& label);

// The shape of a symmetric pair (A1, A2), d x d: its commutator ||A1 A2 - A2 A1||_F / (||A1||_F ||A2||_F), its
// off-diagonal mass in A1's eigenbasis ||R - diag(R)||_F / ||R||_F, R = V^T A2 V (for Sigma = I every basis is an
// eigenbasis of Sigma, so "diagonal in Sigma's eigenbasis" means simultaneously diagonalisable), and its distance from
// multiples of I, max_i ||A_i - tr(A_i)/d I||_F / ||A_i||_F (diagonal_A1, diagonal_A2 left empty).
struct PairShape {
  Eigen::MatrixXd A1, A2, diagonal_A1, diagonal_A2;
  double commutator = 0, offdiagonal = 0, scalar_residual = 0;
};
PairShape pair_shape(const Eigen::MatrixXd& A1, const Eigen::MatrixXd& A2);

// The best pairs of Theorem 2's searches (search_symmetric_and_diagonal): pair_shape of the best symmetric pair, with
// the best diagonal pair; NaN matrices where the searches did not both converge.
PairShape best_pairs(int d, const family_argmin::Searches& f, bool searched);

// The kind's look at a case: "Best symmetric pair: commutator ..., off-diagonal mass in A_1's eigenbasis ..., distance
// from multiples of I ..."; quantities commutator, offdiagonal_in_eigenbasis, scalar_residual, best_A1, best_A2,
// diagonal_A1, diagonal_A2; tallied: the scalar residual.
family_argmin::Look pair_look(const PairShape& p);

}  // namespace icl::acds
