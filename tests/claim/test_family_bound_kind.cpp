// The family lower-bound kind (lib/icl/claim/kinds/family_bound.hpp) on its own, with no claim: an explicit member
// below the bound refutes only with Monte Carlo below it and not against the member's exact loss; the infimum at or
// above the bound confirms only with Monte Carlo agreeing; an internal error or a mixed picture is inconclusive; the
// case JSON carries the quantities and decisions the kind names.
#include "icl/claim/kinds/family_bound.hpp"

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

}  // namespace test_family_bound_kind
