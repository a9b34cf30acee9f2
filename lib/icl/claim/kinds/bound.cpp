// The bound kinds of a claim of one's own (bound.hpp): the exact decision on a bound and the per-case check.
#include "icl/claim/kinds/bound.hpp"

#include <fmt/format.h>

namespace icl {

std::string bound_part(bool upper) {
  return upper ? "the model's in-context loss is at most the stated bound"
               : "the model's in-context loss is at least the stated bound";
}

Decision judge_exact_bound(double exact, double bound, const Tolerance& tol, bool upper) {
  Decision d;
  d.band = tol.band(bound);
  const bool holds = upper ? exact <= bound + d.band : exact >= bound - d.band;
  d.verdict = holds ? Verdict::confirmed : Verdict::refuted;
  d.why = fmt::format("exact {:.10g} {} the bound {:.10g}", exact,
                      holds ? (upper ? "lies below" : "lies above") : (upper ? "lies above" : "lies below"), bound);
  return d;
}

Decision bound_case(FormulaRun& run, const FormulaCase& k, CaseJson& j, bool upper) {
  std::optional<Decision> exact_vs_stated;
  if (k.exact) exact_vs_stated = judge_exact_bound(*k.exact, k.stated, run.exact_tol, upper);
  const double band = run.tol.band(k.stated);
  auto judge = [&](const Estimate& e, double a) {
    return upper ? judge_mc_upper_bound(e, k.stated, run.tol, a) : judge_mc_lower_bound(e, k.stated, run.tol, a);
  };
  return check_stated_value(run, k, j, exact_vs_stated, judge, DecideAt{{upper ? k.stated + band : k.stated - band}, std::nullopt});
}

}  // namespace icl
