// zfb.thm4 — Zhang, Frei, Bartlett (003), Theorem 4 with Assumption 3.
//
// Statement: gradient flow on the population loss L = 1/2 E[(yhat - y_q)^2] of the unmasked linear
// self-attention layer, x ~ N(0, Lambda), w ~ N(0, I), prompt length N, from W^{PV}(0) = sigma [0,0;0,1],
// W^{KQ}(0) = sigma [Theta Theta^T, 0; 0, 0] (||Theta Theta^T||_F = 1, Theta Lambda != 0) with
// sigma^2 ||Gamma||_op sqrt(d) < 2, Gamma = (1 + 1/N) Lambda + tr(Lambda)/N I, converges to a global minimum,
// W^{KQ}_* = tr(Gamma^-2)^{-1/4} [Gamma^-1, 0; 0, 0], W^{PV}_* = tr(Gamma^-2)^{1/4} [0, 0; 0, 1].
//
// The quantity in `stated`, `exact`, `mc` is the population loss at the limit:
// stated    L at W^{KQ}_*, W^{PV}_* of eq. (11) (constructions/zfb.hpp), exact;
// exact     L at the flow's endpoint, exact: the endpoint of the adaptive Dormand-Prince integration of
//           d theta/dt = -grad L on all 2 (d+1)^2 weights, with L and grad L in closed form
//           (lib/icl/exact/lsa_population_loss.hpp);
// mc        L at the flow's endpoint measured through the real forward pass.
// The limits themselves: stated_kq / stated_pv_dd (eq. 11), flow_kq / flow_pv (the endpoint), and
// exact_kq / exact_pv_dd, the limit on the reduced form from an exact linear solve for the minimiser B* of
//           the loss over yhat = w^T S B x_q / N and the conserved balance ||u||^2 - ||V||_F^2
//           (claims/common/zfb_flow.hpp): nothing of eq. (11) enters it. The verdict rests on the distances
//           between the three (distance_*) and on the Monte Carlo decisions.
// global_min_lower_bound  inf over all tensors p of the quadratic p^T K p - 2 m^T p + E y^2 (/2): a lower
//           bound on the loss over all weights; the endpoint attaining it is a global minimum.
// Cases also report whether the flow stayed on the reduced form the proof uses, the conserved balance,
// the local curvature at the endpoint (stiffness), and the loss / distance against time.
#include "claims/common/zfb_flow.hpp"
#include "constructions/zfb_cases.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/flow_limit.hpp"
#include "icl/claim/param_names.hpp"
#include "icl/verdict/quantities.hpp"

namespace icl::zfb_thm4 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

using namespace zfb;

// Per case (claims/common/zfb_flow.hpp judge_flow_case): the flow from the case's initialisation, its limits and
// decisions; the flow-limit kind's run around the cases (claim/kinds/flow_limit.hpp run_claim).
ClaimResult run(const ClaimContext& ctx) {
  flow_limit::ClaimSpec s{.limit = "eq. (11)", .condition = "the sigma condition of Theorem 4",
                          .outside_key = "outside_assumption_3"};
  const flow_limit::Texts texts = flow_limit::texts(s.limit, "exact reduced-form limit");
  s.run_case = [&](ClaimRun& r, const Case& c, double alpha_case, const FlowOptions& opt) {
    const int d = c.geti("d"), N = c.geti("N"), cov = c.geti("cov");
    const Thm4Case k = thm4_case(cov, d, N, c.geti("theta"), c.get("sigma"), ctx.seed);
    const FlowCase f = judge_flow_case(r, c, alpha_case, k, opt, texts, [&](CaseJson& j) {
      j.field("covariance", thm4_covariance_name(cov, d));
      j.field("lambda", quantity_matrix(k.lambda));
      j.field("sigma", k.sigma);
      j.field("sigma_bound", k.sigma_bound);
    });
    // One curve per (covariance, N), the first case's.
    return f.tally(fmt::format("{} N={}", thm4_covariance_name(cov, d), N));
  };
  // Outside Assumption 3's condition (the theorem says nothing there): the first case's d and N.
  s.outside = [&](const FlowOptions& opt) {
    return thm4_flows_outside(ctx.cases.front().geti("d"), ctx.cases.front().geti("N"),
                              ctx.quick ? std::vector<double>{3.0} : std::vector<double>{1.5, 5.0, 30.0}, opt, ctx.seed);
  };
  return flow_limit::run_claim(ctx, s);
}

const RegisterClaim reg{Claim{
    .id = "zfb.thm4",
    .title = "Gradient flow converges to the stated W_KQ*, W_PV*",
    .source = "Zhang, Frei and Bartlett (2024), Assumption 3 and Theorem 4 (eqs. 10-11)",
    .statement = "Gradient flow on L = 1/2 E[(yhat - y)^2], x ~ N(0, Lambda), w ~ N(0, I), from W^{PV}(0) = sigma [0,0;0,1], "
    "W^{KQ}(0) = sigma [Theta Theta^T, 0; 0, 0] with ||Theta Theta^T||_F = 1, Theta Lambda != 0, sigma^2 ||Gamma||_op "
    "sqrt(d) < 2, Gamma = (1 + 1/N) Lambda + tr(Lambda)/N I, converges to a global minimum with W^{KQ}_* = "
    "tr(Gamma^-2)^{-1/4} [Gamma^-1, 0; 0, 0], W^{PV}_* = tr(Gamma^-2)^{1/4} [0, 0; 0, 1].",
    .params = {ParamSpec{"d", {3}, {2}, 1, 6, true, "input dimension"},
     ParamSpec{"N", {2, 20, 100}, {5}, 1, 1e6, true, "training prompt length"},
     with_names(ParamSpec{"cov", {0, 1, 2, 3}, {0, 2}, 0, 4, true,
                          "Lambda: 0 isotropic, 1 diagonal kappa 10, 2 rotated kappa 10, 3 rotated kappa 30, 4 rotated kappa 100"},
                numbered_names({"isotropic", "diag-k10", "rot-k10", "rot-k30", "rot-k100"})),
     with_names(ParamSpec{"theta", {0, 2}, {0}, 0, 2, true, "Theta: 0, 1 Gaussian; 2 rank one"},
                numbered_names({"gauss-a", "gauss-b", "rank-one"})),
     ParamSpec{"sigma", {0.25, 0.9}, {0.5}, 1e-3, 0.999, false, "sigma as a fraction of the bound of Theorem 4"}},
    .default_samples = 262144,
    .quick_samples = 131072,
    .memory_bytes = [](const Case& c, int threads) { return threads * 8.0 * 8 * (c.geti("d") + 1) * (c.get("N") + 1) + 1e6; },
    .run = run,
    .parts = {PartSpec{"a",
              "Under Assumption 3 with sigma^2 ||Gamma||_op sqrt(d) < 2, gradient flow on the population loss converges "
              "to a global minimum with W^{KQ}_* = tr(Gamma^-2)^{-1/4} [Gamma^-1, 0; 0, 0], W^{PV}_* = "
              "tr(Gamma^-2)^{1/4} [0, 0; 0, 1] (eq. 11).",
              Strength::theorem}},
    .table = flow_limit::table(
        "Theorem~4", "Gradient flow converges to the stated $W_{KQ}^*, W_{PV}^*$", {},
        {{"theta", theta_latex()}})}};

}  // namespace icl::zfb_thm4
