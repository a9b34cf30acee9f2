// sja Proposition 1 / App. B's setting and stacks (constructions/sja_appB.hpp): for Sigma = I the best linear
// predictor's error E[y^2] - tr(Lam^+ S) of the setting's moments is d(d+3)/2 (the part of a quadratic outside
// span{1, x}, by hand); the exactly optimal single layer is no worse than the GD-style layer and than any full single
// layer the alternating solver reaches; the stacks have the stated depths; the search for a worst-case stack runs its
// two structured starts and gives the same stack at 1 and 2 threads.
#include "constructions/sja_appB.hpp"
#include "icl/exact/optimal_attention.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_sja_appB {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("Prop1Setting: dbar = d + 2, and for Sigma = I the best-linear error is d(d+3)/2") {
  for (int d = 1; d <= 3; ++d) {
    CAPTURE(d);
    const sja::Prop1Setting s(d, 0, 20);
    CHECK(s.dbar == d + 2);
    CHECK(s.u.size() == static_cast<std::size_t>(d + 2));
    // Psi = E[psi psi^T], psi = (u, the target's features): its u block is Lambda = E[u u^T]
    REQUIRE(s.Psi.rows() > d + 2);
    CHECK((s.Psi.topLeftCorner(d + 2, d + 2) - s.fm.Lambda).norm() < 1e-12);
    const double best_linear = s.fm.Ey2 - (psd_pinv(s.fm.Lambda) * s.fm.S).trace();
    CHECK(best_linear == doctest::Approx(d * (d + 3) / 2.0).epsilon(1e-12));
  }
  // a rotated covariance changes the moments, not the shape
  const sja::Prop1Setting r(2, 2, 50);
  CHECK(r.shape.n == 50);
  CHECK((r.fm.Lambda - sja::Prop1Setting(2, 0, 50).fm.Lambda).norm() > 0.1);
}

TEST_CASE("prop1_model_name") {
  CHECK(sja::prop1_model_name(0) == "exactly optimal single layer");
  CHECK(sja::prop1_model_name(3) == "GD-style sparse stack, depth 3");
  CHECK(sja::prop1_model_name(6) == "optimised full stack, depth 2");
}

TEST_CASE("prop1_model: the optimal single layer against the GD-style one and the full single layers") {
  ClaimContext ctx;
  ctx.claim_id = "test";
  ctx.seed = 3;
  const sja::Prop1Setting s(2, 2, 20);
  const sja::Prop1Model opt = sja::prop1_model(ctx, "case", s, 0);
  REQUIRE(opt.exact);
  REQUIRE(opt.general_best);
  CHECK(opt.stack.layers.size() == 1);
  CHECK(!opt.search);
  CHECK(*opt.general_best >= *opt.exact * (1 - 1e-9));  // no full single layer beats the sparse optimum
  const sja::Prop1Model gd1 = sja::prop1_model(ctx, "case", s, 1);
  REQUIRE(gd1.exact);
  CHECK(*gd1.exact >= *opt.exact);
  CHECK(!gd1.general_best);
  const sja::Prop1Model gd4 = sja::prop1_model(ctx, "case", s, 4);
  CHECK(gd4.stack.layers.size() == 4);
  CHECK(!gd4.exact);
  // every loss is at least the best linear predictor's (Proposition 1 itself, on exact losses)
  CHECK(*opt.exact >= s.fm.Ey2 - (psd_pinv(s.fm.Lambda) * s.fm.S).trace());
}

TEST_CASE("prop1_search_stack: two structured starts, depth L, the same at 1 and 2 threads") {
  ClaimContext ctx;
  ctx.claim_id = "test";
  ctx.seed = 5;
  ctx.quick = true;
  ctx.threads = 1;
  ctx.settings["search"] = 0.25;
  const sja::Prop1Setting s(1, 0, 20);
  const sja::StackSearch a = sja::prop1_search_stack(ctx, "case", s, 2);
  CHECK(a.search.starts == 2);
  CHECK(a.stack.layers.size() == 2);
  CHECK(std::isfinite(a.best_test));
  CHECK(a.best_test == -a.search.best_value);
  CHECK(a.config.optimizer == "sgd");
  CHECK(a.config.batch == 64);
  ctx.threads = 2;
  const sja::StackSearch b = sja::prop1_search_stack(ctx, "case", s, 2);
  CHECK(b.best_test == a.best_test);
  CHECK((b.theta - a.theta).norm() == 0.0);
}

TEST_CASE("Prop1SearchRuns: the first run per depth, the smallest gap per depth") {
  sja::StackSearch s;
  s.config.batch = 7;
  sja::Prop1SearchRuns runs;
  runs.add("a", 1, s, 0.05);
  runs.add("b", 1, s, 0.01);
  runs.add("c", 2, s, 0.2);
  REQUIRE(runs.training);
  CHECK(runs.training->batch == 7);
  CHECK(runs.shown.at(1).first == "a");
  CHECK(runs.best_by_depth.at(1) == 0.01);
  CHECK(runs.best_by_depth_text() == "depth 1: +1.00%, depth 2: +20.00%");
}

}  // namespace test_sja_appB
