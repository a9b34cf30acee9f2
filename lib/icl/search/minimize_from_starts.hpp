// The minimum of a smooth objective (learn/optimizers.hpp: a loss with its gradient) from given starts, through the
// worst-case search (search.hpp) with the starts as its structured ones: each start refined by L-BFGS and then Newton
// steps to the floor of double precision (learn::newton_polish); a start counts only where it converged (gradient
// norm <= converged_gradient there), so its selection value is -loss there and -inf elsewhere. No continuation (a
// start's scale is what the starts explore), no random starts of the search's own, no final polish. The profile (best
// loss against starts) says whether later starts still lowered the best (by more than improving_tol): a statement
// that the best found is the global minimum cannot rest on a search still improving.
#pragma once
#include "icl/learn/optimizers.hpp"
#include "icl/search/search.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace icl {

struct StartsOptions {
  double gradient_tolerance = 1e-10;  // L-BFGS: stop at this gradient norm (then Newton steps)
  double relative_decrease = 1e-14;   // L-BFGS: stop where the loss decreases less than this, relatively
  int max_iterations = 200;           // L-BFGS iterations per start at most (the search's refine_effort)
  double converged_gradient = 1e-9;   // a start counts where its gradient norm is at most this
  double improving_tol = 1e-12;       // the search's improving_tol
};

struct StartsMinimum {
  learn::MinimizeResult best;   // theta and loss of the best converged start (loss +inf, theta empty, where none)
  int converged = 0;            // the starts that converged
  std::vector<double> losses;   // per start, in order: its loss where it converged, NaN elsewhere
  SearchResult search;          // the search with its convergence profile
};

// `starts`: (name, theta) in order; (seed, purpose): the search's own stream (search_maximum's).
StartsMinimum minimize_from_starts(const learn::Objective& f, std::vector<std::pair<std::string, Eigen::VectorXd>> starts,
                                   const StartsOptions& o, std::uint64_t seed, std::uint64_t purpose);

}  // namespace icl
