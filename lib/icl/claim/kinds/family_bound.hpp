// The family lower-bound kind: "every member of a family has loss at least the stated bound" (a capacity
// statement: a width, a projected dimension, a kernel forces the loss up). A case is decided exactly, and Monte
// Carlo through the forward pass checks it:
//   - exact_vs_stated: the exact loss of an explicit member below the bound refutes; otherwise the family's exact
//     infimum at or above it (within a floating-point tolerance) confirms; otherwise undecided;
//   - the case's verdict: refuted when exact_vs_stated refutes and the member's Monte Carlo interval lies below the
//     bound (mc_vs_stated refuted) without contradicting the member's exact loss (mc_vs_exact not refuted);
//     confirmed when exact_vs_stated confirms and Monte Carlo confirms the bound, again not contradicting the exact
//     loss; inconclusive otherwise, and whenever the claim reports an internal error (the member is not in the
//     family, say).
// The member is the worst case a claim can write down (its construction); the infimum is the claim's mathematics
// (exact/lower_bounds.hpp, say). Case JSON: quantities stated, exact (the infimum), mc, exact_construction;
// decisions exact_vs_stated, mc_vs_stated, mc_vs_exact_construction; the verdict rests on exact_vs_stated and
// mc_vs_stated.
//
// A catalogue claim made of such cases (run_claim): the cases in order, those outside the statement skipped, the
// member closest to its bound over the cases for the summary, the error rates over the cases judged; and its table.
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/decision.hpp"

#include <cmath>
#include <functional>
#include <map>
#include <string>

namespace icl::family_bound {

struct Case {
  double stated = 0;    // the bound
  double infimum = 0;   // the exact infimum of the loss over the family
  // One explicit member: its exact loss, and its Monte Carlo estimate judged against the bound and the exact loss.
  double member_exact = 0;
  Estimate member_mc;
  Decision mc_vs_stated, mc_vs_exact;
  std::string member;          // in the evidence: "a bilinear layer of width 5 with its optimal attention"
  std::string where;           // where the member is evaluated, in the evidence: "at n = 200"
  std::string bound;           // the bound's formula, in a counterexample's evidence ("C(d+2,2) - dbar"); may be empty
  std::string internal_error;  // non-empty: the case is inconclusive for this reason
};

// Relative tolerance of "the infimum at or above the bound" and of "the member's exact loss below it" (plus 1e-12
// absolute for the infimum: a bound of 0 is attained).
inline constexpr double kExactTolerance = 1e-9;

Decision exact_vs_stated(const Case& k);
// The case's verdict from exact_vs_stated and the member's Monte Carlo decisions.
Decision verdict(const Case& k, const Decision& exact);
// The case's JSON in two steps, so that a claim's own quantities and fields go between them: the quantities
// (stated, exact, mc, exact_construction), then the verdict and its decisions, which this returns.
void write_quantities(CaseJson& j, const Case& k);
Decision write_verdict(CaseJson& j, const Case& k);

// The member closest to its bound over a run's cases: the least relative excess member_exact / stated - 1 (the first
// of equals) and its case's words, "<label>: loss 2.0085 vs bound 2".
struct Closest {
  double excess = INFINITY;
  std::string text;
  void offer(const Case& k, const std::string& label);
  // For a summary: "<text> (+0.4%)", or "(none in this grid)" where no case was offered.
  std::string sentence() const;
};

// What a claim of such cases declares: which cases lie outside its statement (ClaimRun::judge_cases: why, or "" to
// judge the case; none if empty), its case (writes the case into j, its verdict with write_verdict, and returns the
// kind's case), which cases' members may be the closest (all if empty), the error rates' tolerance
// (error_rates_over_judged) and the summary: a format string (fmt) with the named arguments {verdict} and {closest}
// (Closest::sentence).
struct ClaimSpec {
  std::function<std::string(const icl::Case& c)> skip = {};
  std::function<Case(ClaimRun& r, const icl::Case& c, double alpha_case, CaseJson& j)> judge = {};
  std::function<bool(const icl::Case& c)> closest_counts = {};
  Tolerance error_rates{0.02, 0.0};
  std::string summary = {};
};
ClaimResult run_claim(const ClaimContext& ctx, const ClaimSpec& s);

// The kind's LaTeX table: the bound (`bound_meaning`: "the stated lower bound $m-\tilde d$"), the exact infimum over
// the family and a finite-n member by Monte Carlo, under `where` ("Corollary~9") and `latex_title`, with the case
// parameters' heads and values in words where given (claim/table.hpp with_param_text).
ClaimTable table(const std::string& where, const std::string& latex_title, const std::string& bound_meaning,
                 std::map<std::string, std::string> param_headers = {},
                 std::map<std::string, std::map<std::string, std::string>> param_values = {});

}  // namespace icl::family_bound
