// The log-log slope kind: a figure's power law and its fit. Part a: "the loss against the context length n on
// log-log axes is a straight line of slope p"; part b: "the linear fit on that scale, from a stated number of prompts
// per n, yields r^2 = R". The claim states p and R and supplies the setting's exact loss at n, its Monte Carlo loss at
// n and the figure's protocol replicated; the kind owns, over the distinct n of the claim's cases (at least 3, sorted):
//   - test 1 (part a, case params test = 1, the setting's, n_min, n_max): `exact` the least-squares slope of log L(n)
//     on log n from the exact losses, judged against p within the exact tolerance (`exact_vs_stated`); `mc` the
//     weighted least-squares slope through the Monte Carlo means (weights from the delta-method variances of their
//     logs, statistics.hpp fit_line and slope_estimate), judged against p and against the exact slope within the
//     slope tolerance (`mc_vs_stated`, `mc_vs_exact`); the three combined as an equality by the one rule
//     (decision.hpp rule 4, combine_exact_first: the exact slope decides, Monte Carlo checks it); the
//     quantities stated, exact, mc, exact_r2, mc_r2 (unweighted) and the curve (n, exact, mc at each n);
//   - test 2 (part b, case params test = 2, the setting's, prompts_per_n, replications): the protocol's r^2 draws,
//     their summary (mean, 5%, 50%, 95% points) and the two-sided Monte Carlo p-value of R among them with its
//     Clopper-Pearson bounds (`r2_p_value`): refuted where even the upper bound is below the case's alpha, confirmed
//     (R is a plausible outcome) where the lower bound exceeds it, inconclusive otherwise;
//   - the run: the claim's alpha split over the two tests (Bonferroni, one look each), the error rates at the slope
//     tolerance, the range of the Monte Carlo's variance reduction (the plain estimate's variance over the
//     estimate's, at each n), the claim's refutations of the parts (where it gives them) and the summary from the
//     claim's function.
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/parts.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/decision.hpp"
#include "icl/verdict/statistics.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace icl::loglog_slope {

// What the two tests measured, for the claim's summary.
struct Outcome {
  LineFit exact, mc;  // the exact and the Monte Carlo lines
  DrawSummary r2;     // the protocol's r^2 over its replications
  double alpha = 0;   // each test's alpha
  double vr_min = 1e300, vr_max = 0;  // the range of the variance reduction over n
};

struct Spec {
  double slope = 0;                    // the stated slope p (the value judged)
  Tolerance slope_tol;                 // the Monte Carlo slope against p and against the exact slope
  Tolerance exact_tol{1e-9, 1e-12};    // the exact slope against p
  double r2 = 0;                       // the stated r^2 R of the protocol's fit
  int per_n = 0, replications = 0;     // the protocol: prompts per n; its replications
  nlohmann::ordered_json setting;      // the setting's case params, after `test` (e.g. {"d": 4})
  std::function<double(int n)> exact;  // the exact loss at n
  // The loss at n by Monte Carlo on the stream `purpose`: output 1 the estimate, output 0 a plain estimate of the same
  // loss (its variance over output 1's is the variance reduction).
  std::function<Accumulator(int n, std::uint64_t purpose)> mc;
  std::string mc_method;  // the variance reduction's method, in words (the report's extra)
  // The protocol replicated: one r^2 per replication, at the n grid `ns` (log n: logn), protocol n = ns[m] drawing
  // from the stream purposes[m].
  std::function<std::vector<double>(const std::vector<int>& ns, const std::vector<std::uint64_t>& purposes,
                                    const std::vector<double>& logn)>
      protocol;
  std::function<std::string(const LineFit& exact)> exact_line;  // words after test 1's evidence (the exact line)
  std::map<std::string, Refutation> refutations;  // optional, by part ("a", "b"): how a refuted part is classed
  std::function<std::string(Verdict v, const Outcome& o)> summary;
};

// Test 1 (part a) over the grid ns (logn = log n), at the case's alpha: writes its case; returns the fits and the
// variance reduction's range.
Outcome slope_case(ClaimRun& r, const Spec& s, const std::vector<int>& ns, const std::vector<double>& logn,
                   double alpha);
// Test 2 (part b): the protocol's r^2 draws judged against s.r2; writes its case; returns the draws' summary.
DrawSummary r2_case(ClaimRun& r, const Spec& s, const std::vector<int>& ns, const std::vector<double>& draws,
                    double alpha);

// The whole run: both tests over the distinct n of ctx.cases (throws std::invalid_argument with fewer than 3).
ClaimResult run_claim(const ClaimContext& ctx, const Spec& s);

// The kind's LaTeX table (stated, exact, Monte Carlo, the r^2 quantiles; prompts per n; the tests' names) under
// `where` and `latex_title`, with the parts' words in LaTeX.
ClaimTable table(const std::string& where, const std::string& latex_title, const std::string& part_a,
                 const std::string& part_b);
// The claim with its case parameter `test` named (1 slope, 2 r2).
Claim with_test_names(Claim c);

}  // namespace icl::loglog_slope
