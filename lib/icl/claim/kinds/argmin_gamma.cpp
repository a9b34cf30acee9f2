// The argmin kind over a matrix (argmin_gamma.hpp): the exact and Monte Carlo checks of a stated sparse Gamma, the
// case verdict, the case's report and the run.
#include "icl/claim/kinds/argmin_gamma.hpp"

#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/prompt.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/verdict/loss_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

namespace icl::argmin_gamma {

CaseResult compute(ClaimRun& r, double alpha, const Case& c, const Spec& s) {
  const ClaimContext& ctx = r.ctx();
  CaseResult k;
  k.d = c.geti("d");
  k.cov = c.geti("cov");
  k.n = c.geti("n");
  const int d = k.d, n = k.n, starts = s.checks.starts;
  k.sigma = test_covariance(d, k.cov);
  k.model = GaussianIclModel::from_task(PolynomialTask::linear(d), k.sigma);
  // Exact: the minimiser over the sparse form against the stated Gamma, and the full (P, Q) from random starts.
  const auto u = identity_features(d);
  k.fm = model_feature_moments(k.model, u);
  k.exact = optimal_sparse_gamma(k.fm, n);
  k.stated = s.stated(k.sigma, n);
  k.loss_exact = sparse_lsa_loss(k.fm, k.exact, n);
  k.loss_stated = sparse_lsa_loss(k.fm, k.stated, n);
  k.rel = (k.exact - k.stated).norm() / k.exact.norm();
  k.matrix_exact = judge_relative_difference(k.rel, s.checks.exact.rel,
                                             "||Gamma* - " + s.stated_name + "||_F / ||Gamma*||_F");
  k.full = single_layer_from_starts(single_layer_moments(k.model, u), n, starts, ctx.seed,
                                    ctx.purpose(c.label() + "/start"), 1e-9 * std::abs(k.loss_exact));
  const double general_best = k.full.best.loss;
  k.minimum = std::min(k.loss_exact, general_best);
  k.general = Decision(k.full.not_below(k.loss_exact, 1e-9), 0, 0,
                       fmt::format("best full (b, A) from {} starts: {:.10g}; sparse optimum {:.10g}", starts,
                                   general_best, k.loss_exact));
  // Monte Carlo: the stated layer's loss, and a least-squares fit of the optimal Gamma judged entry by entry (two
  // looks at alpha / 4 each: a quarter of the budget, then twice the budget where an entry is undecided).
  Transformer block;
  block.layers.emplace_back(s.layer(k.stated));
  const PromptShape shape = acds_shape(d, n);
  k.loss = forward_loss_equality(ctx, alpha / 2, block, k.model, shape, ctx.purpose(c.label()), k.loss_stated,
                                 k.minimum, s.checks.loss, s.checks.exact, 4096,
                                 std::min<std::uint64_t>(ctx.samples, 16384));
  r.note_looks(2 * k.loss.looks_planned);  // error_rates counts twice the loss check's looks
  const std::vector<MatrixLook> looks{{ctx.purpose(c.label() + "/lsq"), ctx.samples / 4},
                                      {ctx.purpose(c.label() + "/lsq8"), 2 * ctx.samples}};
  k.fit = judge_matrix_in_looks(Transformer{}, k.model, shape, ctx.seed, ctx.threads, looks, 20,
                                query_moment_matrix(k.model, u), k.stated, 0.1 * k.stated.cwiseAbs().maxCoeff(),
                                alpha / 2);
  return k;
}

// Refuted only where the exact computation and the Monte Carlo fit both disagree with the stated matrix (or where the
// loss check refutes: a non-sparse layer beats it exactly and Monte Carlo agrees on its loss); confirmed only when
// every check confirms. The least-squares fit is an independent measurement of the minimiser; at these budgets it can
// contradict the stated matrix (refute) but is too noisy to be required for confirmation.
Decision case_verdict(const CaseResult& k, const Extra* extra) {
  const Decision &mat_exact = k.matrix_exact, &mat_mc = k.fit.decision, &general = k.general;
  const EqualityOutcome& o = k.loss;
  std::string why = fmt::format("matrix: exact {} ({}); Monte Carlo fit {} ({}). Loss: {}. Full P, Q: {}.",
                                to_string(mat_exact.verdict), mat_exact.why, to_string(mat_mc.verdict), mat_mc.why,
                                o.verdict.why, general.why);
  if (extra)
    why += fmt::format(" {}: {} ({}).", extra->label, to_string(extra->decision.verdict), extra->decision.why);
  if (mat_exact.verdict == Verdict::refuted && mat_mc.verdict == Verdict::refuted)
    return {Verdict::refuted, 0, 0, why, {"matrix_exact", "matrix_mc"}};
  if (o.verdict.verdict == Verdict::refuted) return {Verdict::refuted, 0, 0, why, o.verdict.basis};
  if (mat_exact.verdict == Verdict::confirmed && mat_mc.verdict != Verdict::refuted &&
      o.verdict.verdict == Verdict::confirmed && general.verdict == Verdict::confirmed &&
      (!extra || extra->decision.verdict == Verdict::confirmed)) {
    std::vector<std::string> basis = o.verdict.basis;
    basis.insert(basis.end(), {"matrix_exact", "full_weights"});
    if (extra) basis.push_back(extra->name);
    return {Verdict::confirmed, 0, 0, why, basis};
  }
  return {Verdict::inconclusive, 0, 0, why};
}

void write_case(CaseJson& j, const CaseResult& k, const Decision& v, const Extra* extra) {
  j.field("covariance", covariance_name(k.cov, k.d)).quantity("stated", k.loss_stated).quantity("exact", k.minimum);
  j.mc(k.loss.mc).quantity("exact_sparse_optimum", k.loss_exact).quantity("general_best", k.full.best.loss);
  j.field("general_search", k.full.search.to_json(12)).quantity("stated_matrix", k.stated);
  j.quantity("exact_matrix", k.exact).quantity("mc_matrix", k.fit.lsq.gamma);
  j.quantity("mc_matrix_stderr", k.fit.lsq.stderr_);
  j.quantity("matrix_relative_difference", k.rel).quantity("sigma", k.sigma);
  if (extra && extra->quantities) extra->quantities(j);
  j.verdict(v.verdict, v.why, v.basis).decisions(k.loss).decision("matrix_exact", k.matrix_exact);
  j.decision("matrix_mc", k.fit.decision).decision("full_weights", k.general);
  j.decision("mc_matrix_samples", k.fit.lsq.samples);
  if (extra) j.decision(extra->name, extra->decision);
}

ClaimResult run_claim(const ClaimContext& ctx, const Spec& s) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  Tally t;
  for (const auto& c : ctx.cases) {
    const CaseResult k = compute(r, alpha_case, c, s);
    const std::optional<Extra> extra = s.extra ? s.extra(c, k) : std::nullopt;
    const Extra* e = extra ? &*extra : nullptr;
    const Decision v = case_verdict(k, e);
    t.best_general_gain = std::max(t.best_general_gain, (k.loss_exact - k.full.best.loss) / k.loss_exact);
    if (k.rel >= t.worst_rel) std::tie(t.worst_rel, t.worst) = std::tuple(k.rel, c.label());
    CaseJson j(c);
    write_case(j, k, v, e);
    r.add_case(j);
  }
  r.error_rates(s.checks.loss);
  if (s.after_cases) s.after_cases(r);
  return r.finish([&](Verdict v) {
    t.loss_checks = tally_decisions(r.cases(), "mc_vs_stated");
    return s.summary(v, t);
  });
}

ClaimTable table(const std::string& where, const std::string& latex_title, const std::string& matrix) {
  return ClaimTable{TableKind::equality, where, latex_title,
                    {{"stated", "Paper", "loss at the stated minimiser"}, {"exact", "Exact opt.", "exact optimum"},
                     mc_column(),
                     {"matrix_relative_difference", "Matrix diff.",
                      "relative difference, stated vs.\\ exact " + matrix}}};
}

}  // namespace icl::argmin_gamma
