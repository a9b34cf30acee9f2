#include "claims/common/sja_lower_bound_case.hpp"

#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/exact/feature_moments.hpp"

#include "constructions/sja_appC.hpp"
#include "constructions/sja_lower_bound.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/montecarlo/conditional_loss.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl {

BlockEvaluation evaluate_block(const ClaimContext& ctx, double alpha, const GaussianIclModel& model,
                               const std::vector<Poly>& v, const Eigen::MatrixXd& C, const BilinearLayer& layer, int d,
                               int n, double stated, const std::string& tag, const Tolerance& bound_tol) {
  BlockEvaluation e{sja::block_exact(model, v, C, layer, d, n)};
  Transformer features, attention;
  features.layers.emplace_back(layer);
  attention.layers.emplace_back(sja::sparse_attention(e.gamma));
  static_cast<ConditionalBoundWithExact&>(e) = conditional_lower_bound_with_exact(
      ctx, alpha, stated, bound_tol, e.exact_loss, Tolerance{0.03, 0.0}, features, attention, model,
      query_moment_matrix(model, e.features), sja_shape(d, e.dbar, n), ctx.purpose(tag));
  return e;
}

namespace {

// A case of the family lower-bound kind (claim/kinds/family_bound.hpp) whose member is the evaluated block e:
// `member` names it in the evidence ("a bilinear layer of width 5 with its optimal attention"), evaluated at n.
family_bound::Case family_case(const BlockEvaluation& e, double stated, double infimum, std::string member, int n) {
  family_bound::Case k;
  k.stated = stated, k.infimum = infimum;
  k.member_exact = e.exact_loss, k.member_mc = e.mc;
  k.mc_vs_stated = e.mc_vs_stated, k.mc_vs_exact = e.mc_vs_exact;
  k.member = std::move(member);
  k.where = fmt::format("at n = {}", n);
  return k;
}

// The kind's quantities, then construction_limit (the member's n -> infinity loss).
void block_quantities(CaseJson& j, const family_bound::Case& k, const BlockEvaluation& e) {
  family_bound::write_quantities(j, k);
  j.quantity("construction_limit", e.limit);
}

// The kind's verdict and decisions, then the Monte Carlo looks used; returns the verdict.
Decision block_verdict(CaseJson& j, const family_bound::Case& k, const BlockEvaluation& e) {
  const Decision v = family_bound::write_verdict(j, k);
  j.decision("looks", fmt::format("{} of {}", e.looks_used, e.looks_planned));
  return v;
}

// Empty if the evaluated block's projected dimension is dt; otherwise the internal error.
std::string projected_dimension_error(const BlockEvaluation& e, int dt) {
  return e.projected_dim != dt
             ? fmt::format("INTERNAL: the construction's projected dimension is {}, not {}", e.projected_dim, dt)
             : std::string();
}

// One case of sja.prop4 / sja.remark1: the family lower-bound kind's case k (the explicit layer `cons`, evaluated as e,
// its member), the corrected bound's check (equal to the exact infimum, below every loss measured, random layers of
// the family included), and the case's JSON. Returns whether the corrected bound holds.
bool lower_bound_case(CaseJson& j, const BlockEvaluation& e, const family_bound::Case& k,
                      const sja::BilinearConstruction& cons, double corrected, double random_best_limit) {
  const double inf = k.infimum;
  const bool corr_ok = std::abs(corrected - inf) <= 1e-9 * std::max(1.0, inf) && e.exact_loss >= corrected - 1e-9 &&
                       random_best_limit >= corrected - 1e-9 && e.mc_vs_stated.verdict != Verdict::inconclusive &&
                       judge_mc_lower_bound(e.mc, corrected, Tolerance{}, 0.01).verdict != Verdict::refuted;
  block_quantities(j, k, e);
  j.quantity("corrected", corrected);
  j.quantity("margin", k.stated - e.exact_loss);
  j.quantity("mc_plain", e.mc_plain);
  j.quantity("linearity_check_rms", e.linearity_rms);
  if (std::isfinite(random_best_limit)) j.quantity("random_layers_best_limit", random_best_limit);
  j.quantity("gamma", e.gamma);
  j.field("construction", cons.description);
  j.field("weights", sja::layer_json(cons.layer));
  j.field("width", e.dbar);
  j.field("projected_dimension", e.projected_dim);
  block_verdict(j, k, e);
  j.decision("corrected_holds", corr_ok);
  return corr_ok;
}

}  // namespace

family_bound::Case judge_block_member(ClaimRun& r, double alpha, const Case& c, CaseJson& j, const BlockMember& b,
                                      const std::function<void(CaseJson&)>& own) {
  const BlockEvaluation e = evaluate_block(r.ctx(), alpha, b.model, b.v, b.C, b.layer, b.d, b.n, b.stated, c.label());
  r.note_looks(e.looks_planned);
  family_bound::Case k = family_case(e, b.stated, b.infimum, b.member, b.n);
  k.internal_error = projected_dimension_error(e, b.dt);
  block_quantities(j, k, e);
  j.quantity("mc_plain", e.mc_plain);
  j.quantity("linearity_check_rms", e.linearity_rms);
  if (own) own(j);
  j.field("construction", b.description);
  j.field("weights", sja::layer_json(b.layer));
  j.field("projected_dimension", e.projected_dim);
  block_verdict(j, k, e);
  return k;
}

ClaimResult run_lower_bound_claim(const ClaimContext& ctx, const LowerBoundClaimSpec& spec) {
  ClaimRun r(ctx);
  bool corrected_ok = true;
  double worst_margin = 0;
  std::string worst;
  auto skip = [&](const Case& c) { return spec.out_of_range(c.geti("d"), c.geti(spec.family_param)); };
  r.judge_cases(skip, [&](const Case& c, double alpha_case) {
    const int d = c.geti("d"), dt = c.geti(spec.family_param), n = c.geti("n");
    const int m = sja::kernel_width(d);
    const int k = m - dt;
    const auto model = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
    const auto v = sja::orthonormal_v(d);
    const Eigen::MatrixXd C = coefficient_covariance(model, v);
    const double stated = k;
    const auto cons = sja::quadratic_exclusion_layer(d, k);
    const BlockEvaluation e = evaluate_block(ctx, alpha_case, model, v, C, cons.layer, d, n, stated, c.label());
    r.note_looks(e.looks_planned);

    // The worst case: the family's exact infimum, and the explicit layer at this n as the member that would refute.
    family_bound::Case fk = family_case(
        e, stated, projection_infimum(C, dt),
        fmt::format("a bilinear layer of {} with its optimal attention", spec.layer_text(e, dt)), n);
    fk.bound = spec.bound_text;
    fk.internal_error = spec.not_in_family ? spec.not_in_family(e, dt) : projected_dimension_error(e, dt);
    // Sanity: random bilinear layers of the family never beat the infimum (exact).
    const double random_best = sja::random_bilinear_best_limit(ctx.seed, ctx.purpose(c.label() + "/random"), model, v, C,
                                                               d, cons.dbar, spec.random_layers_within_rank ? dt : -1);
    CaseJson j(c);
    const bool corr_ok = lower_bound_case(j, e, fk, cons, spec.corrected(d, dt), random_best);
    if (!corr_ok) corrected_ok = false;
    if (stated - e.exact_loss > worst_margin) {
      worst_margin = stated - e.exact_loss;
      worst = fmt::format("d={}, {}={}, n={}: loss {:.4g} < {}", d, spec.family_param, dt, n, e.exact_loss, k);
    }
    r.add_case(j);
  });
  r.error_rates_over_judged(Tolerance{0.02, 0.0});
  r.extra("corrected_formula") = spec.corrected_formula;
  r.extra("corrected_formula_holds") = corrected_ok;
  r.finding(spec.finding);
  Refutation refutation = spec.refutation;
  refutation.corrected = corrected_ok ? spec.corrected_formula : "";
  r.part("a").on_refuted(refutation);
  return r.finish([&](Verdict v) {
    return worst.empty() ? fmt::format("{}: no counterexample in this grid.", to_string(v))
                         : fmt::format("{}: largest violation {} (margin {:.3g}); corrected bound {}.", to_string(v),
                                       worst, worst_margin, corrected_ok ? "holds" : "FAILS");
  });
}

ClaimTable lower_bound_table(const std::string& label, const std::string& caption) {
  return {TableKind::bound, label, caption,
          {{"stated", "Stated bound", "the stated lower bound"},
           {"exact", "Exact inf.", "exact infimum over explicit layers"},
           {"mc", "Construction (MC)", "loss of an explicit construction by Monte Carlo"},
           {"corrected", "Corrected", "the corrected bound"}}};
}

}  // namespace icl
