// sja.remark1 — Sun, Jadbabaie, Azizan (000), Remark 1 (a consequence of Proposition 4).
//
// Statement: for the quadratic task, if the embedding width dbar < C(d+2,2), then
// L(BTFB) >= C(d+2,2) - dbar (for every bilinear layer of width dbar, every attention layer, every n).
//
// Judged at its worst case (lib/icl/exact/lower_bounds.hpp): a bilinear layer of width dbar has features whose
// projection onto span{v_ij} has dimension <= dbar, so over the whole family the infimum of the loss is the
// sum of the m - dbar smallest eigenvalues of C = Cov(wbar) (wbar: the target's coefficients in the v
// basis), approached as n -> infinity by the explicit width-dbar layer of constructions/sja_lower_bound.hpp.
// stated      m - dbar.
// exact       that infimum.
// mc          the explicit layer (weights in the JSON) with its exactly optimal attention, at this n,
//             through the real forward pass; exact_construction is its exact loss at this n.
// corrected   the corrected bound m - dbar - 1 + lam-, lam- = (d+3 - sqrt((d+3)^2-8))/2 (dbar >= d + 1).
// Where the paper goes wrong: Remark 1 inherits Prop. 4's error (App. E: Cov(wbar) has off-diagonal
// entries sqrt2, not 1, so its smallest eigenvalue is lam- < 1); see sja.prop4.
#include "claims/common/sja_lower_bound_case.hpp"
#include "constructions/sja_appC.hpp"
#include "constructions/sja_lower_bound.hpp"
#include "icl/exact/lower_bounds.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/prompt.hpp"
#include "icl/verdict/checks.hpp"

#include <algorithm>

namespace icl {
namespace {

// The corrected bound for width dbar >= d + 1 (so that m - dbar <= d(d+1)/2 + 1 eigenvalues are summed:
// lam- and then ones).
double corrected_bound(int d, int dbar) { return sja::kernel_width(d) - dbar - 1 + sja::lambda_minus(d); }

ClaimResult run(const ClaimContext& ctx) {
  ClaimResult res;
  std::size_t valid = 0;
  for (const auto& c : ctx.cases)
    if (c.geti("dbar") < sja::kernel_width(c.geti("d")) && c.geti("dbar") >= c.geti("d") + 1) ++valid;
  const double alpha_case = ctx.alpha / static_cast<double>(std::max<std::size_t>(valid, 1));
  std::size_t looks = 0, done = 0;
  bool corrected_ok = true;
  double worst_margin = 0;
  std::string worst;
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const auto& c : ctx.cases) {
    const int d = c.geti("d"), dt = c.geti("dbar"), n = c.geti("n");  // dt: the width, the largest projected dimension
    const int m = sja::kernel_width(d);
    if (dt >= m || dt < d + 1) {
      skipped.push_back(c.label() + fmt::format(": dbar must be in [d+1, C(d+2,2)-1] = [{}, {}]", d + 1, m - 1));
      if (ctx.progress) ctx.progress(++done, ctx.cases.size());
      continue;
    }
    const int k = m - dt;
    const auto model = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
    const auto v = sja::orthonormal_v(d);
    const Eigen::MatrixXd C = coefficient_covariance(model, v);
    const double stated = k;
    const double inf = projection_infimum(C, dt);
    const double corrected = corrected_bound(d, dt);
    const auto cons = sja::quadratic_exclusion_layer(d, k);
    const BlockEvaluation e = evaluate_block(ctx, alpha_case, model, v, C, cons.layer, d, n, stated, c.label());
    looks = std::max(looks, e.looks_planned);

    // Sanity: random bilinear layers of width dbar never beat the infimum (exact).
    const double random_best_limit =
        random_bilinear_best_limit(ctx, c.label() + "/random", model, v, C, d, cons.dbar);

    LowerBoundCase lb;
    lb.n = n, lb.k = k, lb.inf = inf, lb.corrected = corrected, lb.random_best_limit = random_best_limit;
    if (e.projected_dim != dt || e.dbar != dt)
      lb.internal_error = fmt::format("INTERNAL: the construction has width {} and projected dimension {}, not {}",
                                      e.dbar, e.projected_dim, dt);
    lb.layer = fmt::format("width {}", e.dbar);
    lb.bound = "C(d+2,2) - dbar";
    auto [j, corr_ok] = judge_lower_bound_case(c, e, cons.layer, cons.description, lb);
    if (!corr_ok) corrected_ok = false;
    if (stated - e.exact_loss > worst_margin) {
      worst_margin = stated - e.exact_loss;
      worst = fmt::format("d={}, dbar={}, n={}: loss {:.4g} < {}", d, dt, n, e.exact_loss, k);
    }
    res.cases.push_back(std::move(j));
    if (ctx.progress) ctx.progress(++done, ctx.cases.size());
  }
  res.extra["error_rates"] = error_rates_json(ctx.alpha, valid, looks, Tolerance{0.02, 0.0});
  if (!skipped.empty()) res.extra["skipped"] = skipped;
  res.extra["corrected_formula"] = "L >= C(d+2,2) - dbar - 1 + (d+3 - sqrt((d+3)^2-8))/2 for d+1 <= dbar < C(d+2,2)";
  res.extra["corrected_formula_holds"] = corrected_ok;
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  findings.push_back(
      "Remark 1 fails for every d and every width d+1 <= dbar < C(d+2,2): an explicit width-dbar bilinear layer "
      "spanning the top eigenspace of Cov(wbar) approaches C(d+2,2) - dbar - 1 + lam- < C(d+2,2) - dbar as n grows "
      "(lam- = 2 - sqrt2 at d = 1). Inherits Prop. 4's error in App. E.");
  res.extra["findings"] = findings;
  const Verdict v = aggregate_verdict(res.cases);
  res.summary = worst.empty() ? fmt::format("{}: no counterexample in this grid.", to_string(v))
                              : fmt::format("{}: largest violation {} (margin {:.3g}); corrected bound {}.", to_string(v),
                                            worst, worst_margin, corrected_ok ? "holds" : "FAILS");
  return res;
}

const RegisterClaim reg{Claim{
    "sja.remark1",
    "Width dbar < C(d+2,2) forces loss >= C(d+2,2) - dbar",
    "000_72a77bb517664bbf.txt, Remark 1 (after Proposition 4)",
    "If the prompt's embedding dimension dbar is less than C(d+2,2), then L(BTFB) >= C(d+2,2) - dbar.",
    {ParamSpec{"d", {1, 2, 3}, {2}, 1, 4, true, "input dimension"},
     ParamSpec{"dbar", {2, 3, 4, 5, 7, 9}, {5}, 2, 20, true,
               "embedding width (cases outside [d+1, C(d+2,2)-1] are skipped)"},
     ParamSpec{"n", {1000}, {400}, 1, 1e6, true, "context length"}},
    200000,
    50000,
    [](const Case& c, int threads) {
      const int d = c.geti("d"), dbar = std::max(c.geti("dbar"), d + 1);
      return threads * sja_shape(d, dbar, c.geti("n")).workspace_bytes();
    },
    run}};

}  // namespace
}  // namespace icl
