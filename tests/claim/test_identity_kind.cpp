// The catalogue identity kind (lib/icl/claim/kinds/identity.hpp judge_identities) on its own, with no claim: named
// identities over a WorstCase made by hand are each judged and written as decisions, in order, and the case's verdict
// is the worst of theirs (refuted over inconclusive over confirmed), its reason their words and the tail, its basis the
// decisions that reached it; prompts set aside are counted in the words, and none judged leaves the case inconclusive.
#include "icl/claim/case_json.hpp"
#include "icl/claim/kinds/identity.hpp"
#include "icl/verdict/quantities.hpp"
#include "tests/support/claim_kind_support.hpp"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <string>
#include <utility>

namespace test_identity_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

WorstCase worst_of(std::uint64_t prompts, std::uint64_t set_aside) {
  WorstCase w(2);
  w.prompts = prompts;
  w.set_aside = set_aside;
  return w;
}

nlohmann::ordered_json judged(const WorstCase& w, double a, double b, Verdict& v) {
  CaseJson j(nlohmann::ordered_json{{"d", 1}});
  j.quantity("max_rel_error", a);
  v = judge_identities(j, w, {{"labels", a, "label rows"}, {"rows", b, "other rows"}}, IdentityTolerance{},
                       ". Tail.");
  return j.take();
}

}  // namespace

TEST_CASE("judge_identities: the worst of the identities decides, every decision written in order") {
  const WorstCase w = worst_of(10, 0);
  Verdict v{};
  auto j = judged(w, 1e-12, 1e-13, v);
  CHECK(v == Verdict::confirmed);
  CHECK(j["verdict"] == "confirmed");
  CHECK(j["basis"] == nlohmann::ordered_json::array({"labels", "rows"}));
  std::string reason = j["evidence"];
  CHECK(reason.find("label rows: worst relative error 1e-12 <= 1e-09; other rows: worst relative error") == 0);
  CHECK(reason.substr(reason.size() - 7) == ". Tail.");
  auto it = j["decisions"].begin();
  CHECK(it.key() == "labels");
  CHECK((++it).key() == "rows");

  j = judged(w, 1e-12, 1e-7, v);  // between the levels: inconclusive
  CHECK(v == Verdict::inconclusive);
  j = judged(w, 1e-3, 1e-7, v);  // one refuted, one inconclusive: refuted, on the refuted one alone
  CHECK(v == Verdict::refuted);
  CHECK(j["basis"] == nlohmann::ordered_json::array({"labels"}));
  j = judged(w, 1e-7, 1e-3, v);  // the order does not matter to the verdict
  CHECK(v == Verdict::refuted);
  CHECK(j["basis"] == nlohmann::ordered_json::array({"rows"}));
}

TEST_CASE("judge_identities: prompts set aside are said; none judged is inconclusive") {
  Verdict v{};
  auto j = judged(worst_of(10, 3), 1e-12, 1e-12, v);
  CHECK(v == Verdict::confirmed);
  CHECK(std::string(j["evidence"]).find("label rows (7 of 10 prompts; 3 set aside: the exact reference leaves the double "
                                      "range") == 0);
  j = judged(worst_of(4, 4), 0, 0, v);
  CHECK(v == Verdict::inconclusive);
  CHECK(std::string(j["evidence"]).find("every one of 4 prompts was set aside") != std::string::npos);
}

TEST_CASE("run_identity_claim: the cases in order, the tolerance text, the findings and the summary from the cases") {
  const test::ScopedClaim claim("test.identity_kind");
  ClaimContext ctx;
  ctx.claim_id = claim.id;
  ctx.cases = {Case{{{"k", 1.0}}}, Case{{{"k", 2.0}}}, Case{{{"k", 3.0}}}};
  IdentityClaimSpec spec;
  spec.tolerance_text = "by hand";
  spec.check = [](const Case& c, CaseJson& j) {
    const double err = c.get("k") == 2.0 ? 1e-3 : 1e-12 * c.get("k");  // the second case refutes
    j.quantity("max_rel_error", err);
    return IdentityCase{worst_of(5, 0), {{"labels", err, "label rows"}}, "."};
  };
  spec.after_cases = [](ClaimRun& r) {
    r.part("a").on_refuted(Refutation{RefutationClass::slip, "the second case", {}, ""});  // a claim's refutation
    r.finding(fmt::format("worst {:g}", max_quantity(r.cases(), "max_rel_error")));
  };
  spec.summary = [](Verdict v, const ClaimRun& r) { return fmt::format("{}: {} cases", to_string(v), r.cases().size()); };
  const ClaimResult res = run_identity_claim(ctx, spec);
  REQUIRE(res.cases.size() == 3);
  CHECK(res.cases[0]["verdict"] == "confirmed");
  CHECK(res.cases[1]["verdict"] == "refuted");
  CHECK(res.cases[2]["params"]["k"] == 3.0);
  CHECK(res.extra["tolerance"] == "by hand");
  CHECK(res.extra["findings"][0] == "worst 0.001");
  CHECK(res.summary == "refuted: 3 cases");
}

// A claim that fails in general, holds on the family sym = 1 and holds everywhere corrected: cases (sym, err) with the
// stated identity's error err; the second case (sym = 0) refutes, the fourth (sym = 0) too, later.
ClaimContext refuted_context(const test::ScopedClaim& claim, double third_error = 3e-13) {
  ClaimContext ctx;
  ctx.claim_id = claim.id;
  for (auto [sym, err] : {std::pair{1.0, 1e-13}, {0.0, 0.5}, {1.0, third_error}, {0.0, 0.7}})
    ctx.cases.push_back(Case{{{"sym", sym}, {"err", err}}});
  return ctx;
}
IdentityClaimSpec refuted_spec(double corrected_error) {
  IdentityClaimSpec spec{.refuted = IdentityRefutation{.cls = RefutationClass::slip, .explanation = "a transpose",
                                                       .correction = "the transposed form", .family_param = "sym",
                                                       .family_value = 1, .family = "symmetric A"}};
  spec.check = [=](const Case& c, CaseJson&) {
    return IdentityCase{worst_of(5, 0), {{"rows", 0.0, "rows"}, {"stated", c.get("err"), "stated form"}}, ".",
                        {"corrected", c.get("sym") ? 1e-14 : corrected_error, "corrected form"},
                        fmt::format("case err={:g}", c.get("err"))};
  };
  return spec;
}

TEST_CASE("run_identity_claim with a refutation: the corrected decision, the family's worst, the first counterexample") {
  const test::ScopedClaim claim("test.identity_kind_refuted");
  const ClaimResult res = run_identity_claim(refuted_context(claim), refuted_spec(2e-14));
  REQUIRE(res.cases.size() == 4);
  CHECK(res.cases[1]["verdict"] == "refuted");
  CHECK(res.cases[1]["decisions"]["corrected"]["verdict"] == "confirmed");
  CHECK(std::string(res.cases[1]["evidence"]).find(". Corrected: corrected form") != std::string::npos);
  CHECK(res.extra["tolerance"] == identity_tolerance_text(IdentityTolerance{}));  // the kind's, none given
  const auto& refutation = res.parts.at("a").refutation;
  REQUIRE(refutation.has_value());
  CHECK(refutation->cls == RefutationClass::slip);
  CHECK(refutation->corrected == "the transposed form");  // confirmed on every case: offered
  REQUIRE(res.extra["findings"].size() == 3);
  CHECK(res.extra["findings"][0] == "With symmetric A the stated form holds: worst relative error 3e-13 over those cases.");
  CHECK(res.extra["findings"][1] ==
        "With the correction (the transposed form) the identity holds on every case: worst relative error 2e-14.");
  CHECK(res.extra["findings"][2] ==
        "Counterexample (the first refuted case, in the order of the cases): case err=0.5.");
  CHECK(res.summary == "refuted (slip): the stated form holds for symmetric A (worst error 3e-13) but not in general: "
                       "counterexample case err=0.5. With the correction (the transposed form) it holds on every case "
                       "(worst 2e-14).");
}

TEST_CASE("run_identity_claim with a refutation: a correction that fails on a case is not offered") {
  const test::ScopedClaim claim("test.identity_kind_not_corrected");
  const ClaimResult res = run_identity_claim(refuted_context(claim), refuted_spec(1e-3));
  CHECK(res.cases[1]["decisions"]["corrected"]["verdict"] == "refuted");
  CHECK(res.cases[1]["verdict"] == "refuted");  // the corrected decision is outside the case's verdict:
  CHECK(res.cases[0]["verdict"] == "confirmed");  // a confirmed case stays confirmed
  REQUIRE(res.parts.at("a").refutation.has_value());
  CHECK(res.parts.at("a").refutation->corrected.empty());
  // The words say so: no sentence claims a correction that failed on a case.
  CHECK(res.extra["findings"][1] == "With the correction (the transposed form) the identity does NOT hold on every case "
                                    "(not offered): worst relative error 0.001.");
  CHECK(res.summary == "refuted (slip): the stated form holds for symmetric A (worst error 3e-13) but not in general: "
                       "counterexample case err=0.5. The correction (the transposed form) does not hold on every case "
                       "either (worst 0.001).");
}

TEST_CASE("run_identity_claim with a refutation: a family case that fails is said, and the summary claims no family") {
  const test::ScopedClaim claim("test.identity_kind_family_fails");
  const ClaimResult res = run_identity_claim(refuted_context(claim, 0.25), refuted_spec(2e-14));
  CHECK(res.extra["findings"][0] ==
        "With symmetric A the stated form does NOT hold on every case: worst relative error 0.25 over those cases.");
  CHECK(res.summary.rfind("refuted (slip): the stated form does not hold in general: counterexample case err=0.5. With "
                          "the correction", 0) == 0);
}

TEST_CASE("max_quantity: the largest value over the cases that have the quantity, else `from`") {
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (double v : {0.5, 2.5, 1.0}) {
    CaseJson j(nlohmann::ordered_json{{"d", 1}});
    j.quantity("e", v);
    cases.push_back(j.take());
  }
  cases.push_back(CaseJson(nlohmann::ordered_json{{"d", 2}}).take());  // a case without it
  CHECK(max_quantity(cases, "e") == 2.5);
  CHECK(max_quantity(cases, "e", 3.0) == 3.0);
  CHECK(max_quantity(cases, "missing") == 0.0);
  CHECK(max_quantity(cases, "missing", -1.0) == -1.0);
}

}  // namespace test_identity_kind
