// The equality kind of a claim of one's own (formula.hpp, kind "equality"): the model's in-context loss equals the
// stated formula. Each case follows the rule equality and bounds share (formula.hpp check_stated_value): the exact
// loss, where there is one, equals the stated value within exact_tolerance (confirmed) or not (refuted); Monte Carlo
// through the forward pass checks it, or decides alone against the stated value within `tolerance`.
//
// A refuted equality gets a proposed correction (verdict/proposed_correction.hpp) where the library computes the loss
// as an exact fraction: one layer, isotropic inputs (cov 0 in every case). The model is called at a fitting grid the
// toolkit chooses beyond the user's (d = 1..6, six values of n and of every parameter of one's own the grid varies;
// parameters with one value, and noise with one, are held fixed at it) and at held-out cases beyond that grid (larger
// d and n); the exact loss of its weights at each is fitted by a polynomial in d and those parameters and in 1/n, and
// reported only when it equals the exact loss at every held-out case and at every case of the user's grid. The report
// then holds `proposed_correction` and each case the quantity `proposed`; otherwise `proposed_correction` says why
// nothing is proposed. An exception from `model` at a point of the search ends the search (the report says where
// and why), not the run.
#pragma once
#include "icl/claim/kinds/formula.hpp"
#include "icl/verdict/proposed_correction.hpp"

#include <string>

namespace icl {

// The part the claim asserts (Claim::parts).
std::string equality_part();

// One case: writes its quantities and decisions into j and returns its verdict.
Decision equality_case(FormulaRun& run, const FormulaCase& k, CaseJson& j);

// The proposed correction of a refuted equality (above): the model's exact loss as a fraction on a grid the toolkit
// chooses, fitted and verified on it and on the claim's cases.
ProposedCorrection search_correction(const FormulaClaim& f, const ClaimContext& ctx);

// The refutation's `corrected` sentence: the verified correction, or "" where none is verified.
std::string correction_sentence(const ProposedCorrection& pc);

// Adds the correction to the result: each case's quantity `proposed`, extra["proposed_correction"], and its sentence
// at the end of the summary.
void add_correction(ClaimResult& res, const ProposedCorrection& pc);

// A catalogue claim's check of a verified correction against a correction of its own (a hand-derived formula whose
// value each case holds as the quantity `quantity`): per case holding both, the decision `decision` of the quantity
// `proposed` (add_proposed_quantity) against it, exact equality at `tol` (judge_exact_equal). Nothing where the
// correction is not verified.
void judge_proposed_against(nlohmann::ordered_json& cases, const ProposedCorrection& pc, const std::string& quantity,
                            const Tolerance& tol, const std::string& decision);

}  // namespace icl
