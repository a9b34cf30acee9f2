// The family lower-bound kind (lib/icl/claim/kinds/family_bound.hpp) on its own, with no claim: an explicit member
// below the bound refutes only with Monte Carlo below it and not against the member's exact loss; the infimum at or
// above the bound confirms only with Monte Carlo agreeing; an internal error or a mixed picture is inconclusive; the
// case JSON carries the quantities and decisions the kind names; a run of such cases skips those outside the statement,
// names the member closest to its bound in the summary, and the kind's table has its three columns.
#include "icl/claim/kinds/family_bound.hpp"
#include "tests/support/claim_kind_support.hpp"

#include <doctest/doctest.h>

namespace test_family_bound_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

Decision said(Verdict v) {
  Decision d;
  d.verdict = v;
  d.why = to_string(v);
  return d;
}

// A bound of 3 over a family whose infimum is `inf`, a member whose exact loss is `member`.
family_bound::Case make(double inf, double member, Verdict mc_vs_stated, Verdict mc_vs_exact) {
  family_bound::Case k;
  k.stated = 3;
  k.infimum = inf;
  k.member_exact = member;
  k.member_mc.mean = member;
  k.mc_vs_stated = said(mc_vs_stated);
  k.mc_vs_exact = said(mc_vs_exact);
  k.member = "the explicit layer";
  k.where = "at n = 100";
  return k;
}

Verdict verdict_of(const family_bound::Case& k) { return family_bound::verdict(k, family_bound::exact_vs_stated(k)).verdict; }

}  // namespace

TEST_CASE("family bound: the exact decision") {
  CHECK(family_bound::exact_vs_stated(make(3, 3.5, Verdict::confirmed, Verdict::confirmed)).verdict == Verdict::confirmed);
  // The infimum at the bound up to rounding confirms; a member below it by more than rounding refutes.
  CHECK(family_bound::exact_vs_stated(make(3 * (1 - 1e-12), 3, Verdict::confirmed, Verdict::confirmed)).verdict ==
        Verdict::confirmed);
  const Decision below = family_bound::exact_vs_stated(make(2, 2.5, Verdict::refuted, Verdict::confirmed));
  CHECK(below.verdict == Verdict::refuted);
  CHECK(below.why.find("2.5 < 3") != std::string::npos);
  // Infimum below the bound, but the member does not reach below it: undecided.
  CHECK(family_bound::exact_vs_stated(make(2, 3.2, Verdict::confirmed, Verdict::confirmed)).verdict == Verdict::inconclusive);
}

TEST_CASE("family bound: the verdict needs Monte Carlo to agree") {
  CHECK(verdict_of(make(3, 3.5, Verdict::confirmed, Verdict::confirmed)) == Verdict::confirmed);
  CHECK(verdict_of(make(2, 2.5, Verdict::refuted, Verdict::confirmed)) == Verdict::refuted);
  // Monte Carlo does not see the member below the bound, or contradicts its exact loss: not refuted.
  CHECK(verdict_of(make(2, 2.5, Verdict::inconclusive, Verdict::confirmed)) == Verdict::inconclusive);
  CHECK(verdict_of(make(2, 2.5, Verdict::refuted, Verdict::refuted)) == Verdict::inconclusive);
  // The exact side confirms but Monte Carlo does not, or contradicts the exact loss: not confirmed.
  CHECK(verdict_of(make(3, 3.5, Verdict::inconclusive, Verdict::confirmed)) == Verdict::inconclusive);
  CHECK(verdict_of(make(3, 3.5, Verdict::confirmed, Verdict::refuted)) == Verdict::inconclusive);
  // An internal error overrides everything.
  family_bound::Case k = make(2, 2.5, Verdict::refuted, Verdict::confirmed);
  k.internal_error = "INTERNAL: not in the family";
  const Decision v = family_bound::verdict(k, family_bound::exact_vs_stated(k));
  CHECK(v.verdict == Verdict::inconclusive);
  CHECK(v.why == "INTERNAL: not in the family");
  // A counterexample names the bound's formula where the claim gives one.
  k = make(2, 2.5, Verdict::refuted, Verdict::confirmed);
  k.bound = "C(d+2,2) - dbar";
  CHECK(family_bound::verdict(k, family_bound::exact_vs_stated(k)).why.find("< 3 = C(d+2,2) - dbar, margin 0.5") !=
        std::string::npos);
}

TEST_CASE("family bound: the case JSON") {
  CaseJson j(Case{});
  const family_bound::Case k = make(2, 2.5, Verdict::refuted, Verdict::confirmed);
  family_bound::write_quantities(j, k);
  const Decision v = family_bound::write_verdict(j, k);
  CHECK(v.verdict == Verdict::refuted);
  const auto& js = j.json();
  CHECK(js["quantities"]["stated"]["value"] == 3.0);
  CHECK(js["quantities"]["exact"]["value"] == 2.0);
  CHECK(js["quantities"]["exact_construction"]["value"] == 2.5);
  CHECK(js["verdict"] == "refuted");
  CHECK(js["decisions"]["exact_vs_stated"]["verdict"] == "refuted");
  CHECK(js["decisions"]["mc_vs_stated"]["verdict"] == "refuted");
  CHECK(js["decisions"]["mc_vs_exact_construction"]["verdict"] == "confirmed");
}

TEST_CASE("family bound: the closest member") {
  family_bound::Closest closest;
  CHECK(closest.sentence() == "(none in this grid)");
  closest.offer(make(3, 3.3, Verdict::confirmed, Verdict::confirmed), "far");
  closest.offer(make(3, 3.03, Verdict::confirmed, Verdict::confirmed), "near");
  closest.offer(make(3, 3.03, Verdict::confirmed, Verdict::confirmed), "as near, later");
  closest.offer(make(3, 3.15, Verdict::confirmed, Verdict::confirmed), "between");
  CHECK(closest.text == "near: loss 3.03 vs bound 3");
  CHECK(closest.sentence() == "near: loss 3.03 vs bound 3 (+1.0%)");
}

TEST_CASE("family bound: a run of cases, some skipped, the closest member in the summary, the table") {
  const test::ScopedClaim claim("test.family_bound_kind");
  ClaimContext ctx;
  ctx.claim_id = claim.id;
  ctx.cases = {Case{{{"k", 0.0}}}, Case{{{"k", 1.0}}}, Case{{{"k", 2.0}}}, Case{{{"k", 3.0}}}};
  family_bound::ClaimSpec s;
  s.skip = [](const Case& c) { return c.geti("k") == 3 ? std::string("k must be < 3") : std::string(); };
  s.judge = [](ClaimRun&, const Case& c, double alpha, CaseJson& j) {
    CHECK(alpha == doctest::Approx(0.01 / 3));  // ctx.alpha over the three cases judged
    // k = 0 is closest (3.0 against 3) but not counted; k = 1 at 3.3, k = 2 at 3.06.
    const family_bound::Case k = make(3, c.geti("k") == 0 ? 3.0 : c.geti("k") == 1 ? 3.3 : 3.06, Verdict::confirmed,
                                      Verdict::confirmed);
    family_bound::write_quantities(j, k);
    family_bound::write_verdict(j, k);
    return k;
  };
  s.closest_counts = [](const Case& c) { return c.geti("k") > 0; };
  s.summary = "{verdict}: closest {closest}.";
  const ClaimResult res = family_bound::run_claim(ctx, s);
  REQUIRE(res.cases.size() == 3);
  CHECK(res.cases[2]["verdict"] == "confirmed");
  CHECK(res.extra["skipped"].size() == 1);
  CHECK(res.summary == "confirmed: closest k=2: loss 3.06 vs bound 3 (+2.0%).");

  const ClaimTable t = family_bound::table("Corollary~1", "A title", "the bound $b$", {{"k", "$k$"}});
  CHECK(t.kind == TableKind::bound);
  REQUIRE(t.columns.size() == 3);
  CHECK(t.columns[0].meaning == "the bound $b$");
  CHECK(t.columns[1].quantity == "exact");
  CHECK(t.param_headers.at("k") == "$k$");
}

}  // namespace test_family_bound_kind
