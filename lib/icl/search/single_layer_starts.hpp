// The best general single layer (the last row b of P and the full A of Q, exact/optimal_attention.hpp) over random
// starts: from each start, alternating exact solves (alternating_single_layer) to their fixed point; the best loss
// reached, and the multi-start search's profile (profile_of_starts, search.hpp: one unit of effort per start), which
// says whether later starts still lowered it. What a claim that "the optimum is the sparse form" rests on, beside the
// exact sparse optimum.
#pragma once
#include "icl/exact/optimal_attention.hpp"
#include "icl/search/search.hpp"
#include "icl/verdict/decision.hpp"

#include <cstdint>

namespace icl {

struct SingleLayerStarts {
  SingleLayerOptimum best;  // the lowest loss reached (loss +inf without starts) and its (b, A)
  SearchResult search;      // selection value -loss per start, in the order of the starts

  // Whether no start went below `optimum` (best.loss >= optimum (1 - rel_tol)): confirmed where the search had stopped
  // improving, inconclusive where its later starts still lowered the best, refuted where a start went below.
  Verdict not_below(double optimum, double rel_tol) const;
};

// `starts` starts, start k with b (D entries) and A (D x p) drawn N(0, 1) from the stream (seed, purpose, k), in that
// order (D = m.D(), p = m.p); `improving_tol`: the search is still improving where its best loss fell by more than
// this over the last quarter of the starts.
SingleLayerStarts single_layer_from_starts(const SingleLayerMoments& m, double n, int starts, std::uint64_t seed,
                                           std::uint64_t purpose, double improving_tol);

}  // namespace icl
