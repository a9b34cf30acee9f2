// The bound kinds of a claim of one's own (formula.hpp): "upper_bound" (the model's in-context loss <= stated) and
// "lower_bound" (loss >= stated). Each case follows the rule equality and bounds share (formula.hpp
// check_stated_value): the exact loss, where there is one, lies on the stated side of the bound within
// exact_tolerance (confirmed) or not (refuted); Monte Carlo through the forward pass checks it, or decides alone
// against the bound within `tolerance`.
#pragma once
#include "icl/claim/kinds/formula.hpp"

#include <string>

namespace icl {

// The part the claim asserts (Claim::parts); upper: "upper_bound", else "lower_bound".
std::string bound_part(bool upper);

// An exact decision on a bound: loss <= bound (upper) or >= bound (lower), within a floating-point tolerance.
Decision judge_exact_bound(double exact, double bound, const Tolerance& tol, bool upper);

// One case: writes its quantities and decisions into j and returns its verdict.
Decision bound_case(FormulaRun& run, const FormulaCase& k, CaseJson& j, bool upper);

}  // namespace icl
