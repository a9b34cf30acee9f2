// sja.cor9 — Sun, Jadbabaie, Azizan (000), Corollary 9 (Appendix A).
//
// Statement: for orthonormal features g_1..g_m (E[g_a g_b] = delta_ab under the input distribution) and
// targets f = sum_i w_i g_i with w_i i.i.d. N(0, 1), any block whose feed-forward kernel x -> xt projects
// onto span{g} with dimension dt < m has loss >= m - dt.
//
// Judged at its worst case (lib/icl/exact/lower_bounds.hpp): in the g basis the coefficients are w itself, so
// C = I and the infimum over every kernel of projected dimension dt (and every attention, every n) is the
// sum of the m - dt smallest eigenvalues of I, i.e. m - dt: the bound is exactly the infimum, approached as
// n -> infinity by any kernel spanning dt of the g's.
// Orthonormal sets (parameter `basis`): 0 the first m of the v_ij of Lemma 3 under N(0, I), with the kernel
// spanning the first dt of them plus one feature orthogonal to span{g} (v_m, when m < C(d+2,2)); 1 the
// Gram-Schmidt orthonormalisation, under N(0, Sigma) with Sigma rotated (test_covariance kind 2), of the
// monomials 1, x_1..x_d, x_1^2, x_1 x_2, ... (first m), with the kernel computing the first dt monomials.
// stated     m - dt.
// exact      the infimum over the family (sum of the m - dt smallest eigenvalues of C, C computed exactly).
// mc         the explicit layer (weights in the JSON) with its exactly optimal attention at n, through the
//            real forward pass; exact_construction is its exact loss; construction_limit its n -> inf loss.
#include "claims/common/sja_lower_bound_case.hpp"
#include "constructions/sja_appC.hpp"
#include "constructions/sja_lower_bound.hpp"
#include "icl/claim/kinds/family_bound.hpp"
#include "icl/claim/param_names.hpp"
#include "icl/exact/lower_bounds.hpp"
#include "icl/model/prompt.hpp"
#include "icl/verdict/mutation.hpp"

#include <fmt/format.h>

namespace icl::sja_cor9 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kStated{"sja.cor9/stated", "sja.cor9", "m - dtilde"};

// One case: the family's exact infimum, and the explicit kernel as the member, evaluated at n and judged by the family
// lower-bound kind (claims/common/sja_lower_bound_case.hpp judge_block_member; claim/kinds/family_bound.hpp).
family_bound::Case judge_case(ClaimRun& r, const Case& c, double alpha_case, CaseJson& j) {
  const int d = c.geti("d"), m = c.geti("m"), dt = c.geti("dt"), n = c.geti("n"), basis = c.geti("basis");
  const sja::OrthonormalFamily k = sja::orthonormal_family(d, m, dt, basis);
  const auto model = GaussianIclModel::from_basis(d, k.g, k.sigma, fmt::format("orthonormal basis {}", basis));
  const Eigen::MatrixXd C = coefficient_covariance(model, k.g);  // the identity, computed
  const double stated = kStated(m - dt);
  const BlockMember member{model, k.g, C, k.layer, k.description, d, n, dt, stated, projection_infimum(C, dt),
                           "the explicit kernel"};
  return judge_block_member(r, alpha_case, c, j, member, [&](CaseJson& own) {
    own.quantity("C_minus_identity_norm", (C - Eigen::MatrixXd::Identity(m, m)).norm());
  });
}

ClaimResult run(const ClaimContext& ctx) {
  family_bound::ClaimSpec s{.judge = judge_case, .error_rates = Tolerance{0.02, 0.0}};
  s.skip = [](const Case& c) {
    const int m = sja::kernel_width(c.geti("d"));
    return c.geti("m") <= m && c.geti("dt") < c.geti("m") ? std::string()
                                                          : fmt::format("needs m <= C(d+2,2) = {} and dt < m", m);
  };
  // The closest informative case, for the summary: with dt = 0 the kernel reaches nothing and the loss is E[y^2] = m at
  // every n, so the bound is attained trivially there.
  s.closest_counts = [](const Case& c) { return c.geti("dt") > 0; };
  s.summary = "{verdict}: with orthonormal features and i.i.d. coefficients the infimum over the family equals m - dt "
              "exactly (the bound is tight as n grows); closest finite-n case with dt >= 1 {closest}.";
  return family_bound::run_claim(ctx, s);
}

const RegisterClaim reg{Claim{
    .id = "sja.cor9",
    .title = "Orthonormal features: projected dimension d~ < m forces loss >= m - d~",
    .source = "Sun, Jadbabaie and Azizan (2025), Corollary 9 (Appendix A)",
    .statement = "For orthonormal features g_1..g_m and f = sum w_i g_i with w_i i.i.d. N(0,1), any block whose feed-forward "
    "kernel projects onto span{g} with dimension dt < m has loss >= m - dt.",
    .params = {ParamSpec{"d", {1, 2}, {2}, 1, 3, true, "input dimension"},
     ParamSpec{"m", {3, 6}, {4}, 1, 10, true, "number of orthonormal features (<= C(d+2,2))"},
     ParamSpec{"dt", {0, 1, 2, 4}, {2}, 0, 10, true, "projected dimension of the kernel (< m)"},
     with_names(ParamSpec{"basis", {0, 1}, {0, 1}, 0, 1, true,
                          "0 the v_ij of Lemma 3 under N(0, I); 1 Gram-Schmidt monomials under a rotated N(0, Sigma)"},
                numbered_names({"lemma3", "gram-schmidt"})),
     ParamSpec{"n", {200}, {100}, 1, 1e6, true, "context length"}},
    .default_samples = 200000,
    .quick_samples = 50000,
    .memory_bytes = [](const Case& c, int threads) {
      return threads * sja_shape(c.geti("d"), sja::kernel_width(c.geti("d")) + 1, c.geti("n")).workspace_bytes();
    },
    .run = run,
    .parts = {PartSpec{"a",
              "For orthonormal features g_1..g_m and f = sum w_i g_i with w_i i.i.d. N(0,1), any block whose "
              "feed-forward kernel projects onto span{g} with dimension dt < m has loss >= m - dt.",
              Strength::theorem}},
    .table = family_bound::table("Corollary~9", "Orthonormal features: $\\tilde d < m$ forces $L \\ge m-\\tilde d$",
                                 "the stated lower bound $m-\\tilde d$", {{"basis", "Features"}},
                                 {{"basis", {{"lemma3", "$v_{ij}$ of Lemma~3"}, {"gram-schmidt", "Gram--Schmidt"}}}})}};

}  // namespace icl::sja_cor9
