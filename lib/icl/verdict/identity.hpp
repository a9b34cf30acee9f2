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

}  // namespace icl
