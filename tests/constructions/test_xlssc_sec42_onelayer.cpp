// Sec. 4.2's one-layer checks (constructions/xlssc_sec42_onelayer): the symmetric-law prompt (y = +/- theta0^T x,
// both signs drawn), the linear-phi prediction exactly even in theta (the symmetry argument: checked to rounding on
// random weights), a softmax layer not even, the closed-form best scale of the linear candidates (no scaled candidate
// is worse than predicting 0 on its own training stream), and a small softmax search that returns a causal layer whose
// held-out gain is its selection value, the same at 1 and 2 threads.
#include "constructions/xlssc_sec42_onelayer.hpp"
#include "constructions/xlssc_sec4.hpp"
#include "icl/model/rng.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_xlssc_sec42_onelayer {  // named: a unity build compiles several test files as one unit

using namespace icl;
using Act = SoftmaxAttention::Activation;

namespace {

ClaimContext context(int threads) {
  ClaimContext ctx;
  ctx.claim_id = "test.onelayer";
  ctx.seed = 3;
  ctx.threads = threads;
  ctx.quick = true;
  ctx.samples = 4096;
  return ctx;
}

}  // namespace

TEST_CASE("symmetric-law prompt: y = s theta0^T x with both signs, and the prediction leaves the prompt as it was") {
  const int d = 3, D = 8;
  Eigen::VectorXd theta0 = Eigen::VectorXd::Zero(d);
  theta0[1] = 1.0;
  xlssc::OneLayerPrompt p = xlssc::onelayer_prompt(d, D);
  int plus = 0;
  for (std::uint64_t i = 0; i < 64; ++i) {
    PromptRng rng(1, 2, i);
    xlssc::draw_sign_prompt(rng, theta0, D, p);
    const double s = p.y[0] / p.X(1, 0);
    CHECK(std::abs(std::abs(s) - 1.0) < 1e-12);
    CHECK((p.y - s * p.X.row(1)).norm() < 1e-12);
    CHECK(p.yq == p.y[D]);
    plus += s > 0;
  }
  CHECK(plus > 16);
  CHECK(plus < 48);
  Eigen::VectorXd v = Eigen::VectorXd::Ones(d + 1);
  const Eigen::MatrixXd Z0 = p.Z;
  const double yhat = xlssc::predict_query(xlssc::onelayer(v, Eigen::MatrixXd::Identity(d + 1, d + 1), Act::softmax), p.Z);
  CHECK(std::isfinite(yhat));
  CHECK(p.Z == Z0);
}

TEST_CASE("evenness: exact for a linear phi, not for softmax") {
  const ClaimContext ctx = context(2);
  Eigen::VectorXd theta0 = Eigen::VectorXd::Zero(2);
  theta0[0] = 1.0;
  CHECK(xlssc::evenness_worst(ctx, 2, 6, Act::linear, theta0, 9).worst[0] < 1e-12);
  CHECK(xlssc::evenness_worst(ctx, 2, 6, Act::softmax, theta0, 9).worst[0] > 1e-3);
}

TEST_CASE("linear candidates: the best scaled candidate is no worse than predicting 0 on its training stream") {
  const ClaimContext ctx = context(2);
  Eigen::VectorXd theta0 = Eigen::VectorXd::Zero(2);
  theta0[0] = 1.0;
  const xlssc::Chosen ch = xlssc::fit_linear_candidates(ctx, 2, 6, Act::linear, theta0, 11);
  CHECK(std::isfinite(ch.best_alpha));
  CHECK(ch.best_train <= 1.0 + 0.1);  // E[y_q^2] = 1 up to the stream's noise; alpha* never adds loss
  CHECK(ch.what.find("alpha") != std::string::npos);
  CHECK_FALSE(ch.found.has_value());
}

TEST_CASE("softmax search: a small budget returns a causal layer, the same at any thread count") {
  Eigen::VectorXd theta0 = Eigen::VectorXd::Zero(2);
  theta0[0] = 1.0;
  SearchBudget b;
  b.random_starts = 1;
  b.start_scales = {0.1};
  b.continuation_steps = 1;
  b.refine_effort = 4;
  b.final_effort = 4;
  const xlssc::SoftSearch s1 = xlssc::search_softmax(context(1), 2, 4, theta0, b, "t", 512);
  const xlssc::SoftSearch s2 = xlssc::search_softmax(context(2), 2, 4, theta0, b, "t", 512);
  CHECK(s1.chosen.causal);
  CHECK(s1.chosen.activation == Act::softmax);
  CHECK(std::isfinite(s1.search.best_value));
  CHECK(s1.search.best_value <= 1.0);  // a gain E[y_q^2] - loss
  CHECK(s1.search.best_value == s2.search.best_value);
  CHECK(s1.chosen.K == s2.chosen.K);
}

}  // namespace test_xlssc_sec42_onelayer
