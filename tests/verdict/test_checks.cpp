// Sequential equality checks (lib/icl/verdict/checks.hpp) on synthetic data whose truth is known: samples
// N(mu, 1) drawn through MonteCarlo by a tiny worker. A true equality must be refuted no more often than
// the declared false-fail rate, confirmed once the sample suffices; a 5% discrepancy must be refuted at a
// realistic budget; a wrong exact value is flagged as an internal inconsistency.
#include "icl/claim/claim.hpp"
#include "icl/verdict/checks.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace test_checks {  // named: a unity build compiles several test files as one unit

namespace {

using icl::Verdict;
using icl::test::NormalWorker;

icl::ClaimContext context(std::uint64_t seed, std::uint64_t budget) {
  icl::ClaimContext ctx;
  ctx.claim_id = "test.statistics";
  ctx.seed = seed;
  ctx.threads = 2;
  ctx.samples = budget;
  return ctx;
}

icl::EqualityOutcome run_equality(std::uint64_t seed, double mu, double stated, std::optional<double> exact,
                                  const icl::Tolerance& tol, double alpha_case, std::uint64_t budget,
                                  std::uint64_t first, std::uint64_t min_samples) {
  const auto ctx = context(seed, budget);
  const std::uint64_t purpose = ctx.purpose("normal");
  auto make_worker = [&] { return NormalWorker{seed, purpose, mu}; };
  return icl::sequential_equality(ctx, alpha_case, stated, exact, tol, icl::Tolerance{1e-9, 1e-12}, 1, 0, first,
                                  make_worker, min_samples);
}

}  // namespace

TEST_CASE("sequential_equality: a true equality is refuted at most at the declared rate") {
  const double mu = 1.0;
  SUBCASE("zero band, alpha 0.2, stopping at the first decided look") {
    // Refutation here means some look's interval excluded mu: the false-fail event itself. With a
    // zero band nothing can be confirmed. Count ~ Bin(200, p) with p <= 0.2: mean <= 40, sd <= 5.7.
    const double alpha = 0.2;
    int refuted = 0, confirmed = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      const auto o = run_equality(seed, mu, mu, std::nullopt, icl::Tolerance{0.0, 0.0}, alpha, 4096, 256, 1);
      CHECK(o.looks_planned == 5);
      CHECK(o.alpha_look == doctest::Approx(alpha / 5));
      if (o.verdict.verdict == Verdict::refuted) ++refuted;
      if (o.verdict.verdict == Verdict::confirmed) ++confirmed;
    }
    MESSAGE("true equality, zero band: refuted " << refuted << " of 200 at declared alpha " << alpha);
    CHECK(refuted <= 57);  // 200 alpha + 3 sd
    CHECK(confirmed == 0);
    // The intervals are not vacuous either: the last look alone errs with probability ~alpha/5.
    CHECK(refuted >= 1);
  }
  SUBCASE("realistic: 2% band, alpha 0.01, default min_samples") {
    int refuted = 0;
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
      const auto o = run_equality(seed, mu, mu, std::nullopt, icl::Tolerance{0.02, 0.0}, 0.01, 8192, 1024, 16384);
      if (o.verdict.verdict == Verdict::refuted) ++refuted;
    }
    MESSAGE("true equality, 2% band: refuted " << refuted << " of 200 at declared alpha 0.01");
    CHECK(refuted <= 6);  // 200 * 0.01 + 3 sd
  }
}

TEST_CASE("sequential_equality: a true equality is confirmed when the samples suffice") {
  // Band 5% of 1 = 0.05; at 16384 samples the 1 - 0.01/6 interval has half-width ~ 3.14/128 = 0.025. An interval
  // that excludes the true value (probability alpha/6 per look) is a refutation by Monte Carlo of the stated value
  // and of the exact one alike (decision.hpp rule 5): the case is then flagged, never confirmed; in 20 seeds at most
  // one such case is expected (about 0.1 on average), so at least 19 confirm.
  int confirmed = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    const auto o = run_equality(seed, 1.0, 1.0, 1.0, icl::Tolerance{0.05, 0.0}, 0.01, 1 << 15, 1024, 16384);
    CHECK(o.verdict.verdict != Verdict::refuted);
    REQUIRE(o.mc_vs_exact.has_value());
    REQUIRE(o.exact_vs_stated.has_value());
    CHECK(o.exact_vs_stated->verdict == Verdict::confirmed);
    if (o.verdict.verdict == Verdict::confirmed) {
      ++confirmed;
      CHECK(o.mc_vs_stated.verdict == Verdict::confirmed);
      CHECK(o.mc_vs_exact->verdict == Verdict::confirmed);
    } else {
      CHECK(o.mc_vs_exact->verdict == Verdict::refuted);  // the only way it is not confirmed: the flagged check
    }
    CHECK(o.mc.samples >= 16384);  // min_samples is honoured
    CHECK(o.mc.samples <= (1u << 15));
    CHECK(o.looks_used <= o.looks_planned);
  }
  CHECK(confirmed >= 19);
  // Too small a budget: the same truth stays inconclusive, never confirmed.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    const auto o = run_equality(seed, 1.0, 1.0, std::nullopt, icl::Tolerance{0.02, 0.0}, 0.01, 512, 256, 16384);
    CHECK(o.verdict.verdict == Verdict::inconclusive);
    CHECK(o.mc.samples == 512);
  }
}

TEST_CASE("sequential_equality: a 5% offset is refuted at a realistic budget") {
  // mu = 1.05 against the stated 1 with a 2% band, alpha 0.01 over 4 cases, budget 100000 (the
  // default claim budget); the reported detectable discrepancy must be below the true one.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    const auto o = run_equality(seed, 1.05, 1.0, std::nullopt, icl::Tolerance{0.02, 0.0}, 0.01 / 4, 100000, 2048, 16384);
    CHECK(o.verdict.verdict == Verdict::refuted);
    CHECK(o.mc.ci_low > 1.0);  // an exact formula: refuted once the interval excludes the stated value itself
    // The reported detectable discrepancy is (z_{1 - alpha'/2} + z_{0.95}) se at the deciding look (no band).
    CHECK(o.mc_vs_stated.detectable ==
          doctest::Approx((icl::normal_quantile(1 - o.alpha_look / 2) + 1.644853626951472) * o.mc.stderr_)
              .epsilon(1e-9));
    CHECK(o.mc.samples < 100000);  // decided before the budget was spent
  }
}

TEST_CASE("sequential_equality: a 5% offset with an exact value that agrees: refuted, both cited") {
  {
    const auto o = run_equality(1, 1.05, 1.0, 1.05, icl::Tolerance{0.02, 0.0}, 0.01, 100000, 2048, 16384);
    CHECK(o.verdict.verdict == Verdict::refuted);
    REQUIRE(o.exact_vs_stated.has_value());
    CHECK(o.exact_vs_stated->verdict == Verdict::refuted);
    CHECK(o.verdict.why.find("exact") != std::string::npos);
  }
}

TEST_CASE("sequential_equality: the exact value decides, Monte Carlo checks it (decision.hpp rule 4)") {
  // 512 prompts of N(mu, 1) cannot place the mean within a 2% band: Monte Carlo against the stated value stays
  // undecided, and does not exclude the exact value. The exact value decides alone, resting on itself.
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    const auto equal = run_equality(seed, 1.0, 1.0, 1.0, icl::Tolerance{0.02, 0.0}, 0.01, 512, 256, 16384);
    CHECK(equal.mc_vs_stated.verdict == Verdict::inconclusive);
    REQUIRE(equal.mc_vs_exact.has_value());
    CHECK(equal.mc_vs_exact->verdict != Verdict::refuted);
    CHECK(equal.verdict.verdict == Verdict::confirmed);
    CHECK(equal.verdict.basis == std::vector<std::string>{"exact_vs_stated"});
    // A stated value 1e-3 off the exact one: far beyond the floating-point tolerance, far inside Monte Carlo's
    // resolution. Refuted on the exact value; Monte Carlo only checked the engine.
    const auto off = run_equality(seed, 1.0, 1.001, 1.0, icl::Tolerance{0.02, 0.0}, 0.01, 512, 256, 16384);
    CHECK(off.mc_vs_stated.verdict != Verdict::refuted);
    CHECK(off.verdict.verdict == Verdict::refuted);
    CHECK(off.verdict.basis == std::vector<std::string>{"exact_vs_stated"});
    CHECK(off.verdict.why.rfind("exact: ", 0) == 0);
  }
}

TEST_CASE("sequential_equality: Monte Carlo against a wrong exact value: internal inconsistency") {
  {
    const auto o = run_equality(1, 1.05, 1.0, 1.2, icl::Tolerance{0.02, 0.0}, 0.01, 100000, 2048, 16384);
    REQUIRE(o.mc_vs_exact.has_value());
    CHECK(o.mc_vs_exact->verdict == Verdict::refuted);
    CHECK(o.verdict.verdict == Verdict::inconclusive);
    CHECK(o.verdict.why.find("INTERNAL INCONSISTENCY") != std::string::npos);
    // Never "decided" while Monte Carlo contradicts the exact value: runs to the budget (rounded up
    // to whole Monte Carlo chunks).
    CHECK(o.mc.samples >= 100000);
    CHECK(o.mc.samples < 100000 + icl::MonteCarlo::kChunk);
    CHECK(o.looks_used == o.looks_planned);
  }
}

TEST_CASE("sequential_equality: stops at the first decided look with enough samples") {
  // A gross discrepancy (mu = 3 against 1) decides at the first look...
  auto o = run_equality(1, 3.0, 1.0, std::nullopt, icl::Tolerance{0.02, 0.0}, 0.01, 1 << 16, 512, 1);
  CHECK(o.verdict.verdict == Verdict::refuted);
  CHECK(o.looks_used == 1);
  CHECK(o.looks_planned == 8);  // 512 .. 65536
  CHECK(o.mc.samples == 512);
  // ...but not before min_samples prompts have been drawn.
  o = run_equality(1, 3.0, 1.0, std::nullopt, icl::Tolerance{0.02, 0.0}, 0.01, 1 << 16, 512, 4096);
  CHECK(o.verdict.verdict == Verdict::refuted);
  CHECK(o.looks_used == 4);
  CHECK(o.mc.samples == 4096);
  // The per-look alpha is the case's alpha split over the planned looks.
  CHECK(o.alpha_look == doctest::Approx(0.01 / 8));
  CHECK(o.mc.confidence == doctest::Approx(1 - 0.01 / 8));
}

TEST_CASE("sequential_equality: max_samples moves budget only to a case whose exact decision is still open") {
  const icl::Tolerance tol{0.02, 0.0};
  auto run = [&](double mu, double stated, double exact, std::uint64_t max_samples) {
    const auto ctx = context(5, 1 << 12);
    const std::uint64_t purpose = ctx.purpose("normal");
    auto make_worker = [&] { return NormalWorker{5, purpose, mu}; };
    return icl::sequential_equality(ctx, 0.01, stated, exact, tol, icl::Tolerance{1e-9, 1e-12}, 1, 0, 1024, make_worker,
                                    1024, /*until_exact_decided=*/true, max_samples);
  };
  // mu = exact = 5 against a stated 1 (sd 1): the band 2% of 5 = 0.1 is reached within the budget of 4096 (interval
  // about +/- 0.05 there), so no look past the budget is used, though 4 more are planned.
  auto o = run(5.0, 1.0, 5.0, 1 << 16);
  CHECK(o.looks_planned == 3 + 4);  // 1024, 2048, 4096, then 8192 .. 65536
  CHECK(o.mc_vs_exact->verdict == Verdict::confirmed);
  CHECK(o.mc.samples <= (1u << 12));
  // mu = exact = 0.5: the band is 0.01, and the interval at 4096 samples (about +/- 0.05) cannot decide it; the case
  // runs on past the budget (up to 262144, interval about +/- 0.007), never stopping at 4096.
  o = run(0.5, 5.0, 0.5, 1 << 18);
  CHECK(o.mc.samples > (1u << 12));
  CHECK(o.looks_planned == 3 + 6);  // ... 8192 .. 262144
  CHECK(o.mc_vs_exact->verdict != Verdict::refuted);
  // Without max_samples the same case stops at the budget, undecided.
  o = run(0.5, 5.0, 0.5, 0);
  CHECK(o.mc.samples == (1u << 12));
  CHECK(o.looks_planned == 3);
  CHECK(o.mc_vs_exact->verdict == Verdict::inconclusive);
}

}  // namespace test_checks
