// The identity kind of a claim of one's own (formula.hpp, kind "identity"): the model's forward pass computes a stated
// prediction. reference(case, X, y) gives the stated prediction of a prompt's query label (X: the inputs, d x (n+1),
// the query's at column n; y: the n context labels); the model's prediction is -Z[d, n] after its forward pass
// (ModelPromptWorker::prediction). Per case, `prompts` prompts of the case's stream (the same draws as its Monte
// Carlo) are compared: confirmed when every prediction is within exact_tolerance of the reference (relative, plus
// 1e-12 absolute), refuted at the first prompt outside it (the counterexample: the case, the prompt's index, both
// predictions and, for small prompts, its inputs and labels). A check on the prompts drawn, not a proof over all
// prompts; no statistical test, so no error rate (the report says so).
//
// A catalogue claim's identity (judge_identities below): a construction run over many prompts, the worst of each of its
// errors over them (montecarlo/worst_case.hpp), judged as named identities (verdict/identity.hpp).
#pragma once
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/formula.hpp"
#include "icl/montecarlo/worst_case.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/identity.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace icl {

// The part the claim asserts (Claim::parts) and the columns of its table.
std::string identity_part();
ClaimTable identity_table();

// One case: compares the forward pass with the reference on f.prompts prompts, writes the case's quantities and
// decision into j, records a refuted case's counterexample in run, and returns its verdict. Throws UsageError where
// the reference returns a value that is not a finite number.
Decision identity_case(FormulaRun& run, FormulaCase& k, CaseJson& j);

// The refutation's sentence and the meanings of the kind's quantities (the report's extra["quantity_meanings"]).
std::string identity_refutation(const FormulaClaim& f);
nlohmann::ordered_json identity_quantity_meanings(const FormulaClaim& f);

// One identity of a catalogue case: its decision's name in the case, its worst error over the prompts judged (the
// worst of one or several of a WorstCase's errors), and what it compares (the decision's words).
struct NamedIdentity {
  std::string name;
  double worst = 0;
  std::string what;
};

// A catalogue case's identities over the prompts of w: each judged by judge_identity_over (confirmed <= tol.confirm,
// refuted >= tol.refute; the prompts set aside, for why_set_aside, counted in its words) and written into j as a
// decision, in order; the case's verdict is refuted where any identity is, else inconclusive where any is, else
// confirmed, its reason the decisions' words joined by "; " and then `tail`, its basis the decisions that reached it.
// Call it after the case's quantities (the JSON's key order). Returns the verdict.
Verdict judge_identities(CaseJson& j, const WorstCase& w, const std::vector<NamedIdentity>& ids,
                         const IdentityTolerance& tol, const std::string& tail,
                         const std::string& why_set_aside = kDoubleRangeWhy);

// A catalogue claim made of such cases (run_identity_claim): per case, `check` writes the case's quantities into j and
// returns the WorstCase, the identities and the tail, which judge_identities judges at `tol`; after the cases
// extra["tolerance"] is `tolerance_text` (empty: identity_tolerance_text(tol)), the kind writes what `refuted` asks
// for (below), `after_cases` adds the claim's findings, refutations and any blocks, and `summary` writes the summary from
// the verdict (the cases are r.cases(): max_quantity reads their worst values; without it, the kind's summary of
// `refuted`).
struct IdentityCase {
  WorstCase w;
  std::vector<NamedIdentity> ids;
  std::string tail;
  // With IdentityClaimSpec::refuted: the corrected identity (its worst error over the prompts, its words), judged at the
  // same tolerance and recorded as the decision "corrected" outside the case's verdict (its words end the evidence), and
  // the case as a counterexample in words (the prompt, what each side gives), read where the case is refuted.
  NamedIdentity corrected{};
  std::string counterexample{};
};
// A claim whose identity fails in general but holds on a family of its cases, and holds everywhere corrected. The kind
// tallies, over the cases, the worst error of the identity named `identity` on the cases whose parameter `family_param`
// is `family_value` and the corrected identity's worst on all cases, and keeps the first refuted case's counterexample
// (cases in order). After the cases it attaches Refutation{cls, explanation} to part `part` (where it ends refuted),
// with `correction` as the corrected statement when the corrected identity is confirmed on every case, and adds the
// findings "With <family> the <what> holds: worst relative error X over those cases.", "With the correction (<correction>)
// the identity holds on every case: worst relative error Y." (each "does NOT hold on every case" where it does not) and
// "Counterexample (the first refuted case, in the order of the cases): <counterexample>." Its summary: refuted:
// "refuted (<class>): the <what> holds for <family> (worst error X) but not in general: counterexample <counterexample>.
// With the correction (<correction>) it holds on every case (worst Y)." (where the family or the correction fails, "the
// <what> does not hold in general", "The correction (...) does not hold on every case either (worst Y)."); otherwise
// "<verdict>: worst relative error <worst over all cases> (<what>), <Y> (corrected)."
struct IdentityRefutation {
  RefutationClass cls = RefutationClass::substantive;
  std::string explanation{}, correction{};
  std::string identity = "stated", part = "a";
  std::string family_param{};  // the family on which it holds: a case parameter, its value, in words
  double family_value = 0;
  std::string family{};
};
// What the kind tallies for IdentityRefutation (NaN: no case of the family).
struct IdentityTally {
  double worst = 0, worst_family = NAN, worst_corrected = 0;
  std::string what, counterexample;
  bool family_everywhere = true, corrected_everywhere = true;  // its decision confirmed on every such case
};
struct IdentityClaimSpec {
  IdentityTolerance tol{};
  std::string tolerance_text{};
  std::function<IdentityCase(const Case&, CaseJson&)> check{};
  std::function<void(ClaimRun&)> after_cases{};
  std::function<std::string(Verdict, const ClaimRun&)> summary{};
  std::optional<IdentityRefutation> refuted{};
};
ClaimResult run_identity_claim(const ClaimContext& ctx, const IdentityClaimSpec& s);
// The kind's findings, refutation and summary of IdentityRefutation from its tally (run_identity_claim's).
void identity_refutation_findings(ClaimRun& r, const IdentityRefutation& f, const IdentityTally& t);
std::string identity_refutation_summary(Verdict v, const IdentityRefutation& f, const IdentityTally& t);

}  // namespace icl
