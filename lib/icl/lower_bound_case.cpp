#include "icl/lower_bound_case.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace icl {

LowerBoundCaseResult judge_lower_bound_case(const Case& c, const BlockEvaluation& e, const BilinearLayer& layer,
                                            const std::string& construction, const LowerBoundCase& in) {
  const double stated = in.k, inf = in.inf, corrected = in.corrected;
  const int n = in.n, k = in.k;

  // Verdict at the worst case. A counterexample is the explicit layer at this n: its exact loss below
  // the bound and Monte Carlo agreeing (interval below the bound, and consistent with the exact loss).
  const bool mc_consistent = e.mc_vs_exact.verdict != Verdict::refuted;
  Decision v_;
  if (!in.internal_error.empty()) {
    v_.verdict = Verdict::inconclusive;
    v_.why = in.internal_error;
  } else if (e.exact_loss < stated * (1 - 1e-9) && e.mc_vs_stated.verdict == Verdict::refuted && mc_consistent) {
    v_.verdict = Verdict::refuted;
    v_.why = fmt::format("counterexample: a bilinear layer of {} with its optimal attention at n = {} has loss {:.6g} "
                         "(exact; Monte Carlo {}) < {} = {}, margin {:.4g}; infimum over the family {:.6g}",
                         in.layer, n, e.exact_loss, e.mc_vs_stated.why, k, in.bound, stated - e.exact_loss, inf);
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
                       in.random_best_limit >= corrected - 1e-9 && e.mc_vs_stated.verdict != Verdict::inconclusive &&
                       judge_mc_lower_bound(e.mc, corrected, Tolerance{}, 0.01).verdict != Verdict::refuted;

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
  if (std::isfinite(in.random_best_limit))
    j["quantities"]["random_layers_best_limit"] = quantity_value(in.random_best_limit);
  j["quantities"]["gamma"] = quantity_matrix(e.gamma);
  j["construction"] = construction;
  j["weights"] = layer_json(layer);
  j["width"] = e.dbar;
  j["projected_dimension"] = e.projected_dim;
  j["verdict"] = to_string(v_.verdict);
  j["evidence"] = v_.why;
  j["decisions"]["mc_vs_stated"] = decision_json(e.mc_vs_stated);
  j["decisions"]["mc_vs_exact_construction"] = decision_json(e.mc_vs_exact);
  j["decisions"]["looks"] = fmt::format("{} of {}", e.looks_used, e.looks_planned);
  j["decisions"]["corrected_holds"] = corr_ok;
  return {j, corr_ok};
}

double random_bilinear_best_limit(const ClaimContext& ctx, const std::string& tag, const GaussianIclModel& model,
                                  const std::vector<Poly>& v, const Eigen::MatrixXd& C, int d, int dbar,
                                  int max_rank) {
  double best = INFINITY;
  PromptRng rng(ctx.seed, ctx.purpose(tag), 0);
  for (int r = 0; r < 20; ++r) {
    BilinearLayer L;
    L.W0.resize(dbar, dbar);
    L.W1.resize(dbar, dbar);
    rng.fill_normal(L.W0);
    rng.fill_normal(L.W1);
    const Eigen::MatrixXd U = feature_projection(model, v, bilinear_features(L, d, dbar));
    if (max_rank >= 0 && numerical_rank(U) > max_rank) continue;
    best = std::min(best, projected_residual(C, U));
  }
  return best;
}

}  // namespace icl
