// acds.thm4 — Ahn, Cheng, Daneshmand, Sra (002), Theorem 4 and Appendix B.3.
//
// Statement: x ~ N(0, Sigma), w ~ N(0, Sigma^-1), Sigma > 0 ("any PSD matrix", then Sigma > 0), L layers in
// form (11) (P_i = [B_i, 0; 0, 1], Q_i = -[A_i, 0; 0, 0], A_i and B_i unconstrained), the in-context loss
// f(A, B). With S = {(A, B) : A_i = a_i Sigma^-1, B_i = b_i I for scalars a_i, b_i},
//   inf_{(A, B) in S} sum_i ||grad_{A_i} f||_F^2 + ||grad_{B_i} f||_F^2 = 0.
// No condition on n or L; footnote 3: the infimum may not be attained; footnote 4: f does not depend on
// B_{L-1} (its gradient is identically 0; the claim computes it anyway).
//
// Feasible here: L <= 2 (the exact engine expands form (11) at L = 2 to degree 8 in S, ~2 s per gradient at
// d = 2; L = 3 reaches degree 22 and is refused). L = 1 is included though B_0 then plays no role.
//
// What the claim does (the stationary kind, lib/icl/claim/kinds/stationary.hpp, bound to the acds family by
// claims/common/acds_landscape.hpp and constructions/acds_landscape.hpp), per case (d, L, n, covariance):
//   1. minimises the exact population loss over the family's scalars (a_i, b_i) with L-BFGS from several
//      starts, on the reduced family loss E tr(pi(W)^2) (exact; microseconds per evaluation), then checks the
//      engine's family loss and family gradient against it at the point found;
//   2. at the best point found, computes the exact gradient over every entry of every A_i and B_i and judges
//      ||grad|| / ||grad at the zero network|| <= 1e-8 (there grad_{A_i} = -2 Sigma: a scale that
//      follows Sigma, where a random point's gradient swings over orders of magnitude at kappa = 100)
//      (decision `stationary`);
//   3. controls: the same gradient at the point moved off the family by 1e-4 of each matrix's norm in a random
//      direction, and (default runs) on the family at 1.1 x the point, must exceed 100 x the precision (else the
//      check could not have failed) (decision `controls`); at the latter it also measures how far each gradient
//      block lies from span{Sigma} (A_i) or span{I} (B_i) (`gradient_direction_residual`: the symmetry argument in
//      constructions/acds_landscape.hpp says the full gradient on the family is c_i Sigma, d_i I, so family stationarity is full
//      stationarity);
//   4. checks the exact loss against Monte Carlo through the real forward pass (10% band; a contradiction makes
//      the case inconclusive, too noisy is reported with its detectable discrepancy).
// Quantities: `stated` 0 (the stated infimum of the squared gradient norm), `exact` the squared full gradient
// norm at the point found, `gradient_norm`, `reference_gradient_norm`, `relative_gradient_norm`,
// `family_gradient_norm`, `control_off_family`, `control_on_family` (default runs only: one more engine
// evaluation), `gradient_direction_residual` (A blocks vs span{Sigma}, B_i (i < L-1) vs span{I}),
// `coefficients_a_b` (2 x L: row 0 a_i, row 1 b_i), `loss_exact`, `loss_reduced`, `loss_mc`, `sigma`.
// Verdict per case: confirmed when every check holds; otherwise inconclusive (an infimum over an unbounded
// set is not refuted by a search that fails).
#include "claims/common/acds_landscape.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"


namespace icl::acds_thm4 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

ClaimResult run(const ClaimContext& ctx) {
  acds_landscape::Settings s;
  s.form11 = true;
  s.starts = ctx.quick ? 3 : 6;
  s.on_family_control = !ctx.quick;  // one more engine evaluation (~2 s at d = 2)
  return acds_landscape::run_claim(ctx, s);
}

const RegisterClaim reg{Claim{
    .id = "acds.thm4",
    .title = "Same with P_i = [B_i 0; 0 1], B_i = b_i I",
    .source = "Ahn, Cheng, Daneshmand and Sra (2023), Theorem 4 and Appendix B.3",
    .statement = "x ~ N(0, Sigma), w ~ N(0, Sigma^-1), L layers in form (11) with P_i = [B_i, 0; 0, 1]: inf over A_i = a_i Sigma^-1, "
    "B_i = b_i I of sum_i (||grad_{A_i} f||_F^2 + ||grad_{B_i} f||_F^2) = 0.",
    .params = {ParamSpec{"d", {2, 3}, {2}, 1, 3, true, "input dimension"},
     ParamSpec{"L", {1, 2}, {2}, 1, 2, true, "layers (form (11); the exact engine reaches L = 2)"},
     ParamSpec{"n", {10}, {10}, 1, 1e6, true, "context length"},
     with_names(ParamSpec{"cov", {0, 3}, {2}, 0, 3, true,
                          "covariance: 0 isotropic, 1 diagonal, 2 rotated, 3 rotated ill-conditioned (kappa 100)"},
                test_covariance_names())},
    .default_samples = 1000000,
    .quick_samples = 300000,
    .memory_bytes = [](const Case& c, int threads) { return threads * acds_shape(c.geti("d"), c.geti("n")).workspace_bytes(); },
    .run = run,
    .parts = {PartSpec{"a",
              "For x ~ N(0, Sigma), w ~ N(0, Sigma^-1), any Sigma > 0 and any number of layers L in form (11): the infimum "
              "over A_i = a_i Sigma^-1, B_i = b_i I of sum_i (||grad_{A_i} f||_F^2 + ||grad_{B_i} f||_F^2) is 0 (it need "
              "not be attained).",
              Strength::theorem}},
    .table = stationary::table("Theorem~4", "Same with $P_i=\\mathrm{diag}(B_i,1)$, $B_i=b_i I$")}};

}  // namespace icl::acds_thm4
