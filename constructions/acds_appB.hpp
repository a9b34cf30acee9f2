// Ahn, Cheng, Daneshmand, Sra (002), Theorem 2 and Appendix B.1: the search for the best pair (A_1, A_2) of a
// two-layer form (8) (constructions/acds_forms.hpp: symmetric pairs acds_form8(d, 2, true), diagonal pairs
// acds_form8_diagonal(d, 2)) on the exact population loss (exact/acds_population.hpp through learn::acds_exact_loss).
// Starts: the zero pair, then `starts - 1` random ones with entries N(0, 0.5^2) (learn::normal_theta from the stream
// ctx.purpose(tag + "/k"), k = 1, 2, ...); each refined by L-BFGS (at most 200 iterations, gradient 1e-10, relative
// decrease 1e-14) and Newton steps; a start counts where its gradient is <= 1e-9 (search/minimize_from_starts.hpp;
// the search's own stream ctx.purpose(tag + "/search")).
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/exact/acds_population.hpp"
#include "icl/learn/parameters.hpp"
#include "icl/search/minimize_from_starts.hpp"

#include <string>

namespace icl::acds {

StartsMinimum search_pairs(const AcdsPopulation& pop, const learn::Parameterisation& p, int starts,
                           const ClaimContext& ctx, const std::string& tag);

}  // namespace icl::acds
