// The log-log slope kind (lib/icl/claim/kinds/loglog_slope.hpp) on its own, with no claim: a loss 2/n, exact and by
// a made-up Monte Carlo (relative standard error 1e-3 at every n), has slope -1 on log-log axes, so a stated slope -1
// is confirmed exactly and by Monte Carlo and a stated -0.5 refuted; 4000 r^2 draws spread evenly over [0.95, 0.99] make a
// stated 0.97 a plausible outcome (confirmed) and a stated 0.5 implausible (refuted); the cases' params, quantities,
// decisions and the run's extras.
#include "icl/claim/kinds/loglog_slope.hpp"
#include "tests/support/claim_kind_support.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cmath>
#include <string>
#include <vector>

namespace test_loglog_slope_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// The kind's two parts, for the test's claim.
const std::vector<PartSpec> kParts{PartSpec{"a", "the slope", Strength::empirical},
                                   PartSpec{"b", "the r^2", Strength::empirical}};

// An accumulator of `count` prompts whose output 1 has mean m and relative standard error 1e-3, output 0 (the plain
// estimate) four times its variance.
Accumulator made_up(double m) {
  Accumulator a(2);
  a.count = 10000;
  const double var = std::pow(1e-3 * m, 2) * static_cast<double>(a.count);
  a.mean = {m, m};
  a.m2 = {4 * var * static_cast<double>(a.count - 1), var * static_cast<double>(a.count - 1)};
  return a;
}

loglog_slope::Spec spec(double slope, double r2) {
  loglog_slope::Spec s;
  s.slope = slope;
  s.slope_tol = Tolerance{0.0, 0.05};
  s.r2 = r2;
  s.per_n = 10;
  s.replications = 4000;
  s.setting = {{"d", 3}};
  s.exact = [](int n) { return 2.0 / n; };
  s.mc = [](int n, std::uint64_t) { return made_up(2.0 / n); };
  s.mc_method = "made up";
  s.protocol = [](const std::vector<int>& ns, const std::vector<std::uint64_t>& purposes,
                  const std::vector<double>& logn) {
    CHECK(purposes.size() == ns.size());
    CHECK(logn.size() == ns.size());
    std::vector<double> r(4000);  // enough for a p-value's upper bound below the case's alpha where no draw is <= R
    for (int k = 0; k < 4000; ++k) r[k] = 0.95 + 0.04 * (k + 0.5) / 4000;
    return r;
  };
  s.exact_line = [](const LineFit& f) { return " (exact L = " + std::to_string(std::exp(f.intercept)) + "/n)"; };
  s.summary = [](Verdict v, const loglog_slope::Outcome& o) {
    return std::string(to_string(v)) + " " + std::to_string(o.exact.slope);
  };
  return s;
}

ClaimContext context(const std::string& id) {
  ClaimContext ctx;
  ctx.claim_id = id;
  ctx.seed = 1;
  ctx.threads = 1;
  ctx.samples = 10000;
  for (int n : {40, 10, 20, 80, 20}) ctx.cases.push_back(Case{{{"n", static_cast<double>(n)}}});
  return ctx;
}

}  // namespace

TEST_CASE("log-log slope kind: a 2/n loss confirms slope -1 and refutes -0.5; r^2 0.97 plausible, 0.5 not") {
  const test::ScopedClaim claim("test.loglog_slope_kind", kParts);
  const ClaimContext ctx = context(claim.id);
  const ClaimResult ok = loglog_slope::run_claim(ctx, spec(-1.0, 0.97));
  REQUIRE(ok.cases.size() == 2);
  const auto& slope = ok.cases[0];
  CHECK(slope["params"]["test"] == 1);
  CHECK(slope["params"]["d"] == 3);
  CHECK(slope["params"]["n_min"] == 10);  // the distinct n, sorted
  CHECK(slope["params"]["n_max"] == 80);
  CHECK(slope["quantities"]["exact"]["value"].get<double>() == doctest::Approx(-1.0).epsilon(1e-12));
  CHECK(slope["quantities"]["mc"]["mean"].get<double>() == doctest::Approx(-1.0).epsilon(1e-12));
  CHECK(slope["curve"].size() == 4);
  CHECK(slope["decisions"]["exact_vs_stated"]["verdict"] == "confirmed");
  CHECK(slope["verdict"] == "confirmed");
  CHECK(slope["evidence"].get<std::string>().find("(exact L = 2.0") != std::string::npos);
  const auto& r2 = ok.cases[1];
  CHECK(r2["params"]["test"] == 2);
  CHECK(r2["params"]["prompts_per_n"] == 10);
  CHECK(r2["params"]["replications"] == 4000);
  CHECK(r2["quantities"]["r2_median"]["value"].get<double>() == doctest::Approx(0.97).epsilon(1e-3));
  CHECK(r2["verdict"] == "confirmed");
  CHECK(r2["evidence"].get<std::string>().find("2000 of 4000 replications give r^2 <= 0.97") != std::string::npos);
  CHECK(ok.extra["variance_reduction"]["factor_min"].get<double>() == doctest::Approx(4.0));
  CHECK(ok.extra["error_rates"]["split"] == "Bonferroni over the 2 tests (slope, r^2)");

  loglog_slope::Spec wrong = spec(-0.5, 0.5);
  wrong.refutations = {{"a", Refutation{RefutationClass::substantive, "another slope", {}, ""}},
                       {"b", Refutation{RefutationClass::substantive, "another r^2", {}, ""}}};
  const ClaimResult off = loglog_slope::run_claim(ctx, wrong);
  CHECK(off.cases[0]["verdict"] == "refuted");
  CHECK(off.cases[1]["verdict"] == "refuted");
  CHECK(off.cases[1]["evidence"].get<std::string>().find("0.5 is implausible") != std::string::npos);
  CHECK(off.parts.at("a").refutation.has_value());  // the claim's class of the refuted part
}

TEST_CASE("log-log slope kind: fewer than 3 distinct n is an error") {
  const test::ScopedClaim claim("test.loglog_slope_kind_short", kParts);
  ClaimContext ctx = context(claim.id);
  ctx.cases = {Case{{{"n", 10.0}}}, Case{{{"n", 20.0}}}, Case{{{"n", 10.0}}}};
  CHECK_THROWS_AS(loglog_slope::run_claim(ctx, spec(-1.0, 0.97)), std::invalid_argument);
}

TEST_CASE("log-log slope kind: the table's columns and the tests' names") {
  const ClaimTable t = loglog_slope::table("Figure~1", "A title", "part a", "part b");
  CHECK(t.kind == TableKind::slope);
  REQUIRE(t.columns.size() == 5);
  CHECK(t.columns[3].quantity == "r2_q05");
  Claim c;
  c.id = "test.names";
  const Claim named = loglog_slope::with_test_names(c);
  CHECK(named.case_names.count("test") == 1);
}

}  // namespace test_loglog_slope_kind
