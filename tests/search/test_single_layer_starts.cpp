// The general single layer from random starts (lib/icl/search/single_layer_starts.hpp): the best is the lowest of the
// starts' alternating exact solves, each recomputed here from its own stream; its (b, A) has that loss; the general
// layer (which contains the sparse form) reaches the sparse optimum of exact/optimal_attention.hpp; and the rule of
// not_below, on hand-set results.
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/rng.hpp"
#include "icl/search/single_layer_starts.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_single_layer_starts {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("single_layer_from_starts: the best of the starts' alternating solves, and the sparse optimum") {
  const int d = 2, n = 4, starts = 4;
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 2));
  const auto u = identity_features(d);
  const SingleLayerMoments m = single_layer_moments(model, u);
  const FeatureMoments fm = model_feature_moments(model, u);
  const double L_sparse = sparse_lsa_loss(fm, optimal_sparse_gamma(fm, n), n);
  const SingleLayerStarts r = single_layer_from_starts(m, n, starts, 7, 11, 1e-9 * L_sparse);

  double best = INFINITY;
  for (int s = 0; s < starts; ++s) {
    PromptRng rng(7, 11, static_cast<std::uint64_t>(s));
    Eigen::VectorXd b(d + 1);
    Eigen::MatrixXd A(d + 1, d);
    rng.fill_normal(b);
    rng.fill_normal(A);
    const double l = alternating_single_layer(m, n, b, A).loss;
    CHECK(r.search.paths[static_cast<std::size_t>(s)].values.front() == -l);
    best = std::min(best, l);
  }
  CHECK(r.best.loss == best);
  REQUIRE(r.search.paths.size() == static_cast<std::size_t>(starts));
  CHECK(r.search.best_value == -best);
  CHECK(r.best.b.size() == d + 1);
  CHECK(r.best.A.rows() == d + 1);
  CHECK(r.best.A.cols() == d);
  CHECK(single_layer_loss(m, r.best.b, r.best.A, n) == doctest::Approx(r.best.loss).epsilon(1e-12));
  // The sparse form is a general layer (b = e, A = [Gamma; 0]), and alternating solves reach its optimum.
  CHECK(r.best.loss == doctest::Approx(L_sparse).epsilon(1e-9));
  CHECK(r.not_below(L_sparse, 1e-9) != Verdict::refuted);
  CHECK(r.not_below(1.5 * L_sparse, 1e-9) == Verdict::refuted);
  // Same seed and purpose, same starts; no starts, nothing found.
  CHECK(single_layer_from_starts(m, n, starts, 7, 11, 1e-9 * L_sparse).best.loss == r.best.loss);
  const SingleLayerStarts none = single_layer_from_starts(m, n, 0, 7, 11, 1e-9);
  CHECK(std::isinf(none.best.loss));
  CHECK(none.search.paths.empty());
}

TEST_CASE("SingleLayerStarts::not_below: refuted below the optimum, inconclusive while still improving") {
  SingleLayerStarts r;
  r.best.loss = 1.0;
  r.search.still_improving = false;
  CHECK(r.not_below(1.0, 1e-9) == Verdict::confirmed);
  CHECK(r.not_below(1.0 + 0.5e-9, 1e-9) == Verdict::confirmed);  // within the relative tolerance
  CHECK(r.not_below(1.0 + 2e-9, 1e-9) == Verdict::refuted);
  r.search.still_improving = true;
  CHECK(r.not_below(1.0, 1e-9) == Verdict::inconclusive);
  CHECK(r.not_below(1.1, 1e-9) == Verdict::refuted);
  r.best.loss = NAN;
  CHECK(r.not_below(1.0, 1e-9) == Verdict::refuted);
}

}  // namespace test_single_layer_starts
