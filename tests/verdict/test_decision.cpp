// Decisions (lib/icl/verdict/decision.hpp) on hand-made estimates: the judges' edge cases, the rules that
// combine exact and Monte Carlo evidence, the sequential looks, verdict strings, the aggregation of case
// verdicts and the report fragments.
#include "icl/claim/claim.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/decision.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace test_decision {  // named: a unity build compiles several test files as one unit

namespace {

using icl::Verdict;

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

TEST_CASE("Tolerance::band is max(rel |target|, abs)") {
  CHECK(icl::Tolerance{0.1, 0.0}.band(-2.0) == doctest::Approx(0.2));
  CHECK(icl::Tolerance{0.1, 0.5}.band(2.0) == 0.5);
  CHECK(icl::Tolerance{0.1, 0.5}.band(10.0) == doctest::Approx(1.0));
  CHECK(icl::Tolerance{0.0, 0.0}.band(3.0) == 0.0);
}

TEST_CASE("judge_mc_equal: an exact formula is refuted by an interval that excludes it, confirmed only inside the band") {
  const icl::Tolerance tol{0.0, 0.25};
  // Dyadic numbers so the band edges are exact.
  CHECK(icl::judge_mc_equal(estimate(1.0, 0.25), 1.0, tol, 0.05).verdict == Verdict::confirmed);  // edges touch
  CHECK(icl::judge_mc_equal(estimate(1.0, 0.125), 1.0, tol, 0.05).verdict == Verdict::confirmed);
  CHECK(icl::judge_mc_equal(estimate(1.0, 0.5), 1.0, tol, 0.05).verdict == Verdict::inconclusive);
  CHECK(icl::judge_mc_equal(estimate(1.5, 0.125), 1.0, tol, 0.05).verdict == Verdict::refuted);
  CHECK(icl::judge_mc_equal(estimate(0.5, 0.125), 1.0, tol, 0.05).verdict == Verdict::refuted);
  // Issue 65: an interval inside the band that excludes the stated value refutes it (it used to confirm).
  const auto inside_excluding = icl::judge_mc_equal(estimate(1.125, 0.0625), 1.0, tol, 0.05);
  CHECK(inside_excluding.verdict == Verdict::refuted);
  CHECK(inside_excluding.why.find("discrepancy of +0.125") != std::string::npos);
  CHECK(inside_excluding.why.find("+12.5% of it") != std::string::npos);
  // Across the band's edge while excluding the target: refuted; containing it: inconclusive.
  CHECK(icl::judge_mc_equal(estimate(1.375, 0.125), 1.0, tol, 0.05).verdict == Verdict::refuted);
  CHECK(icl::judge_mc_equal(estimate(1.125, 0.25), 1.0, tol, 0.05).verdict == Verdict::inconclusive);
  // Negative target: the relative band uses |target|.
  CHECK(icl::judge_mc_equal(estimate(-2.0, 0.125), -2.0, icl::Tolerance{0.125, 0.0}, 0.05).verdict ==
        Verdict::confirmed);
  // Zero band: never confirmed, refuted only when the interval excludes the target.
  CHECK(icl::judge_mc_equal(estimate(1.0, 0.125), 1.0, icl::Tolerance{}, 0.05).verdict == Verdict::inconclusive);
  CHECK(icl::judge_mc_equal(estimate(1.25, 0.125), 1.0, icl::Tolerance{}, 0.05).verdict == Verdict::refuted);

  // Detectable discrepancy of an exact formula: (z_{1-alpha/2} + z_{1-beta}) se, no band; the confirmed words say it.
  const auto d = icl::judge_mc_equal(estimate(1.0, 0.125, 0.1), 1.0, tol, 0.05, 0.05);
  CHECK(d.band == 0.25);
  CHECK(d.detectable == doctest::Approx((1.959963984540054 + 1.644853626951472) * 0.1).epsilon(1e-10));
  CHECK(d.why.find("would detect a discrepancy of") != std::string::npos);
}

TEST_CASE("judge_mc_near: an approximate statement keeps its band: refuted outside, inside confirmed, across undecided") {
  const icl::Tolerance tol{0.0, 0.25};
  CHECK(icl::judge_mc_near(estimate(1.125, 0.0625), 1.0, tol, 0.05).verdict == Verdict::confirmed);
  CHECK(icl::judge_mc_near(estimate(1.5, 0.125), 1.0, tol, 0.05).verdict == Verdict::refuted);
  CHECK(icl::judge_mc_near(estimate(1.375, 0.125), 1.0, tol, 0.05).verdict == Verdict::inconclusive);
  const auto d = icl::judge_mc_near(estimate(1.0, 0.125, 0.1), 1.0, tol, 0.05, 0.05);
  CHECK(d.detectable == doctest::Approx(0.25 + (1.959963984540054 + 1.644853626951472) * 0.1).epsilon(1e-10));
}

TEST_CASE("samples_to_decide_equality: the half-width at which the interval excludes the target or fits the band") {
  // 20000 prompts, interval +/- h: spread = h sqrt(20000) / z.
  icl::Estimate e;
  e.samples = 20000;
  e.confidence = 0.99;
  e.mean = 1.01;
  e.ci_low = 1.01 - 0.06;
  e.ci_high = 1.01 + 0.06;
  e.stderr_ = 0.06 / icl::normal_quantile(0.995);
  // delta = 0.01 < band / 2: it decides when the interval fits the band, half-width 0.05 - 0.01 = 0.04.
  const auto fit = icl::samples_to_decide_equality(e, 1.0, 0.05, 0.01, 4096);
  REQUIRE(fit);
  // delta = 0.04 > band / 2: it decides when the interval excludes the target, half-width 0.04: the same count.
  e.mean = 1.04;
  e.ci_low = 1.04 - 0.06;
  e.ci_high = 1.04 + 0.06;
  const auto excl = icl::samples_to_decide_equality(e, 1.0, 0.05, 0.01, 4096);
  REQUIRE(excl);
  CHECK(*fit == *excl);
  // At delta = band / 2 it needs the most prompts; farther off, fewer.
  e.mean = 1.025;
  e.ci_low = 1.025 - 0.06;
  e.ci_high = 1.025 + 0.06;
  CHECK(*icl::samples_to_decide_equality(e, 1.0, 0.05, 0.01, 4096) > *fit);
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

TEST_CASE("an undecided bound says where its interval lies, never that it straddles a bound it lies beside") {
  const icl::Tolerance band{0.0, 0.05};
  // Lower bound 1 with band 0.05: [0.9, 0.98] lies wholly below the bound and contains the band's edge 0.95.
  const auto below = icl::judge_mc_lower_bound(estimate(0.94, 0.04), 1.0, band, 0.05);
  CHECK(below.verdict == Verdict::inconclusive);
  CHECK(below.why.find("lies wholly below the bound 1") != std::string::npos);
  CHECK(below.why.find("edge 0.95") != std::string::npos);
  CHECK(below.why.find("straddles") == std::string::npos);
  // Upper bound 1 with band 0.05: [1.01, 1.09] lies wholly above it and contains the edge 1.05.
  const auto above = icl::judge_mc_upper_bound(estimate(1.05, 0.04), 1.0, band, 0.05);
  CHECK(above.verdict == Verdict::inconclusive);
  CHECK(above.why.find("lies wholly above the bound 1") != std::string::npos);
  CHECK(above.why.find("edge 1.05") != std::string::npos);
  // Across the bound, and with no band.
  CHECK(icl::judge_mc_upper_bound(estimate(1.0, 0.1), 1.0, band, 0.05).why.find("contains the bound 1") !=
        std::string::npos);
  CHECK(icl::judge_mc_lower_bound(estimate(1.0, 0.1), 1.0, icl::Tolerance{}, 0.05).why.find("contains the bound 1") !=
        std::string::npos);
}

TEST_CASE("combine_exact_first: the exact value decides, Monte Carlo excluding it is an internal inconsistency") {
  const icl::Tolerance tol{0.05, 0.0}, exact_tol{1e-9, 1e-12};
  const auto exact_ok = icl::judge_exact_equal(2.0, 2.0, exact_tol);
  const auto exact_bad = icl::judge_exact_equal(2.0, 2.1, exact_tol);
  const auto mc_noisy = icl::judge_mc_equal(estimate(2.0, 0.12), 2.0, tol, 0.01);  // +/- 6% against 5%
  REQUIRE(mc_noisy.verdict == Verdict::inconclusive);
  const auto mc_within = icl::judge_mc_equal(estimate(2.0, 0.01), 2.0, tol, 0.01);
  const auto mc_excludes = icl::judge_mc_equal(estimate(2.5, 0.01), 2.0, tol, 0.01);

  // The symptom: exact equal to the stated value, Monte Carlo too noisy to decide: confirmed on the exact value.
  auto d = icl::combine_exact_first(exact_ok, mc_noisy, mc_noisy);
  CHECK(d.verdict == Verdict::confirmed);
  CHECK(d.basis == std::vector<std::string>{"exact_vs_stated"});
  CHECK(d.why.find("does not exclude it") != std::string::npos);
  // The exact value refutes whatever Monte Carlo says of the stated value, while Monte Carlo does not exclude it.
  d = icl::combine_exact_first(exact_bad, mc_within, mc_within);
  CHECK(d.verdict == Verdict::refuted);
  CHECK(d.basis == std::vector<std::string>{"exact_vs_stated"});
  // Monte Carlo excluding the exact value: inconclusive, loudly, no basis.
  d = icl::combine_exact_first(exact_ok, mc_within, mc_excludes);
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK(d.basis.empty());
  CHECK(d.why.find("INTERNAL INCONSISTENCY") == 0);
  // No exact value: Monte Carlo decides.
  CHECK(icl::combine_exact_first(std::nullopt, mc_within, std::nullopt).verdict == Verdict::confirmed);
  CHECK(icl::combine_exact_first(std::nullopt, mc_within, std::nullopt).basis == std::vector<std::string>{"mc_vs_stated"});
  CHECK(icl::combine_exact_first(std::nullopt, mc_noisy, std::nullopt).verdict == Verdict::inconclusive);
}

TEST_CASE("samples_to_decide: the prompts at which the interval would clear the nearest edge") {
  // Mean 1, half-width 0.06 at 20,000 prompts and 99% confidence; the band 1 +/- 0.05 has its edges 0.05 away.
  auto at_20000 = [](double mean, double half_width) {
    icl::Estimate e = estimate(mean, half_width);
    e.samples = 20000;
    e.confidence = 0.99;
    return e;
  };
  const double alpha_case = 0.05;  // split over the plan's looks (4096, 8192, 16384, n: four, near n = 27,000)
  const auto n = icl::samples_to_decide(at_20000(1.0, 0.06), {0.95, 1.05}, alpha_case, 4096);
  REQUIRE(n);
  CHECK(*n % 256 == 0);
  // At n, with the plan's confidence, the half-width is below 0.05; a chunk fewer it would not be (up to rounding).
  const double spread = 0.06 / icl::normal_quantile(0.995) * std::sqrt(20000.0);
  auto half_width = [&](double m) {
    const double looks = static_cast<double>(icl::sequential_looks(4096, static_cast<std::uint64_t>(m)).size());
    return icl::normal_quantile(1 - alpha_case / looks / 2) * spread / std::sqrt(m);
  };
  CHECK(half_width(static_cast<double>(*n)) < 0.05);
  CHECK(half_width(static_cast<double>(*n) - 600) > 0.05);
  CHECK(*n > 20000);
  CHECK(*n < 40000);  // about (0.06 / 0.05)^2 x 20,000, at the confidence of the plan's looks
  // The nearest edge decides: a mean outside the band is refuted sooner than one just inside is confirmed.
  CHECK(*icl::samples_to_decide(at_20000(1.2, 0.16), {0.95, 1.05}, alpha_case, 4096) <
        *icl::samples_to_decide(at_20000(1.04, 0.06), {0.95, 1.05}, alpha_case, 4096));
  // A mean on an edge: no count decides it.
  CHECK_FALSE(icl::samples_to_decide(at_20000(1.05, 0.06), {0.95, 1.05}, alpha_case, 4096));
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

TEST_CASE("both: confirmed where both are, refuted where either is, else inconclusive; the decisions' form keeps first's "
          "numbers") {
  using icl::Verdict;
  const Verdict c = Verdict::confirmed, i = Verdict::inconclusive, r = Verdict::refuted;
  CHECK(icl::both(c, c) == c);
  CHECK(icl::both(c, i) == i);
  CHECK(icl::both(i, c) == i);
  CHECK(icl::both(i, i) == i);
  CHECK(icl::both(r, c) == r);
  CHECK(icl::both(i, r) == r);
  CHECK(icl::both(r, r) == r);
  icl::Decision a{c, 0.1, 0.2, "a"}, b{i, 0.3, 0.4, "b"};
  const icl::Decision d = icl::both(a, b, "why");
  CHECK(d.verdict == i);
  CHECK(d.band == 0.1);
  CHECK(d.detectable == 0.2);
  CHECK(d.why == "why");
}

}  // namespace test_decision
