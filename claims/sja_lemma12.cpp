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
#include "constructions/sja_appC_lemma12.hpp"
#include "icl/claim/kinds/estimator_equality.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/mutation.hpp"

#include <vector>

namespace icl::sja_lemma12 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

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
const Tolerance kTolLinear{0.02, 0.0}, kTolQuadratic{0.10, 0.0}, kExactTol{1e-9, 1e-12};

// Per case: the lemma's right-hand side against our exact expansion and against the forward pass's Monte Carlo
// (the query integrated out exactly given the context), by the equality kind on the conditional estimator
// (claim/kinds/estimator_equality.hpp).
ClaimResult run(const ClaimContext& ctx) {
  estimator_equality::Spec spec{.exact_tol = kExactTol, .error_rates = kTolLinear};
  spec.error_rates_text = "0.02 relative (linear settings 4, 5); 0.10 relative (quadratic settings 1, 2, 3, 6)";
  spec.at = [&](const Case& c, CaseJson& j) -> estimator_equality::Setting {
    const auto s = sja::lemma12_setting(c.geti("setting"), c.geti("d"), c.geti("n"), ctx.seed,
                                        ctx.purpose(c.label() + "/parameters"));
    j.field("setting", s.description);
    // A case whose Monte Carlo-vs-exact decision is still open at ctx.samples runs on, doubling, up to 8x (at
    // --quick the d = 1, n = 8 linear cases have a detectable discrepancy about twice their 2% band at 524288
    // prompts, so a true case could stay undecided; every planned look shares alpha_case).
    return {.stated = lemma12_rhs(s.moments, s.Gamma, s.n),
            .exact = sparse_lsa_loss(s.moments, s.Gamma, s.n),
            .tol = s.quadratic ? kTolQuadratic : kTolLinear,
            .stack = {s.features, s.attention, s.model, s.query_features, s.shape},
            .looks = {16384, 16384, true, 8 * ctx.samples},
            .quantities = [s](CaseJson& own) {
              own.quantity("min_beta_term", s.moments.Ey2 - (s.moments.Lambda.inverse() * s.moments.S).trace());
              own.quantity("Gamma", s.Gamma);
              if (s.fixed_w) own.field("w", std::vector<double>(s.w.data(), s.w.data() + s.w.size()));
            }};
  };
  spec.summary = "{verdict}: {confirmed} of {cases} cases confirmed, for random Gamma, fixed and averaged w, quadratic "
                 "and linear tasks. Formula against our own expansion of the square (to 1e-9): {exact_checks}; Monte "
                 "Carlo against the formula (2% linear, 10% quadratic): {mc_checks}.";
  return estimator_equality::run_claim(ctx, spec);
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
                sja::lemma12_setting_names())},
    .default_samples = 4000000,
    .quick_samples = 524288,  // --quick: enough for the d = 1, n = 8 cases to decide (65536 left them too noisy)
    .memory_bytes = [](const Case& c, int t) { return t * sja::lemma12_workspace_bytes(c.geti("d"), c.geti("n")); },
    .run = run,
    .parts = {PartSpec{"a",
              "For a single LSA with P = e e^T, Q = diag(Gamma, 0) on i.i.d. pairs (u_i, v_i), E[(vhat + v_q)^2] = "
              "min_beta E(<beta, u> + v)^2 + (1/n) tr(Gamma Lam Gamma^T Phi) + xi^T (Gamma^T + Lam^-1)^T Lam "
              "(Gamma^T + Lam^-1) xi, for every Gamma.",
              Strength::theorem}},
    .table = estimator_equality::table("Lemma~12", "Loss decomposition of a sparse LSA on i.i.d.\\ pairs",
        {{"setting", "Task, features, $w$"}}, {{"setting", sja::lemma12_setting_latex()}})}};

}  // namespace icl::sja_lemma12
