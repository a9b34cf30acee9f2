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
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/param_names.hpp"
#include "icl/exact/lower_bounds.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/prompt.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/mutation.hpp"

namespace icl {
namespace {
namespace sja_cor9 {  // named, so that a unity build (several claim files in one unit) keeps them apart

// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kStated{"sja.cor9/stated", "sja.cor9", "m - dtilde"};

// Gram-Schmidt of the first m monomials under N(0, Sigma): g = L^{-1} mono, Gram = L L^T.
std::vector<Poly> gram_schmidt_monomials(int d, int m, const Eigen::MatrixXd& sigma) {
  const auto mons = monomials_up_to(d, 2);
  std::vector<Poly> mono;
  for (int a = 0; a < m; ++a) mono.push_back(Poly::monomial(mons[a], 1.0));
  const auto probe = GaussianIclModel::from_basis(d, mono, sigma, "monomials");
  const Eigen::MatrixXd G = feature_projection(probe, mono, mono);
  const Eigen::MatrixXd Linv = Eigen::MatrixXd(G.llt().matrixL()).inverse();
  std::vector<Poly> g;
  for (int a = 0; a < m; ++a) {
    Poly p(d);
    for (int b = 0; b <= a; ++b)
      if (Linv(a, b) != 0.0) p += mono[b] * Linv(a, b);
    g.push_back(p);
  }
  return g;
}

// A bilinear layer whose features are the first dt monomials (1, x_1..x_d, x_1^2, x_1 x_2, ...).
BilinearLayer monomial_prefix_layer(int d, int dt) {
  const auto mons = monomials_up_to(d, 2);
  std::vector<std::pair<int, int>> quad;  // embedding columns (1-based variables) of each quadratic kept
  for (int a = d + 1; a < dt; ++a) {
    int i = -1, j = -1;
    for (int v = 0; v < d; ++v)
      for (int e = 0; e < mons[a][v]; ++e) (i < 0 ? i : j) = v + 1;
    quad.emplace_back(i, j);
  }
  const int dbar = d + 1 + static_cast<int>(quad.size());
  BilinearLayer L;
  L.W0 = Eigen::MatrixXd::Zero(dbar, dbar);
  L.W1 = Eigen::MatrixXd::Zero(dbar, dbar);
  for (int r = 0; r <= d; ++r)
    if (r >= dt) {  // not among the first dt monomials: zero the row (base * (1 - 1))
      L.W0(r, r) = 1;
      L.W1(r, 0) = -1;
    }
  for (std::size_t q = 0; q < quad.size(); ++q) {
    L.W0(d + 1 + q, quad[q].first) = 1;
    L.W1(d + 1 + q, quad[q].second) = 1;
  }
  return L;
}

// A case's family: the orthonormal features g_1..g_m, and the bilinear layer whose kernel projects onto dt of them.
struct Construction {
  std::vector<Poly> g;
  BilinearLayer layer;
  std::string desc;
};

Construction case_construction(int d, int m, int dt, int basis, const Eigen::MatrixXd& sigma) {
  const int M = sja::kernel_width(d);
  Construction k;
  if (basis == 0) {
    const auto v = sja::orthonormal_v(d);
    k.g.assign(v.begin(), v.begin() + m);
    std::vector<int> keep;
    for (int a = 0; a < dt; ++a) keep.push_back(a);
    if (m < M) keep.push_back(m);  // a feature orthogonal to span{g}
    const auto b = sja::orthonormal_subset_layer(d, keep);
    k.layer = b.layer;
    k.desc = b.description + (m < M ? " (the last is orthogonal to span{g})" : "");
  } else {
    k.g = gram_schmidt_monomials(d, m, sigma);
    k.layer = monomial_prefix_layer(d, dt);
    k.desc = fmt::format("the first {} monomials", dt);
  }
  return k;
}

// One valid case: the family's exact infimum, and the explicit kernel's exact loss and Monte Carlo at n.
CaseJson judge_case(const ClaimContext& ctx, ClaimRun& r, const Case& c, double alpha_case, double& closest,
                    std::string& closest_case) {
  const int d = c.geti("d"), m = c.geti("m"), dt = c.geti("dt"), n = c.geti("n"), basis = c.geti("basis");
  const Eigen::MatrixXd sigma = basis == 0 ? Eigen::MatrixXd::Identity(d, d) : test_covariance(d, 2);
  const Construction k = case_construction(d, m, dt, basis, sigma);
  const auto model = GaussianIclModel::from_basis(d, k.g, sigma, fmt::format("orthonormal basis {}", basis));
  const Eigen::MatrixXd C = coefficient_covariance(model, k.g);  // the identity, computed
  const double stated = kStated(m - dt);
  const double inf = projection_infimum(C, dt);
  const BlockEvaluation e = evaluate_block(ctx, alpha_case, model, k.g, C, k.layer, d, n, stated, c.label());
  r.note_looks(e.looks_planned);

  // The family lower-bound kind (claim/kinds/family_bound.hpp): the explicit kernel is the member.
  family_bound::Case fk = family_case(e, stated, inf, "the explicit kernel", n);
  if (e.projected_dim != dt)
    fk.internal_error = fmt::format("INTERNAL: the construction's projected dimension is {}, not {}", e.projected_dim, dt);
  // The headline is the closest informative case: with dt = 0 the kernel reaches nothing and the loss is E[y^2] =
  // m at every n, so the bound is attained trivially there.
  if (dt > 0 && e.exact_loss / stated - 1 < closest) {
    closest = e.exact_loss / stated - 1;
    closest_case = fmt::format("{}: loss {:.5g} vs bound {}", c.label(), e.exact_loss, stated);
  }

  CaseJson j(c);
  block_quantities(j, fk, e);
  j.quantity("mc_plain", e.mc_plain);
  j.quantity("linearity_check_rms", e.linearity_rms);
  j.quantity("C_minus_identity_norm", (C - Eigen::MatrixXd::Identity(m, m)).norm());
  j.field("construction", k.desc);
  j.field("weights", sja::layer_json(k.layer));
  j.field("projected_dimension", e.projected_dim);
  block_verdict(j, fk, e);
  return j;
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimRun r(ctx);
  auto valid_case = [](const Case& c) { return c.geti("m") <= sja::kernel_width(c.geti("d")) && c.geti("dt") < c.geti("m"); };
  std::size_t valid = 0;
  for (const auto& c : ctx.cases) valid += valid_case(c);
  const double alpha_case = r.split_alpha(valid);
  double closest = INFINITY;
  std::string closest_case;
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const auto& c : ctx.cases) {
    if (!valid_case(c)) {
      skipped.push_back(c.label() + fmt::format(": needs m <= C(d+2,2) = {} and dt < m", sja::kernel_width(c.geti("d"))));
      r.step();
      continue;
    }
    CaseJson j = judge_case(ctx, r, c, alpha_case, closest, closest_case);
    r.add_case(j);
  }
  // Over the valid cases as counted (a grid with none says 0 cases), not the ledger's families (at least 1).
  r.error_rates(error_rates_json(ctx.alpha, valid, r.looks(), Tolerance{0.02, 0.0}));
  if (!skipped.empty()) r.extra("skipped") = skipped;
  return r.finish([&](Verdict v) {
    return fmt::format("{}: with orthonormal features and i.i.d. coefficients the infimum over the family equals "
                       "m - dt exactly (the bound is tight as n grows); closest finite-n case with dt >= 1 {}.",
                       to_string(v),
                       closest_case.empty() ? std::string("(none in this grid)")
                                            : fmt::format("{} ({:+.1f}%)", closest_case, 100 * closest));
  });
}

// The layout of the claim's LaTeX table (report/table.hpp).
ClaimTable table_layout() {
  return {TableKind::bound,
          "Corollary~9",
          "Orthonormal features: $\\tilde d < m$ forces $L \\ge m-\\tilde d$",
          {{"stated", "Bound", "the stated lower bound $m-\\tilde d$"},
           {"exact", "Exact inf.", "exact infimum over the family"},
           {"mc", "Construction (MC)", "a finite-$n$ construction by Monte Carlo"}},
          {{"basis", "Features"}},
          {{"basis", {{"lemma3", "$v_{ij}$ of Lemma~3"}, {"gram-schmidt", "Gram--Schmidt"}}}}};
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
    .table = table_layout()}};

}  // namespace sja_cor9
}  // namespace
}  // namespace icl
