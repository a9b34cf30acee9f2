// Verdict logic (lib/icl/statistics.hpp, lib/icl/checks.hpp) on synthetic data whose truth is known:
// samples N(mu, 1) drawn through MonteCarlo by a tiny worker. A true equality must be refuted no more
// often than the declared false-fail rate, confirmed once the sample suffices; a 5% discrepancy must
// be refuted at a realistic budget; the judges' edge cases and the combination rules are checked
// with hand-made estimates.
#include "icl/checks.hpp"
#include "icl/claim.hpp"
#include "icl/montecarlo.hpp"
#include "icl/rng.hpp"
#include "icl/statistics.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>

namespace {

using icl::Verdict;

// Worker writing mu + N(0, 1) for prompt i, from the prompt's own stream.
struct NormalWorker {
  std::uint64_t seed, purpose;
  double mu;
  void operator()(std::uint64_t i, double* out) const {
    icl::PromptRng r(seed, purpose, i);
    out[0] = mu + r.normal();
  }
};

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

icl::Estimate estimate(double mean, double half_width, double stderr_ = 0.01) {
  icl::Estimate e;
  e.mean = mean;
  e.ci_low = mean - half_width;
  e.ci_high = mean + half_width;
  e.stderr_ = stderr_;
  e.samples = 1000;
  return e;
}

icl::Decision decision(Verdict v, const std::string& why = "w") {
  icl::Decision d;
  d.verdict = v;
  d.why = why;
  return d;
}

}  // namespace

TEST_CASE("quantiles and make_estimate against tabulated values") {
  CHECK(icl::normal_quantile(0.975) == doctest::Approx(1.959963984540054).epsilon(1e-12));
  CHECK(icl::normal_quantile(0.5) == doctest::Approx(0.0).scale(1.0).epsilon(1e-15));
  CHECK(icl::student_t_quantile(0.975, 4) == doctest::Approx(2.776445105197799).epsilon(1e-10));
  CHECK(icl::student_t_quantile(0.995, 10) == doctest::Approx(3.169272672616954).epsilon(1e-10));

  icl::Accumulator acc(1);
  for (double v : {1.0, 2.0, 3.0, 4.0, 5.0}) acc.add(&v);
  const icl::Estimate e = icl::make_estimate(acc, 0, 0.95);
  CHECK(e.samples == 5);
  CHECK(e.mean == doctest::Approx(3.0).epsilon(1e-15));
  CHECK(e.sd == doctest::Approx(std::sqrt(2.5)).epsilon(1e-14));
  CHECK(e.stderr_ == doctest::Approx(std::sqrt(0.5)).epsilon(1e-14));
  CHECK(e.ci_low == doctest::Approx(3.0 - 2.776445105197799 * std::sqrt(0.5)).epsilon(1e-10));
  CHECK(e.ci_high == doctest::Approx(3.0 + 2.776445105197799 * std::sqrt(0.5)).epsilon(1e-10));
  CHECK(e.confidence == 0.95);
}

TEST_CASE("make_estimate: the interval covers the true mean at its stated confidence") {
  // 400 independent runs of 256 N(0.3, 1) samples at 90% confidence: coverage count ~ Bin(400, 0.9),
  // mean 360, sd 6; accept [330, 390] (5 sd). A wrong quantile (e.g. 1 sd or 3 sd) falls far outside.
  int covered = 0;
  const double mu = 0.3;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    icl::MonteCarlo mc(1, 1);
    mc.extend_to(256, [&] { return NormalWorker{seed, 77, mu}; });
    const auto e = icl::make_estimate(mc.total(), 0, 0.90);
    if (e.ci_low <= mu && mu <= e.ci_high) ++covered;
  }
  CHECK(covered >= 330);
  CHECK(covered <= 390);
}

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
  // Band 5% of 1 = 0.05; at 16384 samples the 1 - 0.01/6 interval has half-width ~ 3.14/128 = 0.025.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    const auto o = run_equality(seed, 1.0, 1.0, 1.0, icl::Tolerance{0.05, 0.0}, 0.01, 1 << 15, 1024, 16384);
    CHECK(o.verdict.verdict == Verdict::confirmed);
    CHECK(o.mc_vs_stated.verdict == Verdict::confirmed);
    REQUIRE(o.mc_vs_exact.has_value());
    CHECK(o.mc_vs_exact->verdict == Verdict::confirmed);
    REQUIRE(o.exact_vs_stated.has_value());
    CHECK(o.exact_vs_stated->verdict == Verdict::confirmed);
    CHECK(o.mc.samples >= 16384);  // min_samples is honoured
    CHECK(o.mc.samples <= (1u << 15));
    CHECK(o.looks_used <= o.looks_planned);
  }
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
    CHECK(o.mc.ci_low > 1.02);
    // The reported detectable discrepancy is band + (z_{1 - alpha'/2} + z_{0.95}) se at the deciding look.
    CHECK(o.mc_vs_stated.detectable ==
          doctest::Approx(0.02 + (icl::normal_quantile(1 - o.alpha_look / 2) + 1.644853626951472) * o.mc.stderr_)
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

TEST_CASE("Tolerance::band is max(rel |target|, abs)") {
  CHECK(icl::Tolerance{0.1, 0.0}.band(-2.0) == doctest::Approx(0.2));
  CHECK(icl::Tolerance{0.1, 0.5}.band(2.0) == 0.5);
  CHECK(icl::Tolerance{0.1, 0.5}.band(10.0) == doctest::Approx(1.0));
  CHECK(icl::Tolerance{0.0, 0.0}.band(3.0) == 0.0);
}

TEST_CASE("judge_mc_equal: refuted outside, confirmed inside, inconclusive across the band edge") {
  const icl::Tolerance tol{0.0, 0.25};
  // Dyadic numbers so the band edges are exact.
  CHECK(icl::judge_mc_equal(estimate(1.0, 0.25), 1.0, tol, 0.05).verdict == Verdict::confirmed);  // edges touch
  CHECK(icl::judge_mc_equal(estimate(1.0, 0.125), 1.0, tol, 0.05).verdict == Verdict::confirmed);
  CHECK(icl::judge_mc_equal(estimate(1.0, 0.5), 1.0, tol, 0.05).verdict == Verdict::inconclusive);
  CHECK(icl::judge_mc_equal(estimate(1.5, 0.125), 1.0, tol, 0.05).verdict == Verdict::refuted);
  CHECK(icl::judge_mc_equal(estimate(0.5, 0.125), 1.0, tol, 0.05).verdict == Verdict::refuted);
  // ci_low exactly on the upper edge: not wholly outside, not wholly inside.
  CHECK(icl::judge_mc_equal(estimate(1.375, 0.125), 1.0, tol, 0.05).verdict == Verdict::inconclusive);
  // Negative target: the relative band uses |target|.
  CHECK(icl::judge_mc_equal(estimate(-2.0, 0.125), -2.0, icl::Tolerance{0.125, 0.0}, 0.05).verdict ==
        Verdict::confirmed);
  // Zero band: never confirmed, refuted only when the interval excludes the target.
  CHECK(icl::judge_mc_equal(estimate(1.0, 0.125), 1.0, icl::Tolerance{}, 0.05).verdict == Verdict::inconclusive);
  CHECK(icl::judge_mc_equal(estimate(1.25, 0.125), 1.0, icl::Tolerance{}, 0.05).verdict == Verdict::refuted);

  // Detectable discrepancy: band + (z_{1-alpha/2} + z_{1-beta}) se.
  const auto d = icl::judge_mc_equal(estimate(1.0, 0.125, 0.1), 1.0, tol, 0.05, 0.05);
  CHECK(d.band == 0.25);
  CHECK(d.detectable == doctest::Approx(0.25 + (1.959963984540054 + 1.644853626951472) * 0.1).epsilon(1e-10));
  CHECK(!d.why.empty());
}

TEST_CASE("judge_mc_upper_bound and judge_mc_lower_bound") {
  const icl::Tolerance none{};
  CHECK(icl::judge_mc_upper_bound(estimate(0.75, 0.125), 1.0, none, 0.05).verdict == Verdict::confirmed);
  CHECK(icl::judge_mc_upper_bound(estimate(1.25, 0.125), 1.0, none, 0.05).verdict == Verdict::refuted);
  CHECK(icl::judge_mc_upper_bound(estimate(1.0, 0.125), 1.0, none, 0.05).verdict == Verdict::inconclusive);
  CHECK(icl::judge_mc_upper_bound(estimate(0.875, 0.125), 1.0, none, 0.05).verdict == Verdict::confirmed);  // touches
  // The tolerance widens the bound: [0.875, 1.125] <= 1 + 0.25.
  CHECK(icl::judge_mc_upper_bound(estimate(1.0, 0.125), 1.0, icl::Tolerance{0.0, 0.25}, 0.05).verdict ==
        Verdict::confirmed);
  CHECK(icl::judge_mc_upper_bound(estimate(1.5, 0.125), 1.0, icl::Tolerance{0.0, 0.25}, 0.05).verdict ==
        Verdict::refuted);

  CHECK(icl::judge_mc_lower_bound(estimate(1.25, 0.125), 1.0, none, 0.05).verdict == Verdict::confirmed);
  CHECK(icl::judge_mc_lower_bound(estimate(0.75, 0.125), 1.0, none, 0.05).verdict == Verdict::refuted);
  CHECK(icl::judge_mc_lower_bound(estimate(1.0, 0.125), 1.0, none, 0.05).verdict == Verdict::inconclusive);
  CHECK(icl::judge_mc_lower_bound(estimate(1.125, 0.125), 1.0, none, 0.05).verdict == Verdict::confirmed);  // touches
  CHECK(icl::judge_mc_lower_bound(estimate(1.0, 0.125), 1.0, icl::Tolerance{0.0, 0.25}, 0.05).verdict ==
        Verdict::confirmed);
  CHECK(icl::judge_mc_lower_bound(estimate(0.5, 0.125), 1.0, icl::Tolerance{0.0, 0.25}, 0.05).verdict ==
        Verdict::refuted);
}

TEST_CASE("judge_exact_equal: confirmed within the band, refuted outside") {
  const icl::Tolerance tol{1e-9, 1e-12};
  CHECK(icl::judge_exact_equal(2.56, 2.56, tol).verdict == Verdict::confirmed);
  CHECK(icl::judge_exact_equal(2.56 * (1 + 5e-10), 2.56, tol).verdict == Verdict::confirmed);
  CHECK(icl::judge_exact_equal(2.56 * (1 + 2e-9), 2.56, tol).verdict == Verdict::refuted);
  CHECK(icl::judge_exact_equal(0.0, 0.0, icl::Tolerance{}).verdict == Verdict::confirmed);
  CHECK(icl::judge_exact_equal(1e-13, 0.0, tol).verdict == Verdict::confirmed);  // the absolute floor
  CHECK(icl::judge_exact_equal(1e-11, 0.0, tol).verdict == Verdict::refuted);
  CHECK(icl::judge_exact_equal(2.56, 0.14, tol).verdict == Verdict::refuted);
}

TEST_CASE("combine_equality: refuted or confirmed only when exact and Monte Carlo agree") {
  const auto C = Verdict::confirmed, R = Verdict::refuted, I = Verdict::inconclusive;
  auto combined = [](std::optional<Verdict> ex, Verdict mc, std::optional<Verdict> mcex) {
    std::optional<icl::Decision> a, c;
    if (ex) a = decision(*ex, "exact-why");
    if (mcex) c = decision(*mcex, "mcex-why");
    return icl::combine_equality(a, decision(mc, "mc-why"), c);
  };
  CHECK(combined(R, R, I).verdict == R);
  CHECK(combined(R, R, C).verdict == R);
  CHECK(combined(C, C, C).verdict == C);
  CHECK(combined(R, I, I).verdict == I);  // Monte Carlo too noisy: no verdict
  CHECK(combined(C, R, I).verdict == I);  // exact and Monte Carlo disagree
  CHECK(combined(R, C, I).verdict == I);
  CHECK(combined(C, I, C).verdict == I);
  // Monte Carlo contradicts the exact value: inconclusive whatever both say about the paper.
  for (Verdict ex : {C, R, I})
    for (Verdict mc : {C, R, I}) {
      const auto d = combined(ex, mc, R);
      CHECK(d.verdict == I);
      CHECK(d.why.find("INTERNAL INCONSISTENCY") != std::string::npos);
    }
  // No exact value: the Monte Carlo decision stands.
  CHECK(combined(std::nullopt, R, std::nullopt).verdict == R);
  CHECK(combined(std::nullopt, C, std::nullopt).verdict == C);
  CHECK(combined(std::nullopt, I, std::nullopt).verdict == I);
  const auto both = combined(R, R, C);
  CHECK(both.why.find("exact-why") != std::string::npos);
  CHECK(both.why.find("mc-why") != std::string::npos);
}

TEST_CASE("sequential_looks doubles from first up to the budget, inclusive") {
  using V = std::vector<std::uint64_t>;
  CHECK(icl::sequential_looks(256, 4096) == V{256, 512, 1024, 2048, 4096});
  CHECK(icl::sequential_looks(256, 1000) == V{256, 512, 1000});
  CHECK(icl::sequential_looks(0, 5) == V{1, 2, 4, 5});
  CHECK(icl::sequential_looks(10, 5) == V{5});
  CHECK(icl::sequential_looks(5, 5) == V{5});
  CHECK(icl::sequential_looks(7, 0).empty());
}

TEST_CASE("verdict strings, aggregation and report fragments") {
  for (Verdict v : {Verdict::confirmed, Verdict::refuted, Verdict::inconclusive})
    CHECK(icl::verdict_from_string(icl::to_string(v)) == v);
  CHECK_THROWS_AS(icl::verdict_from_string("bogus"), std::invalid_argument);
  CHECK_THROWS_AS(icl::verdict_from_string("Confirmed"), std::invalid_argument);

  auto cases = [](std::initializer_list<const char*> vs) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const char* v : vs) a.push_back({{"verdict", v}});
    return a;
  };
  CHECK(icl::aggregate_verdict(cases({})) == Verdict::inconclusive);
  CHECK(icl::aggregate_verdict(cases({"confirmed", "confirmed"})) == Verdict::confirmed);
  CHECK(icl::aggregate_verdict(cases({"confirmed", "inconclusive"})) == Verdict::inconclusive);
  CHECK(icl::aggregate_verdict(cases({"inconclusive", "refuted", "confirmed"})) == Verdict::refuted);

  const auto v = icl::quantity_value(0.25);
  CHECK(v.size() == 1);
  CHECK(v.at("value") == 0.25);
  const auto e = icl::quantity_mc(estimate(1.0, 0.125, 0.05));
  CHECK(e.at("mean") == 1.0);
  CHECK(e.at("stderr") == 0.05);
  CHECK(e.at("ci_low") == 0.875);
  CHECK(e.at("ci_high") == 1.125);
  CHECK(e.at("samples") == 1000);
  Eigen::MatrixXd m(2, 3);
  m << 1, 2, 3, 4, 5, 6;
  const auto mj = icl::quantity_matrix(m);
  REQUIRE(mj.at("matrix").size() == 2);
  CHECK(mj.at("matrix")[1].size() == 3);
  CHECK(mj.at("matrix")[1][0] == 4.0);
  CHECK(mj.at("matrix")[0][2] == 3.0);
  const auto dj = icl::decision_json(decision(Verdict::refuted, "because"));
  CHECK(dj.at("verdict") == "refuted");
  CHECK(dj.at("why") == "because");

  const auto rates = icl::error_rates_json(0.01, 4, 5, icl::Tolerance{0.02, 0.0});
  CHECK(rates.at("false_fail_rate") == 0.01);
  CHECK(rates.at("alpha_per_test").get<double>() == doctest::Approx(0.01 / 20));
  CHECK(rates.at("false_pass_rate_per_case").get<double>() == doctest::Approx(0.01 / 40));
}
