// The argmin kind of a claim of one's own (formula.hpp, kind "argmin", argmin_over = e.g. "eta"): stated(case) is the
// claimed minimiser of the model's in-context loss over that parameter. On the exact loss (one layer, d within the
// exact range): a coarse grid of 41 points over the search range (for several minima) and Brent's method
// (Boost.Math brent_find_minima) from the grid's best point; confirmed when the loss at the stated minimiser is <= the
// loss at every searched point within exact_tolerance and the search's minimiser lies within argmin_tolerance of the
// stated one (or, off it, has no lower loss: a flat minimum); refuted otherwise, the counterexample the case with the
// better point and both losses. Monte Carlo of the loss at the stated minimiser checks the exact engine there
// (formula.hpp). Without an exact loss (several layers, d beyond the exact range) the same search runs on the Monte
// Carlo loss over 8192 common prompts (every point sees the same prompts), and the stated minimiser is judged on the
// loss alone, on up to 65536 fresh paired prompts: the per-prompt excess of its loss over the search's point, a
// one-sided interval at the case's alpha against argmin_mc_tolerance x its loss: confirmed below, refuted above,
// else inconclusive. A refuted claim carries the first refuted case as its counterexample.
#pragma once
#include "icl/claim/kinds/formula.hpp"
#include "icl/claim/table.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace icl {

// The fields only this kind takes (argmin_over, argmin_range, argmin_tolerance); throws UsageError where one is wrong.
void check_argmin_fields(const FormulaClaim& f);

// The part the claim asserts (Claim::parts) and the columns of its table.
std::string argmin_part(const FormulaClaim& f);
ClaimTable argmin_table(const FormulaClaim& f);

// One case (k.w: the weights at the stated minimiser): searches the exact loss, writes the case's quantities and
// decisions into j, records a refuted case's counterexample in run, and returns its verdict.
Decision argmin_case(FormulaRun& run, FormulaCase& k, CaseJson& j);

// The refutation's sentence and the meanings of the kind's quantities (the report's extra["quantity_meanings"]).
std::string argmin_refutation(const FormulaClaim& f);
nlohmann::ordered_json argmin_quantity_meanings(const FormulaClaim& f);

}  // namespace icl
