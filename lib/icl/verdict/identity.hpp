// An identity checked in floating point over many prompts (montecarlo/worst_case.hpp measures it).
#pragma once
#include "icl/verdict/decision.hpp"

#include <fmt/format.h>
#include <string>

namespace icl {

// An identity checked in floating point: confirmed when the worst error is at most `confirm`
// (near double precision, far below any real discrepancy), refuted when it is at least `refute`
// (no rounding of well-scaled double arithmetic comes near it), inconclusive in between.
struct IdentityTolerance {
  double confirm = 1e-9;
  double refute = 1e-6;
};

inline std::string identity_tolerance_text(const IdentityTolerance& tol) {
  return fmt::format(
      "confirmed when the worst relative error is <= {:.0e}, refuted when >= {:.0e} (errors relative to the sum of "
      "absolute values of the terms of each entry; truth = long double reference)",
      tol.confirm, tol.refute);
}

// The same in short, naming the truth the errors are measured against: "confirmed <= 1e-09, refuted >= 1e-06
// relative (truth: <truth>)".
inline std::string identity_tolerance_text(const IdentityTolerance& tol, const std::string& truth) {
  return fmt::format("confirmed <= {:.0e}, refuted >= {:.0e} relative (truth: {})", tol.confirm, tol.refute, truth);
}
inline Decision judge_identity(double worst, const IdentityTolerance& tol, const std::string& what) {
  Decision d;
  d.band = tol.confirm;
  d.detectable = tol.refute;
  if (worst <= tol.confirm) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("{}: worst relative error {:.3g} <= {:.0e}", what, worst, tol.confirm);
  } else if (worst >= tol.refute) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("{}: worst relative error {:.3g} >= {:.0e} (a real mismatch, not rounding)", what, worst,
                        tol.refute);
  } else {
    d.verdict = Verdict::inconclusive;
    d.why = fmt::format("{}: worst relative error {:.3g} lies between {:.0e} and {:.0e}", what, worst, tol.confirm,
                        tol.refute);
  }
  return d;
}

// The same over a WorstCase whose worker may set prompts aside (montecarlo/worst_case.hpp): error kind k's
// worst over the prompts judged, saying how many were set aside and why; inconclusive when none is left.
template <class Worst>
Decision judge_identity_over(const Worst& w, double worst, const IdentityTolerance& tol, const std::string& what,
                             const std::string& why_set_aside) {
  if (w.judged() == 0)
    return Decision{Verdict::inconclusive, tol.confirm, tol.refute,
                    fmt::format("{}: every one of {} prompts was set aside ({})", what, w.prompts, why_set_aside)};
  if (w.set_aside == 0) return judge_identity(worst, tol, what);
  return judge_identity(worst, tol,
                        fmt::format("{} ({} of {} prompts; {} set aside: {})", what, w.judged(), w.prompts, w.set_aside,
                                    why_set_aside));
}

}  // namespace icl
