// Claim parts and refutations (lib/icl/claim/parts.hpp) and the engine's use of them (lib/icl/cli/engine.cpp):
// verdicts derived from parts, refutations classed, and invalid parts blocks refused as internal failures.
#include "icl/claim/case_json.hpp"
#include "icl/claim/parts.hpp"
#include "icl/cli/engine.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

namespace test_parts {  // named: a unity build compiles several test files as one unit

namespace {

using json = nlohmann::ordered_json;
using namespace icl;

json make_case(int n, Verdict v, const std::string& part = "") {
  Case c;
  c.params = {{"n", static_cast<double>(n)}};
  CaseJson j(c);
  if (!part.empty()) j.part(part);
  j.decision("check", Decision{v, 0, 0, "a decision"});
  j.verdict(v, "evidence", {"check"});
  return j.take();
}

const std::vector<PartSpec> kTwoParts = {PartSpec{"a", "the value", Strength::theorem},
                                         PartSpec{"b", "the rate", Strength::asymptotic}};

Refutation slip() { return Refutation{RefutationClass::slip, "a transpose", {}, "with A^T"}; }

}  // namespace

TEST_CASE("parts: class and strength names are the report contract's (docs/reports.md)") {
  CHECK(std::string(to_string(RefutationClass::missing_assumption)) == "missing-assumption");
  CHECK(std::string(to_string(RefutationClass::reading)) == "reading");
  CHECK(refutation_class_from_string("slip") == RefutationClass::slip);
  CHECK_THROWS_AS(refutation_class_from_string("typo"), std::invalid_argument);
  CHECK(std::string(to_string(Strength::conditional)) == "conditional");
}

TEST_CASE("parts: a single part takes every case; the claim is refuted only through a refuted part") {
  json cases = json::array({make_case(1, Verdict::confirmed), make_case(2, Verdict::refuted), make_case(3, Verdict::refuted)});
  std::map<std::string, PartOutcome> o;
  o["a"].on_refuted(slip());
  const auto j = judge_claim("x", {PartSpec{"a", "the value", Strength::theorem}}, o, cases);
  CHECK(j.verdict == Verdict::refuted);
  CHECK(cases[0]["part"] == "a");
  REQUIRE(j.parts.size() == 1);
  CHECK(j.parts[0]["verdict"] == "refuted");
  CHECK(j.parts[0]["strength"] == "theorem");
  // The counterexample defaults to the part's first refuted case.
  CHECK(j.refutation["class"] == "slip");
  CHECK(j.refutation["counterexample"] == json{{"n", 2}});
  CHECK(j.refutation["corrected"] == "with A^T");
}

TEST_CASE("parts: confirmed needs every part confirmed; a refutation on a part that holds is dropped") {
  json cases = json::array({make_case(1, Verdict::confirmed, "a"), make_case(2, Verdict::inconclusive, "b")});
  std::map<std::string, PartOutcome> o;
  o["a"].on_refuted(slip());
  auto j = judge_claim("x", kTwoParts, o, cases);
  CHECK(j.verdict == Verdict::inconclusive);
  CHECK(j.refutation.is_null());
  CHECK(!j.parts[0].contains("refutation"));
  o["b"].decide(Verdict::confirmed, "the trend and the limit");
  j = judge_claim("x", kTwoParts, o, cases);
  CHECK(j.verdict == Verdict::confirmed);
  CHECK(j.parts[1]["evidence"].get<std::string>().find("the trend and the limit") == 0);
}

TEST_CASE("parts: invalid parts blocks are internal failures, never reports") {
  json cases = json::array({make_case(1, Verdict::refuted, "a")});
  std::map<std::string, PartOutcome> none;
  // No declared parts.
  CHECK_THROWS_AS(judge_claim("x", {}, none, cases), std::logic_error);
  // A refuted part without a refutation.
  CHECK_THROWS_AS(judge_claim("x", kTwoParts, none, cases), std::logic_error);
  // A case naming an undeclared part, or none while the claim has several.
  json bad = json::array({make_case(1, Verdict::confirmed, "z")});
  CHECK_THROWS_AS(judge_claim("x", kTwoParts, none, bad), std::logic_error);
  json unnamed = json::array({make_case(1, Verdict::confirmed)});
  CHECK_THROWS_AS(judge_claim("x", kTwoParts, none, unnamed), std::logic_error);
  // A part decided confirmed while one of its cases refutes it.
  std::map<std::string, PartOutcome> o;
  o["a"].decide(Verdict::confirmed, "looks fine");
  CHECK_THROWS_AS(judge_claim("x", kTwoParts, o, cases), std::logic_error);
  // A refuted part with an empty explanation, or decided refuted with no case to take a counterexample from.
  std::map<std::string, PartOutcome> e;
  e["a"].on_refuted(Refutation{RefutationClass::substantive, "", {}, ""});
  CHECK_THROWS_AS(judge_claim("x", kTwoParts, e, cases), std::logic_error);
  json empty = json::array();
  std::map<std::string, PartOutcome> d;
  d["a"].decide(Verdict::refuted, "decided").on_refuted(slip());
  CHECK_THROWS_AS(judge_claim("x", kTwoParts, d, empty), std::logic_error);
  // An outcome for an undeclared part.
  std::map<std::string, PartOutcome> u;
  u["c"].decide(Verdict::confirmed, "?");
  CHECK_THROWS_AS(judge_claim("x", kTwoParts, u, empty), std::logic_error);
}

TEST_CASE("parts: check_parts_block finds what a hand-edited report gets wrong") {
  json cases = json::array({make_case(1, Verdict::refuted)});
  std::map<std::string, PartOutcome> o;
  o["a"].on_refuted(slip());
  const auto j = judge_claim("x", {PartSpec{"a", "the value", Strength::theorem}}, o, cases);
  json r;
  r["verdict"] = to_string(j.verdict);
  r["refutation"] = j.refutation;
  r["parts"] = j.parts;
  r["cases"] = cases;
  CHECK(check_parts_block(r).empty());
  json bad = r;
  bad["refutation"]["class"] = "typo";
  CHECK(!check_parts_block(bad).empty());
  bad = r;
  bad.erase("refutation");
  CHECK(!check_parts_block(bad).empty());
  bad = r;
  bad["verdict"] = "confirmed";
  CHECK(!check_parts_block(bad).empty());
  bad = r;
  bad["parts"][0]["refutation"]["counterexample"] = json::object();
  CHECK(!check_parts_block(bad).empty());
  bad = r;
  bad["parts"][0]["strength"] = "lemma";
  CHECK(!check_parts_block(bad).empty());
}

TEST_CASE("case json: a decided verdict must rest on decisions that reached it") {
  Case c;
  c.params = {{"n", 1.0}};
  {
    CaseJson j(c);
    j.decision("check", Decision{Verdict::inconclusive, 0, 0, "too noisy"});
    j.verdict(Verdict::confirmed, "claimed anyway", {"check"});
    CHECK_THROWS_AS(j.take(), std::logic_error);
  }
  {
    CaseJson j(c);
    j.verdict(Verdict::refuted, "no basis", {});
    CHECK_THROWS_AS(j.take(), std::logic_error);
  }
  {
    CaseJson j(c);
    j.verdict(Verdict::refuted, "missing decision", {"nowhere"});
    CHECK_THROWS_AS(j.take(), std::logic_error);
  }
  {
    CaseJson j(c);
    j.decision("check", Decision{Verdict::refuted, 0, 0, "excluded"});
    j.decision("other", Decision{Verdict::confirmed, 0, 0, "within"});
    CHECK(j.decisions_with(Verdict::refuted, {"check", "other", "absent"}) == std::vector<std::string>{"check"});
    j.verdict(Verdict::refuted, "fine", {"check"});
    CHECK_NOTHROW(j.take());
  }
}

TEST_CASE("engine: a claim that refutes without a classed refutation is an internal failure") {
  Claim claim;
  claim.id = "test.unclassed";
  claim.title = claim.source = claim.statement = "test";
  claim.parts = {PartSpec{"a", "the value", Strength::theorem}};
  claim.run = [](const ClaimContext&) {
    ClaimResult res;
    res.cases.push_back(make_case(1, Verdict::refuted));
    res.summary = "refuted";
    return res;
  };
  PlannedClaim p{&claim, {}};
  p.ctx.claim_id = claim.id;
  p.ctx.cases = {Case{}};
  RunOptions opts;
  CHECK_THROWS_AS(run_claim(p, opts), std::logic_error);
  // With a classed refutation the report carries it, at the claim and at the part.
  claim.run = [](const ClaimContext&) {
    ClaimResult res;
    res.cases.push_back(make_case(1, Verdict::refuted));
    res.part("a").on_refuted(Refutation{RefutationClass::missing_assumption, "needs symmetric A", {}, ""});
    res.summary = "refuted";
    return res;
  };
  const json r = run_claim(p, opts);
  CHECK(r["verdict"] == "refuted");
  CHECK(r["refutation"]["class"] == "missing-assumption");
  CHECK(r["parts"][0]["refutation"]["counterexample"] == json{{"n", 1}});
  CHECK(check_parts_block(r).empty());
  // A claim without parts is refused too.
  claim.parts.clear();
  CHECK_THROWS_AS(run_claim(p, opts), std::logic_error);
}

}  // namespace test_parts
