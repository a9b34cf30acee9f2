// What a claim asserts, part by part, and how a failed part is classed (docs/reports.md: `parts`,
// `refutation`, `findings`).
//
// A claim declares its parts when it registers (Claim::parts): each is one thing the paper asserts, with
// the strength the paper gives it. Judge a part as strongly as the paper states it and no more: a theorem
// as a theorem, an asymptotic statement by its trend and limit, a conditional statement under its
// condition, an informal argument by what it literally asserts, an empirical claim by re-running it.
//
//   const RegisterClaim reg{Claim{
//       "x.thm1", "title", "source", "statement", {params...}, default_samples, quick_samples, memory, run,
//       {PartSpec{"a", "the bound ... holds for every n", Strength::theorem},
//        PartSpec{"b", "the error shrinks as n grows", Strength::asymptotic}}}};
//
// At run time every case names the part it judges (CaseJson::part("b"); a claim with one part may leave
// it out), and the claim may decide a part itself (ClaimResult::part("b").decide(v, why)); otherwise the
// part's verdict is derived from its cases (refuted if one refutes, confirmed if all confirm, else
// inconclusive; a part no case of the run judges is inconclusive). For each part that can fail the claim says, beforehand, how the failure is classed:
//
//   res.part("b").on_refuted(Refutation{RefutationClass::slip, "what is wrong, in a sentence or two",
//                                       {/* counterexample params; empty: the part's first refuted case */},
//                                       "the corrected statement, if verified"});
//
// The engine (judge_claim below, called by lib/icl/cli/engine.cpp) then derives every part's verdict and
// the claim's: `refuted` only when a part the paper asserts fails, `confirmed` when every part holds,
// `inconclusive` otherwise. What the project finds beyond the statement goes to `findings` (the claim's
// ClaimResult::extra["findings"], an array of sentences) and never changes a verdict. A claim that
// declares no parts, a case naming an unknown part, a refuted part without a refutation or with an
// invalid class, or a part decided `confirmed` while one of its cases refutes it is an internal failure
// (std::logic_error: exit status 3), never a report.
#pragma once
#include "icl/verdict/decision.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace icl {

// The paper's own strength for what it asserts.
enum class Strength { theorem, asymptotic, conditional, informal, empirical };
const char* to_string(Strength s);

// docs/reports.md's four refutation classes:
//   substantive         a stated value, rate, bound or conclusion is wrong (the corrected statement given and
//                       verified where possible);
//   slip                a typo, sign, index or transpose error whose correction leaves the paper's
//                       conclusions unchanged;
//   missing_assumption  the statement holds only under an assumption the paper does not state (named, and
//                       the statement verified under it);
//   reading             the statement admits more than one reasonable reading and at least one fails (each
//                       reading judged and named).
enum class RefutationClass { substantive, slip, missing_assumption, reading };
const char* to_string(RefutationClass c);  // "substantive", "slip", "missing-assumption", "reading"
RefutationClass refutation_class_from_string(const std::string& s);  // throws std::invalid_argument

struct Refutation {
  RefutationClass cls = RefutationClass::substantive;
  std::string explanation;                                                 // what is wrong, one or two sentences
  nlohmann::ordered_json counterexample = nlohmann::ordered_json::object();  // params of the smallest clean case
  std::string corrected;                                                   // the corrected statement, if verified
  nlohmann::ordered_json to_json() const;
};

struct PartSpec {
  std::string id;         // "a", "b", ...
  std::string statement;  // what the paper asserts, in its own terms
  Strength strength = Strength::theorem;
};

// A part's outcome as the claim's run leaves it.
struct PartOutcome {
  std::optional<Verdict> verdict;  // unset: derived from the part's cases
  std::string evidence;            // why (required when the claim decides the part itself)
  std::optional<Refutation> refutation;  // how a failure is classed; used only if the part ends up refuted

  PartOutcome& decide(Verdict v, std::string why);
  PartOutcome& on_refuted(Refutation r);
};

// The parts block of a claim's report: the claim's verdict, `refutation` (exactly when refuted) and `parts`,
// from the declared parts, the cases (each with its "part") and the claim's outcomes. `cases` gets each
// case's "part" filled in where the claim has a single part. Throws std::logic_error on anything invalid.
struct JudgedClaim {
  Verdict verdict = Verdict::inconclusive;
  nlohmann::ordered_json refutation;  // null unless refuted
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
};
JudgedClaim judge_claim(const std::string& claim_id, const std::vector<PartSpec>& declared,
                        const std::map<std::string, PartOutcome>& outcomes, nlohmann::ordered_json& cases);

// Checks a finished report's `verdict`, `refutation` and `parts` against docs/reports.md (the same rules
// judge_claim applies); returns the problems found (empty: valid). For tests and `report --from`.
std::vector<std::string> check_parts_block(const nlohmann::ordered_json& report);

}  // namespace icl
