// sja.remark1 — Sun, Jadbabaie, Azizan (000), Remark 1 (a consequence of Proposition 4).
//
// Statement: for the quadratic task, if the embedding width dbar < C(d+2,2), then
// L(BTFB) >= C(d+2,2) - dbar (for every bilinear layer of width dbar, every attention layer, every n).
//
// Judged at its worst case (lib/icl/lower_bounds.hpp): a bilinear layer of width dbar has features whose
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
#include "constructions/sja_appC.hpp"
#include "constructions/sja_lower_bound.hpp"
#include "icl/checks.hpp"
#include "icl/lower_bounds.hpp"
#include "icl/optimal_attention.hpp"

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
    double random_best_limit = INFINITY;
    PromptRng rng(ctx.seed, ctx.purpose(c.label() + "/random"), 0);
    for (int r = 0; r < 20; ++r) {
      BilinearLayer L;
      L.W0.resize(cons.dbar, cons.dbar);
      L.W1.resize(cons.dbar, cons.dbar);
      rng.fill_normal(L.W0);
      rng.fill_normal(L.W1);
      const auto feats = bilinear_features(L, d, cons.dbar);
      const Eigen::MatrixXd U = feature_projection(model, v, feats);
      random_best_limit = std::min(random_best_limit, projected_residual(C, U));
    }

    // Verdict at the worst case. A counterexample is the explicit layer at this n: its exact loss below
    // the bound and Monte Carlo agreeing (interval below the bound, and consistent with the exact loss).
    const bool mc_consistent = e.mc_vs_exact.verdict != Verdict::refuted;
    Decision v_;
    if (e.projected_dim != dt || e.dbar != dt) {
      v_.verdict = Verdict::inconclusive;
      v_.why = fmt::format("INTERNAL: the construction has width {} and projected dimension {}, not {}", e.dbar,
                           e.projected_dim, dt);
    } else if (e.exact_loss < stated * (1 - 1e-9) && e.mc_vs_stated.verdict == Verdict::refuted && mc_consistent) {
      v_.verdict = Verdict::refuted;
      v_.why = fmt::format("counterexample: a bilinear layer of width {} with its optimal attention at n = {} has "
                           "loss {:.6g} (exact; Monte Carlo {}) < {} = C(d+2,2) - dbar, margin {:.4g}; infimum over "
                           "the family {:.6g}",
                           e.dbar, n, e.exact_loss, e.mc_vs_stated.why, k, stated - e.exact_loss, inf);
    } else if (inf >= stated * (1 - 1e-12) && e.mc_vs_stated.verdict == Verdict::confirmed && mc_consistent) {
      v_.verdict = Verdict::confirmed;
      v_.why = fmt::format("the infimum over the family {:.6g} >= {}; the explicit layer at n = {}: exact {:.6g}, "
                           "Monte Carlo {}",
                           inf, k, n, e.exact_loss, e.mc_vs_stated.why);
    } else {
      v_.verdict = Verdict::inconclusive;
      v_.why = fmt::format("infimum {:.6g} vs bound {}; at n = {} the explicit layer's exact loss is {:.6g} (limit "
                           "{:.6g}); Monte Carlo: {}; vs exact: {}",
                           inf, k, n, e.exact_loss, e.limit, e.mc_vs_stated.why, e.mc_vs_exact.why);
    }
    // The corrected bound: equal to the exact infimum, below every loss measured.
    const bool corr_ok = std::abs(corrected - inf) <= 1e-9 * std::max(1.0, inf) && e.exact_loss >= corrected - 1e-9 &&
                         random_best_limit >= corrected - 1e-9 && e.mc_vs_stated.verdict != Verdict::inconclusive &&
                         judge_mc_lower_bound(e.mc, corrected, Tolerance{}, 0.01).verdict != Verdict::refuted;
    if (!corr_ok) corrected_ok = false;
    if (stated - e.exact_loss > worst_margin) {
      worst_margin = stated - e.exact_loss;
      worst = fmt::format("d={}, dbar={}, n={}: loss {:.4g} < {}", d, dt, n, e.exact_loss, k);
    }

    nlohmann::ordered_json j;
    j["params"] = c.to_json();
    j["quantities"]["stated"] = quantity_value(stated);
    j["quantities"]["exact"] = quantity_value(inf);
    j["quantities"]["mc"] = quantity_mc(e.mc);
    j["quantities"]["exact_construction"] = quantity_value(e.exact_loss);
    j["quantities"]["construction_limit"] = quantity_value(e.limit);
    j["quantities"]["corrected"] = quantity_value(corrected);
    j["quantities"]["margin"] = quantity_value(stated - e.exact_loss);
    j["quantities"]["mc_plain"] = quantity_mc(e.mc_plain);
    j["quantities"]["linearity_check_rms"] = quantity_value(e.linearity_rms);
    if (std::isfinite(random_best_limit)) j["quantities"]["random_layers_best_limit"] = quantity_value(random_best_limit);
    j["quantities"]["gamma"] = quantity_matrix(e.gamma);
    j["construction"] = cons.description;
    j["weights"] = layer_json(cons.layer);
    j["width"] = e.dbar;
    j["projected_dimension"] = e.projected_dim;
    j["verdict"] = to_string(v_.verdict);
    j["evidence"] = v_.why;
    j["decisions"]["mc_vs_stated"] = decision_json(e.mc_vs_stated);
    j["decisions"]["mc_vs_exact_construction"] = decision_json(e.mc_vs_exact);
    j["decisions"]["looks"] = fmt::format("{} of {}", e.looks_used, e.looks_planned);
    j["decisions"]["corrected_holds"] = corr_ok;
    res.cases.push_back(j);
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
