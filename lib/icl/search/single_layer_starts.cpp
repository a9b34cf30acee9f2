#include "icl/search/single_layer_starts.hpp"

#include "icl/model/rng.hpp"

#include <cmath>
#include <utility>
#include <vector>

namespace icl {

SingleLayerStarts single_layer_from_starts(const SingleLayerMoments& m, double n, int starts, std::uint64_t seed,
                                           std::uint64_t purpose, double improving_tol) {
  SingleLayerStarts r;
  r.best.loss = INFINITY;
  std::vector<double> values;
  for (int s = 0; s < starts; ++s) {
    PromptRng rng(seed, purpose, static_cast<std::uint64_t>(s));
    Eigen::VectorXd b(m.D());
    Eigen::MatrixXd A(m.D(), m.p);
    rng.fill_normal(b);
    rng.fill_normal(A);
    SingleLayerOptimum o = alternating_single_layer(m, n, b, A);
    values.push_back(-o.loss);
    if (o.loss < r.best.loss) r.best = std::move(o);
  }
  r.search = profile_of_starts({}, values, 1, "alternating exact solves (one per start)", improving_tol);
  return r;
}

Verdict SingleLayerStarts::not_below(double optimum, double rel_tol) const {
  if (!(best.loss >= optimum * (1 - rel_tol))) return Verdict::refuted;
  return search.still_improving ? Verdict::inconclusive : Verdict::confirmed;
}

}  // namespace icl
