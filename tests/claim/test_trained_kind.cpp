// The trained kind (lib/icl/claim/kinds/trained.hpp) on its own, with no claim: trials are reproducible and
// independent of the thread count, a model against itself on paired prompts differs by exactly 0, and the heavy-tail
// rule over trials confirms a clear gap, and refutes a reversed one only at the paper's settings.
#include "icl/claim/kinds/trained.hpp"
#include "icl/learn/forms.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace test_trained_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

ClaimContext context(int threads) {
  ClaimContext ctx;
  ctx.claim_id = "test.trained";
  ctx.seed = 7;
  ctx.threads = threads;
  ctx.samples = 512;
  ctx.budget = Budget::deciding;
  return ctx;
}

struct Setup {
  int d = 2, n = 8;
  GaussianIclModel task = GaussianIclModel::from_task(PolynomialTask::linear(2), Eigen::MatrixXd::Identity(2, 2));
  learn::PromptSource prompts = learn::gaussian_prompts(task, acds_shape(2, 8));
  trained::Schedule schedule{.steps = 30, .batch = 32, .trials = 2, .learning_rate = 1e-2, .init_sd = 0.05};
};

trained::Model trained_model(const ClaimContext& ctx, const Setup& s) {
  trained::Model m{.name = "one layer", .params = learn::full_lsa(s.d + 1, 1)};
  trained::train_trials(ctx, m, s.prompts, learn::LossSpec::acds(), s.schedule, "data");
  return m;
}

// A side with a known mean and no tail: `mean` with standard error `se` over many prompts.
TailedLoss side(double mean, double se) {
  TailedLoss t;
  t.full.mean = mean;
  t.full.stderr_ = se;
  t.full.sd = se * 100;
  t.full.samples = 10000;
  t.full.ci_low = mean - 3 * se;
  t.full.ci_high = mean + 3 * se;
  t.capped = t.full;
  t.cap = 1e9;
  return t;
}

}  // namespace

TEST_CASE("trained kind: trials are reproducible, seeded seed + k, and the same for any thread count") {
  const Setup s;
  const trained::Model a = trained_model(context(1), s), b = trained_model(context(2), s);
  REQUIRE(a.runs.size() == 2);
  CHECK(a.seeds == std::vector<std::uint64_t>{7, 8});
  for (std::size_t k = 0; k < 2; ++k) {
    REQUIRE(a.runs[k].ok());
    CHECK((a.runs[k].theta - b.runs[k].theta).norm() == 0.0);
  }
  CHECK((a.runs[0].theta - a.runs[1].theta).norm() > 0.0);  // the trials differ
  const trained::TestLosses t1 = trained::test_losses(context(1), a, s.prompts, learn::LossSpec::acds(), s.n);
  const trained::TestLosses t2 = trained::test_losses(context(2), b, s.prompts, learn::LossSpec::acds(), s.n);
  REQUIRE(t1.finished() == 2);
  for (std::size_t k = 0; k < 2; ++k) CHECK(t1.per_trial[k].mean == t2.per_trial[k].mean);
  // The tailed side's full estimate is test_losses' bit for bit (the same prompts).
  const auto tl = trained::tailed_losses(context(1), a, s.prompts, learn::LossSpec::acds(), s.n, 1e6);
  for (std::size_t k = 0; k < 2; ++k) CHECK(tl[k].full.mean == t1.per_trial[k].mean);
}

TEST_CASE("trained kind: a model against itself on paired prompts differs by exactly 0, and is not decided") {
  const Setup s;
  const ClaimContext ctx = context(1);
  const trained::Model m = trained_model(ctx, s);
  const auto diffs = trained::paired_differences(ctx, m, m, s.prompts, learn::LossSpec::acds(), s.n);
  REQUIRE(diffs.size() == 2);
  for (const auto& e : diffs) CHECK(e.mean == 0.0);
  const Decision dec = trained::paired_decision(ctx, {.paper = true, .differences = ""}, diffs, 0.01, "m below m");
  CHECK(dec.verdict == Verdict::inconclusive);
}

TEST_CASE("trained kind: the heavy-tail rule confirms a clear gap in every trial, and refutes a reversal only at the "
          "paper's settings") {
  const ClaimContext ctx = context(1);
  const std::vector<TailedLoss> low{side(1.0, 0.01), side(1.1, 0.01)}, high{side(2.0, 0.01), side(2.2, 0.01)};
  const trained::AgainstPaper reduced{.paper = false, .differences = "10 steps (paper 20000)"};
  const trained::AgainstPaper paper{.paper = true, .differences = ""};
  CHECK(trained::tailed_decision(ctx, reduced, low, high, 0.01, "low below high").verdict == Verdict::confirmed);
  CHECK(trained::tailed_decision(ctx, reduced, high, low, 0.01, "high below low").verdict == Verdict::inconclusive);
  CHECK(trained::tailed_decision(ctx, paper, high, low, 0.01, "high below low").verdict == Verdict::refuted);
  // A gap shown in one trial only is not decided (every trial must show it).
  const std::vector<TailedLoss> mixed{side(2.0, 0.01), side(0.5, 0.01)};
  CHECK(trained::tailed_decision(ctx, paper, low, mixed, 0.01, "low below mixed").verdict == Verdict::inconclusive);
  // A stated number as the other side.
  CHECK(trained::tailed_decision(ctx, reduced, low, trained::constant_side(3.0, 2), 0.01, "low below 3").verdict ==
        Verdict::confirmed);
}

}  // namespace test_trained_kind
