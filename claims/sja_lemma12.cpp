// sja.lemma12 — Sun, Jadbabaie, Azizan (000), Lemma 12 (Appendix C, proof in C.1).
//
// Statement: a single LSA with P = e e^T, Q = diag(Gamma, 0) on i.i.d. pairs (u_i, v_i) ~ D has
//   E[(vhat + v_q)^2] = min_beta E(<beta, u> + v)^2 + (1/n) tr(Gamma Lam Gamma^T Phi)
//                       + xi^T (Gamma^T + Lam^{-1})^T Lam (Gamma^T + Lam^{-1}) xi,
// Lam = E[u u^T], Phi = Cov[u v], xi = E[u v].
//
// stated  the lemma's right-hand side from exact moments (for a fixed task w; or averaged over w, as
//         App. C applies it: E_w of the right-hand side).
// exact   the left-hand side from our own direct expansion of the square (sparse_attention.hpp).
// mc      the left-hand side measured through the forward pass, with the query integrated out exactly given the
//         context (QueryConditionalWorker; each case reports its variance-reduction factor).
//
// Settings (parameter `setting`; built by constructions/sja_appC_lemma12), all with an arbitrary (random, not
// optimal) Gamma:
//   1 quadratic task, u = xbar from the App. C bilinear layer, one fixed w (the lemma as stated)
//   2 the same, averaged over w ~ N(0, I) (the paper's use in App. C)
//   3 quadratic task, u = xbar, averaged over w, Gamma with i.i.d. N(0, 1/dbar) entries
//   4 linear task y = <w, x>, u = x (acds embedding), averaged over w
//   5 linear task, u = x, one fixed w
//   6 quadratic task on raw features u = (1, x) (no bilinear layer): min_beta term > 0
#include "constructions/sja_appC.hpp"
#include "constructions/sja_appC_lemma12.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/param_names.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/conditional_equality.hpp"
#include "icl/verdict/mutation.hpp"

namespace icl {
namespace {
namespace sja_lemma12 {  // named, so that a unity build (several claim files in one unit) keeps them apart

// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kRhs{"sja.lemma12/rhs", "sja.lemma12", "the right-hand side of Lemma 12"};

// The lemma's right-hand side, from Lam, xi xi^T (or E_w of it), E[v^2 u u^T], E v^2.
double lemma12_rhs(const FeatureMoments& m, const Eigen::MatrixXd& G, double n) {
  const Eigen::MatrixXd Li = m.Lambda.inverse();
  const double min_term = m.Ey2 - (Li * m.S).trace();   // E v^2 - xi^T Lam^{-1} xi
  const Eigen::MatrixXd Phi = m.K4 - m.S;                // Cov[u v] = E[v^2 u u^T] - xi xi^T
  const Eigen::MatrixXd A = G.transpose() + Li;          // Gamma^T + Lam^{-1}
  return kRhs(min_term + (G * m.Lambda * G.transpose() * Phi).trace() / n + (A.transpose() * m.Lambda * A * m.S).trace());
}

// Declared resolution of the Monte Carlo check, per setting. For the quadratic-feature settings the
// loss is a degree-12 polynomial in Gaussians whose relative standard deviation is 10-60, so within
// the budget Monte Carlo resolves 10%, not 2%. The exact comparison (1e-9) is what tests the formula;
// Monte Carlo tests that the exact expansion is what the forward pass computes.
const Tolerance kTolLinear{0.02, 0.0}, kTolQuadratic{0.10, 0.0};
const Tolerance kExactTol{1e-9, 1e-12};

// One case: the lemma's right-hand side against our exact expansion and against the forward pass's Monte Carlo
// (the query integrated out exactly given the context: verdict/conditional_equality.hpp).
CaseJson judge_case(ClaimRun& r, const Case& c, double alpha_case, VarianceReductionRange& vr) {
  const ClaimContext& ctx = r.ctx();
  const int n = c.geti("n");
  const sja::Lemma12Setting s =
      sja::lemma12_setting(c.geti("setting"), c.geti("d"), n, ctx.seed, ctx.purpose(c.label() + "/parameters"));
  const Tolerance& tol = s.quadratic ? kTolQuadratic : kTolLinear;
  const double stated = lemma12_rhs(s.moments, s.Gamma, n);
  const double exact = sparse_lsa_loss(s.moments, s.Gamma, n);
  // A case whose Monte Carlo-vs-exact decision is still open at ctx.samples runs on, doubling, up to 8x (at
  // --quick the d = 1, n = 8 linear cases have a detectable discrepancy about twice their 2% band at 524288
  // prompts, so a true case could stay undecided; every planned look shares alpha_case).
  const ConditionalEquality m =
      conditional_equality(ctx, alpha_case, stated, exact, tol, kExactTol, s.features, s.attention, s.model,
                           query_moment_matrix(s.model, s.query_features), s.shape, ctx.purpose(c.label()),
                           {16384, 16384, true, 8 * ctx.samples});
  r.note_looks(m.o.looks_planned);
  vr.add(m.variance_reduction);
  CaseJson j(c);
  j.field("setting", s.description);
  j.quantity("stated", stated);
  j.quantity("exact", exact);
  j.quantity("mc", m.o.mc);
  j.quantity("variance_reduction", m.variance_reduction);
  j.quantity("linearity_rms", m.linearity_rms);
  j.quantity("min_beta_term", s.moments.Ey2 - (s.moments.Lambda.inverse() * s.moments.S).trace());
  j.quantity("Gamma", s.Gamma);
  if (s.fixed_w) j.field("w", std::vector<double>(s.w.data(), s.w.data() + s.w.size()));
  j.field("tolerance", tolerance_text(tol));
  j.verdict(m.o.verdict);
  j.decisions(m.o);
  return j;
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  VarianceReductionRange vr;
  for (const auto& c : ctx.cases) {
    CaseJson j = judge_case(r, c, alpha_case, vr);
    r.add_case(j);
  }
  r.error_rates(kTolLinear);
  r.extra("error_rates")["tolerance"] = "0.02 relative (linear settings 4, 5); 0.10 relative (quadratic settings 1, 2, 3, 6)";
  r.extra("variance_reduction") = vr.to_json();
  return r.finish([&](Verdict v) {
    std::size_t conf = 0;
    for (const auto& c : r.cases()) conf += c["verdict"] == "confirmed";
    return fmt::format("{}: {} of {} cases confirmed, for random Gamma, fixed and averaged w, quadratic and linear "
                       "tasks. Formula against our own expansion of the square (to 1e-9): {}; Monte Carlo against "
                       "the formula (2% linear, 10% quadratic): {}.",
                       to_string(v), conf, r.cases().size(), tally_decisions(r.cases(), "exact_vs_stated"),
                       tally_decisions(r.cases(), "mc_vs_stated"));
  });
}

// The layout of the claim's LaTeX table (report/table.hpp).
ClaimTable table_layout() {
  return with_param_text({TableKind::equality,
                          "Lemma~12",
                          "Loss decomposition of a sparse LSA on i.i.d.\\ pairs",
                          {paper_value_column(), exact_column(), mc_column()}},
                         {{"setting", "Task, features, $w$"}},
                         {{"setting",
                           {{"quad-fixed-w", "quadratic, $\\bar x$, fixed $w$"},
                            {"quad-avg-w", "quadratic, $\\bar x$, averaged $w$"},
                            {"quad-avg-w-random-gamma", "quadratic, $\\bar x$, averaged $w$, random $\\Gamma$"},
                            {"lin-avg-w", "linear, $x$, averaged $w$"},
                            {"lin-fixed-w", "linear, $x$, fixed $w$"},
                            {"quad-raw", "quadratic, $(1, x)$, averaged $w$"}}}});
}

const RegisterClaim reg{Claim{
    .id = "sja.lemma12",
    .title = "Loss decomposition of a sparse LSA on i.i.d. pairs",
    .source = "Sun, Jadbabaie and Azizan (2025), Lemma 12 (Appendix C, proof C.1)",
    .statement = "Single LSA with P = e e^T, Q = diag(Gamma, 0) on i.i.d. (u_i, v_i) ~ D: E[(vhat + v_q)^2] = min_beta "
    "E(<beta, u> + v)^2 + (1/n) tr(Gamma Lam Gamma^T Phi) + xi^T (Gamma^T + Lam^{-1})^T Lam (Gamma^T + Lam^{-1}) xi, "
    "with Lam = E[u u^T], Phi = Cov[u v], xi = E[u v].",
    .params = {ParamSpec{"d", {1, 2}, {1}, 1, 4, true, "input dimension"},
     ParamSpec{"n", {8, 32}, {8}, 1, 1e6, true, "context length"},
     with_names(ParamSpec{"setting", {1, 2, 3, 4, 5, 6}, {1, 2, 4, 6}, 1, 6, true, "which (task, features, w, Gamma): see source"},
                numbered_names({"quad-fixed-w", "quad-avg-w", "quad-avg-w-random-gamma", "lin-avg-w", "lin-fixed-w",
                                "quad-raw"}, 1))},
    .default_samples = 4000000,
    .quick_samples = 524288,  // --quick: enough for the d = 1, n = 8 cases to decide (65536 left them too noisy)
    .memory_bytes = [](const Case& c, int threads) {
      return threads * sja_shape(c.geti("d"), sja::kernel_width(c.geti("d")), c.geti("n")).workspace_bytes();
    },
    .run = run,
    .parts = {PartSpec{"a",
              "For a single LSA with P = e e^T, Q = diag(Gamma, 0) on i.i.d. pairs (u_i, v_i), E[(vhat + v_q)^2] = "
              "min_beta E(<beta, u> + v)^2 + (1/n) tr(Gamma Lam Gamma^T Phi) + xi^T (Gamma^T + Lam^-1)^T Lam "
              "(Gamma^T + Lam^-1) xi, for every Gamma.",
              Strength::theorem}},
    .table = table_layout()}};

}  // namespace sja_lemma12
}  // namespace
}  // namespace icl
