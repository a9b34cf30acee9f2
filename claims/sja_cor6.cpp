// sja.cor6 — Sun, Jadbabaie, Azizan (000), Corollary 6 and Algorithm 1 (Section 3.3).
//
// Statement: for n in Omega(d^3), Algorithm 1 (line 1: attention frozen at P0 = e e^T, Q0 = diag(Gamma, 0)
// with Gamma any full-rank diagonal matrix; stage 1: the best bilinear weights with the attention frozen;
// stage 2: the best attention with the bilinear layer frozen) gives (a) a bilinear layer x -> M v with v the
// orthonormal quadratic features (8) and M invertible, (b) attention that approximately solves ordinary least
// squares on the layer's features, and (c) loss O(1/n). dbar = C(d+2, 2) (the width of Section 3.3).
//
// How each stage is solved (constructions/sja_algorithm1.hpp):
//   stage 1 is not a quadratic minimisation (the features are bilinear in W0, W1 and the loss is quartic in
//     the features), so it is solved by L-BFGS with multiple random starts on the EXACT population loss: the
//     layer's features are quadratics xt = C m(x) in the monomials m, and every moment the loss needs is a
//     congruence of the monomials' exact Gaussian moments. The best start is kept; `stage1_loss` is therefore
//     an upper bound on the true stage-1 minimum, which is all the decisions below use.
//   stage 2 over the sparse form P = e e^T, Q = diag(Gamma, 0) is quadratic in Gamma and solved exactly
//     (exact/optimal_attention.hpp optimal_sparse_gamma); the general single layer (full last row of P, full Q)
//     is searched by exact alternating least squares from several starts (`general_best`), so stage 2 is the
//     best attention over all single layers found.
//   mc_loss: the stage-2 block (the real bilinear layer, then the attention) through its forward pass on fresh
//     prompts, against the exact stage-2 loss (a consistency decision: it checks the moment algebra).
//
// Decisions.
//   (a) rank_bound. For any bilinear layer, with A = M^T Gamma M (v-coordinates), stage 1's loss is at least
//       its n -> infinity part (K4 - S is PSD), (E y^2 - tr S_v) + tr((I + A) S_v (I + A)) >=
//       lambda_min(S_v) * #{eigenvalues of A >= 0}, S_v = E_w[c c^T] for the target's coefficients c in v.
//       If M has rank r < C(d+2,2), A has at least C - r zero eigenvalues, so the loss is >= lambda_min(S_v).
//       Hence stage1_loss < lambda_min(S_v) proves every stage-1 minimiser has M invertible (exact, no
//       Monte Carlo). sigma_min_M = sqrt(lambda_min(E[xt xt^T])) is reported beside it (the singular values
//       of M in any orthonormal basis v). x -> M v itself is exact: xt is a quadratic, so in span v.
//   (b) the whitened distance delta(n) = ||Lam~^{1/2} Gamma* Lam~^{1/2} + I||_F (coordinate-free; Gamma* =
//       -Lam~^{-1}, the OLS preconditioner, gives 0). Asymptotic ("approximately", as n grows): judged by its
//       trend on the grid (decreasing) and its local rate between the two largest n (at least n^{-1/2}, the
//       rate Theorem 5 states for the App. C features).
//   (c) the exact stage-2 loss L(n): the least-squares slope of log L on log n over n >= d^3, with a 99%
//       t-interval, and the exact local slope between the two largest n: |slope + 1| <= 0.1 confirms "falls
//       like 1/n"; a local slope above -0.5 refutes; in between inconclusive.
// Cases: one per (d, gamma) for part a (at the largest n), b and c. Gamma: 0 = -I, 1 = -diag(0.5 .. 2) (negative
// definite, anisotropic), and, because Algorithm 1 says "any full-rank diagonal Gamma" and a statement quantified
// over a family is judged over it, 2 = -diag(0.5 .. 2) with its last entry +1 and 3 = +I (positive_gamma_cases
// below: parts a and c; reports before 28 November 2026 named kind 2 "-I with the last entry +1", which is not the
// matrix they used). Those refute the corollary as stated (missing assumption: Gamma < 0); the cases with Gamma < 0 verify the
// corrected statement.
#include "constructions/sja_algorithm1.hpp"
#include "constructions/sja_appC.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/learn/optimizers.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/search/search.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/statistics.hpp"
#include "icl/verdict/trend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace icl::sja_cor6 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

// Part c's rule on the exact local slope of log L (verdict/trend.hpp): "falls like 1/n" confirmed within -1 +/- 0.1,
// refuted above -0.5.
const ExactSlopeRule kLikeOneOverN{.stated = -1, .within = 0.1, .refute_above = -0.5};

// Gamma with p >= 1 positive entries (Algorithm 1, line 1: "any full-rank diagonal Gamma"): cases of parts a and c.
//   Gamma > 0 (kind 3), exact: the stage-1 loss is E y^2 + 2 tr(Gamma C S C^T) + tr(Gamma A Gamma B) (A, B, S PSD,
//     S > 0: constructions/sja_algorithm1.hpp), so it is >= E[y^2], with equality only at C = 0, i.e. features
//     identically zero (reachable: zero_feature_theta). The stage-1 minimiser is M = 0 (part a fails) and every
//     attention then predicts 0: loss E[y^2] at every n (part c fails). The search (multi-start L-BFGS) must agree:
//     its best loss is not below E[y^2] (otherwise the case reports an internal inconsistency).
//   p = 1 (kind 2): every stage-1 layer has loss >= p lambda_min(S_v) at every n (inertia of M^T Gamma M), and as
//     n -> infinity the minimisers need lambda_max(M^T Gamma M) = 0, i.e. M singular. At finite n this rests on
//     the search: part a is refuted when the best stage-1 layer found is numerically singular (sigma_min(M) <=
//     1e-5 sigma_max(M)) at every n >= d^3, part c when the exact stage-2 loss after it does not fall like 1/n
//     (local slope above -0.5).
std::string positive_gamma_cases(const ClaimContext& ctx, ClaimRun& r, const sja::Stage1Problem& pr, int d, int kind,
                                 const std::vector<int>& ns, double lam_min, int starts) {
  const int dbar = pr.dbar(), d3 = d * d * d, p = sja::algorithm1_gamma_positive_entries(kind, dbar);
  const Eigen::VectorXd zt = sja::zero_feature_theta(pr);
  const double zero_coeff = pr.coefficients(zt).norm();
  nlohmann::ordered_json params{{"d", d}, {"gamma", kind}, {"n_min", ns.front()}, {"n_max", ns.back()}};
  nlohmann::ordered_json per_n = nlohmann::ordered_json::array();
  bool all_singular = true, search_consistent = true;
  double Ey2 = 0, worst_ratio = 0;
  std::vector<double> ln, lloss;
  nlohmann::ordered_json last_search;
  for (int n : ns) {
    const sja::Stage1Search s1 = sja::algorithm1_stage1(pr, n, starts, ctx.seed, ctx.purpose(fmt::format("d={}, gamma={}, n={}/stage1", d, kind, n)));
    last_search = s1.search.to_json(12);
    Ey2 = pr.loss(zt, n);
    const FeatureMoments f = pr.features(pr.coefficients(s1.theta));
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(f.Lambda);
    const double smin = std::sqrt(std::max(0.0, es.eigenvalues().minCoeff()));
    const double smax = std::sqrt(std::max(0.0, es.eigenvalues().maxCoeff()));
    double loss2 = Ey2;  // Gamma > 0: zero features, every attention predicts 0
    if (kind == 2) loss2 = sparse_lsa_loss(f, optimal_sparse_gamma(f, n), n);
    if (kind == 3 && s1.loss < Ey2 * (1 - 1e-9)) search_consistent = false;
    const double ratio = smax > 0 ? smin / smax : 0.0;
    if (n >= d3) {
      worst_ratio = std::max(worst_ratio, ratio);
      if (!(ratio <= 1e-5)) all_singular = false;
      ln.push_back(std::log(n));
      lloss.push_back(std::log(loss2));
    }
    per_n.push_back({{"n", n}, {"stage1_loss", s1.loss}, {"stage1_lower_bound", kind == 3 ? Ey2 : p * lam_min},
                     {"sigma_min_M", smin}, {"sigma_max_M", smax}, {"stage2_loss", loss2}, {"n_times_loss", n * loss2},
                     {"starts_converged", s1.converged}});
  }
  const std::size_t k = ln.size();
  const double loc = k >= 2 ? (lloss[k - 1] - lloss[k - 2]) / (ln[k - 1] - ln[k - 2]) : NAN;
  std::string out;
  {  // part a
    Decision dec;
    std::vector<std::string> basis;
    if (kind == 3) {
      dec = Decision{search_consistent && zero_coeff < 1e-12 ? Verdict::refuted : Verdict::inconclusive, 0, 0,
                     fmt::format("Gamma = +I > 0: the stage-1 loss is >= E[y^2] = {:.6g} with equality only at identically "
                                 "zero features (reached exactly: coefficients {:.1e}), so the stage-1 minimiser is M = 0 "
                                 "at every n; the multi-start search finds nothing below it (best {:.6g}, sigma_max(M) {:.2g} at n = {}){}",
                                 Ey2, zero_coeff, per_n.back()["stage1_loss"].get<double>(),
                                 per_n.back()["sigma_max_M"].get<double>(), ns.back(),
                                 search_consistent ? "" : "; INTERNAL INCONSISTENCY: the search went below E[y^2]")};
      basis.push_back("positive_definite");
    } else {
      dec = Decision{all_singular && k > 0 ? Verdict::refuted : Verdict::inconclusive, 1e-5, 0,
                     fmt::format("Gamma with {} positive entry: every stage-1 layer has loss >= {} lambda_min(S_v) = {:.4g} "
                                 "at every n (inertia); the best stage-1 layers found ({} L-BFGS starts per n) have "
                                 "sigma_min(M)/sigma_max(M) <= {:.2g} at every n >= d^3 = {}: {} (a search's minimisers)",
                                 p, p, p * lam_min, starts, worst_ratio, d3,
                                 all_singular ? "M is singular to rounding" : "not singular to 1e-5: undecided")};
      basis.push_back("singular_M");
    }
    CaseJson j(params);
    j.field("gamma", sja::algorithm1_gamma_name(kind));
    j.part("a");
    j.quantity("stage1_loss", per_n.back()["stage1_loss"].get<double>());
    j.quantity("stage1_lower_bound", per_n.back()["stage1_lower_bound"].get<double>());
    j.quantity("positive_entries", p);
    j.quantity("sigma_min_M", per_n.back()["sigma_min_M"].get<double>());
    j.quantity("sigma_max_M", per_n.back()["sigma_max_M"].get<double>());
    j.field("per_n", per_n);
    j.field("stage1_search", last_search);
    j.decision(basis.front(), dec);
    j.verdict(dec.verdict, dec.why, dec.verdict == Verdict::refuted ? basis : std::vector<std::string>{});
    r.add_uncounted_case(j);  // progress counts groups (ClaimRun::step() after each)
    out += fmt::format("{}d={}, Gamma={}: part a {} ({})", out.empty() ? "" : "; ", d, sja::algorithm1_gamma_name(kind),
                       to_string(dec.verdict), kind == 3 ? "stage-1 minimiser M = 0, exact" : "M singular, search");
  }
  if (k >= 2) {  // part c
    Decision rate = kind == 3 ? Decision{Verdict::refuted, 0.1, 0, fmt::format("the stage-2 loss is E[y^2] = {:.6g} at "
                                                                             "every n (zero features): not O(1/n)", Ey2)}
                              : judge_exact_slope(loc, kLikeOneOverN, fmt::format("exact stage-2 loss after the best "
                                "stage-1 layer found: local slope of log L between n = {} and {}", ns[ns.size() - 2], ns.back()));
    if (kind != 3) rate.why += fmt::format("; it stays above lambda_min(S_v) = {:.4g}", lam_min);
    CaseJson j(params);
    j.field("gamma", sja::algorithm1_gamma_name(kind));
    j.part("c");
    j.quantity("stated", -1.0);
    j.quantity("exact", kind == 3 ? 0.0 : loc);
    j.quantity("n_times_loss_at_n_max", per_n.back()["n_times_loss"].get<double>());
    j.field("curve", per_n);
    j.decision("rate", rate);
    j.verdict(rate, {"rate"});
    r.add_uncounted_case(j);  // progress counts groups (ClaimRun::step() after each)
    out += fmt::format(", part c {}", to_string(rate.verdict));
  }
  return out;
}

// The cases grouped by (d, gamma); each group's n grid (sorted, each n once) is one run of Algorithm 1 per n.
std::map<std::pair<int, int>, std::vector<int>> group_cases(const ClaimContext& ctx) {
  std::map<std::pair<int, int>, std::vector<int>> groups;
  for (const auto& c : ctx.cases) groups[{c.geti("d"), c.geti("gamma")}].push_back(c.geti("n"));
  for (auto& [key, ns] : groups) {
    std::sort(ns.begin(), ns.end());
    ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  }
  return groups;
}

// What the run gathers over the groups.
struct RunState {
  int starts = 1;
  double alpha_mc = 0;  // one forward-pass check per group: Bonferroni over the groups
  Tolerance mc_tol{0.05, 0.0};
  // extra["findings"], written before error_rates as the report has always had it (not r.finding(), which writes last).
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  double vr_min = 1e300, vr_max = 0;
  std::string summary_rate, asymptote, positive_summary;
};

// One group with Gamma < 0: its grid of n and the per-n runs of Algorithm 1.
struct Group {
  int d = 0, kind = 0, dbar = 0, d3 = 0;
  const std::vector<int>& ns;
  const sja::Stage1Problem& pr;
  const GaussianIclModel& gm;
  double lam_min = 0;
  std::vector<sja::Algorithm1Run> runs;
  nlohmann::ordered_json params;
};

// Part a at the largest n (the corollary's "sufficiently large n"): the rank bound.
void rank_case(ClaimRun& r, const Group& g) {
  bool moments_ok = true;
  for (const auto& q : g.runs) moments_ok = moments_ok && q.moment_check <= 1e-9;
  const sja::Algorithm1Run& p = g.runs.back();
  const bool invertible = p.s1.loss < g.lam_min && p.n >= g.d3;
  Decision rank{invertible ? Verdict::confirmed : Verdict::inconclusive, 0, 0,
                fmt::format("at n = {}: stage-1 loss {:.6g} {} lambda_min(S_v) = {:.6g}: {}", p.n, p.s1.loss,
                            p.s1.loss < g.lam_min ? "<" : ">=", g.lam_min,
                            invertible ? "every stage-1 minimiser has M invertible (a rank-deficient M costs at least "
                                         "lambda_min(S_v))"
                                       : "the rank bound cannot decide")};
  const Decision v = unless_inconsistent(rank, !moments_ok, "the real layer's feature moments differ from the congruence");
  nlohmann::ordered_json per_n = nlohmann::ordered_json::array();
  int decided_from = 0;
  for (const auto& q : g.runs) {
    per_n.push_back({{"n", q.n}, {"stage1_loss", q.s1.loss}, {"sigma_min_M", q.sigma_min}, {"sigma_max_M", q.sigma_max},
                     {"rank_bound_decides", q.s1.loss < g.lam_min}, {"starts_converged", q.s1.converged},
                     {"second_best_start", q.s1.second}, {"moment_check", q.moment_check}});
    if (q.s1.loss >= g.lam_min) decided_from = 0;
    else if (!decided_from) decided_from = q.n;
  }
  CaseJson j(g.params);
  j.field("gamma", sja::algorithm1_gamma_name(g.kind));
  j.part("a");
  j.quantity("stage1_loss", p.s1.loss);
  j.quantity("stage1_second_best_start", p.s1.second);
  j.quantity("lambda_min_target", g.lam_min);
  j.quantity("sigma_min_M", p.sigma_min);
  j.quantity("sigma_max_M", p.sigma_max);
  j.quantity("M_gram", g.pr.features(g.pr.coefficients(p.s1.theta)).Lambda);
  j.field("per_n", per_n);
  j.field("stage1_search", p.s1.search.to_json(12));
  j.verdict(v.verdict, v.why + fmt::format("; sigma_min(M) = {:.4g}, sigma_max(M) = {:.4g} (M^T M = I would be 1, 1); "
                                           "the bound decides from n = {} on the grid",
                                           p.sigma_min, p.sigma_max, decided_from),
            {"rank_bound"});
  j.decision("rank_bound", rank);
  r.add_uncounted_case(j);  // progress counts groups (ClaimRun::step() after each)
}

// The n grid of a group: the report's curve, and log n, log L, log delta over n >= d^3.
struct Curve {
  std::vector<double> ln, lloss, ldelta;
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  bool decreasing = true;
  double loc_loss = 0, loc_delta = 0;  // local slopes between the two largest n >= d^3
  SlopeInterval fl, fd;                      // fitted slopes of log L and log delta
};

Curve loss_curve(const Group& g) {
  Curve cv;
  for (std::size_t i = 0; i < g.runs.size(); ++i) {
    const sja::Algorithm1Run& p = g.runs[i];
    cv.json.push_back({{"n", p.n}, {"stage1_loss", p.s1.loss}, {"loss", p.loss2}, {"n_times_loss", p.n * p.loss2},
                       {"delta_ols", p.delta}, {"sigma_min_M", p.sigma_min}});
    if (p.n < g.d3) continue;
    if (!cv.ln.empty() && p.delta >= std::exp(cv.ldelta.back())) cv.decreasing = false;
    cv.ln.push_back(std::log(p.n));
    cv.lloss.push_back(std::log(p.loss2));
    cv.ldelta.push_back(std::log(p.delta));
  }
  return cv;
}

// Part b: the whitened distance to OLS falls (trend) at a rate of at least n^{-1/2} (local slope).
void ols_case(ClaimRun& r, const Group& g, const Curve& cv) {
  const auto& ns = g.ns;
  Decision trend{cv.decreasing ? Verdict::confirmed : Verdict::refuted, 0, 0,
                 fmt::format("delta(n) {} over n >= d^3", cv.decreasing ? "strictly decreases" : "does not decrease")};
  const Decision rate = judge_exact_slope(cv.loc_delta, {.stated = -0.5, .within = 0, .refute_above = -0.1},
                                          fmt::format("local slope of log delta between n = {} and {}", ns[ns.size() - 2], ns.back()));
  const Verdict v = both(trend.verdict, rate.verdict);
  CaseJson j(g.params);
  j.field("gamma", sja::algorithm1_gamma_name(g.kind));
  j.part("b");
  j.quantity("stated", 0.0);
  j.quantity("exact", std::exp(cv.ldelta.back()));
  j.quantity("local_slope", cv.loc_delta);
  j.quantity("fit_slope", cv.fd.slope);
  j.quantity("fit_slope_ci_low", cv.fd.lo);
  j.quantity("fit_slope_ci_high", cv.fd.hi);
  j.field("curve", cv.json);
  j.decision("trend", trend);
  j.decision("rate", rate);
  j.verdict(v, fmt::format("whitened distance to OLS ||Lam^1/2 Gamma* Lam^1/2 + I||_F: {:.4g} at n = {}; {}; {}",
                           std::exp(cv.ldelta.back()), ns.back(), trend.why, rate.why),
            j.decisions_with(v, {"trend", "rate"}));
  r.add_uncounted_case(j);  // progress counts groups (ClaimRun::step() after each)
}

// The forward-pass check of the exact stage-2 loss at the smallest n >= d^3.
EqualityOutcome forward_pass_check(const ClaimContext& ctx, const Group& g, const sja::Algorithm1Run& p, const RunState& st) {
  const PromptShape shape = sja_shape(g.d, g.dbar, p.n);
  SamplingPlan plan = ctx;
  plan.samples = std::max<std::uint64_t>(4096, static_cast<std::uint64_t>(ctx.samples * std::min(1.0, 100.0 / p.n)));
  const std::uint64_t purpose = ctx.purpose(fmt::format("d={}, gamma={}, n={}/mc", g.d, g.kind, p.n));
  // The query integrated out exactly given the context (QueryConditionalWorker: the block is a column-wise
  // bilinear layer, then masked attention, so yhat = b^T u(x_q)); Psi holds the query's exact feature moments,
  // not the loss, so the check stays independent of the exact loss it is judged against.
  Transformer features, attention;
  features.layers.emplace_back(p.layer);
  attention.layers.emplace_back(sja::sparse_attention(p.Gstar));
  const Eigen::MatrixXd Psi = query_moment_matrix(g.gm, bilinear_features(p.layer, g.d, g.dbar));
  auto make_worker = [&] { return QueryConditionalWorker(features, attention, g.gm, Psi, shape, ctx.seed, purpose); };
  return sequential_equality(plan, st.alpha_mc, p.loss2, p.loss2, st.mc_tol, Tolerance{1e-9, 1e-12},
                             QueryConditionalWorker::dims, 1, 4096, make_worker, 4096,
                             /*until_exact_decided=*/true);
}

// Part c: the exact stage-2 loss falls like 1/n (local slope), with the forward-pass check of the exact loss.
void rate_case(const ClaimContext& ctx, ClaimRun& r, const Group& g, const Curve& cv, RunState& st) {
  const auto& ns = g.ns;
  const sja::Algorithm1Run* rm = nullptr;
  for (const auto& p : g.runs)
    if (p.n >= g.d3) {
      rm = &p;
      break;
    }
  const auto o = forward_pass_check(ctx, g, *rm, st);
  const double vr = o.total.variance(1) > 0 ? o.total.variance(0) / o.total.variance(1) : 0.0;
  st.vr_min = std::min(st.vr_min, vr);
  st.vr_max = std::max(st.vr_max, vr);
  r.note_looks(o.looks_planned);
  const double loc_loss = cv.loc_loss;
  Decision rate = judge_exact_slope(loc_loss, kLikeOneOverN,
                                    fmt::format("local slope of log L between n = {} and {}", ns[ns.size() - 2], ns.back()));
  rate.why += fmt::format("; fitted slope over n >= d^3: {:.4f}, 99% interval [{:.4f}, {:.4f}]", cv.fl.slope, cv.fl.lo, cv.fl.hi);
  const Decision v = unless_inconsistent(rate, o.mc_vs_exact && o.mc_vs_exact->verdict == Verdict::refuted,
                                         fmt::format("at n = {} the forward pass's loss excludes the exact loss", rm->n));
  const double Dd = g.d, corrected = Dd * (Dd * Dd * Dd + 18 * Dd * Dd + 95 * Dd + 142) / 4.0;
  const double n_times_loss = ns.back() * std::exp(cv.lloss.back());
  CaseJson j(g.params);
  j.field("gamma", sja::algorithm1_gamma_name(g.kind));
  j.part("c");
  j.quantity("stated", -1.0);
  j.quantity("exact", loc_loss);
  j.quantity("fit_slope", cv.fl.slope);
  j.quantity("fit_slope_ci_low", cv.fl.lo);
  j.quantity("fit_slope_ci_high", cv.fl.hi);
  j.quantity("n_times_loss_at_n_max", n_times_loss);
  j.quantity("appC_n_times_loss", corrected);
  j.quantity("mc_n", static_cast<double>(rm->n));
  j.quantity("exact_at_mc_n", rm->loss2);
  j.quantity("mc_loss", o.mc);
  j.quantity("variance_reduction", vr);
  j.quantity("linearity_rms", std::sqrt(o.total.mean[2]));
  j.field("curve", cv.json);
  j.decision("rate", rate);
  if (o.mc_vs_exact) j.decision("mc_vs_exact", *o.mc_vs_exact);
  j.decision("looks", fmt::format("{} of {}", o.looks_used, o.looks_planned));
  j.verdict(v, {"rate"});
  r.add_uncounted_case(j);  // progress counts groups (ClaimRun::step() after each)
  st.summary_rate += fmt::format("{}d={}, Gamma={}: local slope {:.3f}, n L(n) = {:.4g} at n = {} (App. C block: {:.4g})",
                                 st.summary_rate.empty() ? "" : "; ", g.d, sja::algorithm1_gamma_name(g.kind), loc_loss, n_times_loss,
                                 ns.back(), corrected);
  st.asymptote += fmt::format("{}d={}, Gamma={}: {:.4g} vs {:.4g}", st.asymptote.empty() ? "" : "; ", g.d,
                              sja::algorithm1_gamma_name(g.kind), n_times_loss, corrected);
}

// A group with Gamma < 0: Algorithm 1 at every n of the grid, then its cases of parts a, b and c. Returns false when
// the grid has fewer than two n >= d^3 (parts b and c not judged; a finding says so).
bool negative_gamma_cases(const ClaimContext& ctx, ClaimRun& r, Group& g, RunState& st) {
  for (int n : g.ns)
    g.runs.push_back(sja::algorithm1_run(g.pr, g.gm, n, st.starts, ctx.seed,
                                ctx.purpose(fmt::format("d={}, gamma={}, n={}/stage1", g.d, g.kind, n)), n >= g.d3));
  g.params = {{"d", g.d}, {"gamma", g.kind}, {"n_min", g.ns.front()}, {"n_max", g.ns.back()}};
  rank_case(r, g);
  Curve cv = loss_curve(g);
  if (cv.ln.size() < 2) {
    st.findings.push_back(fmt::format("d = {}, Gamma = {}: fewer than two n >= d^3 = {} on the grid; parts b and c not "
                                      "judged there.", g.d, sja::algorithm1_gamma_name(g.kind), g.d3));
    return false;
  }
  const std::size_t k = cv.ln.size();
  cv.loc_loss = (cv.lloss[k - 1] - cv.lloss[k - 2]) / (cv.ln[k - 1] - cv.ln[k - 2]);
  cv.loc_delta = (cv.ldelta[k - 1] - cv.ldelta[k - 2]) / (cv.ln[k - 1] - cv.ln[k - 2]);
  cv.fl = slope_interval(cv.ln, cv.lloss, 0.01);
  cv.fd = slope_interval(cv.ln, cv.ldelta, 0.01);
  ols_case(r, g, cv);
  rate_case(ctx, r, g, cv, st);
  return true;
}

// The summary: cases confirmed per part, the rates, and the groups with positive entries in Gamma.
std::string summary_text(Verdict v, const ClaimRun& r, const RunState& st) {
  std::map<std::string, std::pair<int, int>> tally;  // part -> (confirmed, cases)
  for (const auto& c : r.cases()) {
    auto& t = tally[c["part"].get<std::string>()];
    t.first += c["verdict"] == "confirmed";
    ++t.second;
  }
  auto part_text = [&](const char* id) { return fmt::format("{} of {}", tally[id].first, tally[id].second); };
  return fmt::format("{}: cases confirmed: M invertible (a) {}, attention -> OLS (b) {}, loss like 1/n (c) {}; {}.{}",
                     to_string(v), part_text("a"), part_text("b"), part_text("c"), st.summary_rate,
                     st.positive_summary.empty() ? "" : " Gamma with positive entries (Algorithm 1's 'any full-rank "
                                                        "diagonal Gamma'): " + st.positive_summary);
}

ClaimResult run(const ClaimContext& ctx) {
  const auto groups = group_cases(ctx);
  ClaimRun r(ctx, groups.size());  // progress counts groups (one run of Algorithm 1 over its n grid each)
  RunState st;
  st.starts = std::max(1, static_cast<int>(std::lround((ctx.quick ? 3 : 6) * ctx.setting("search"))));
  st.alpha_mc = r.split_alpha(groups.size());  // one forward-pass check per group
  r.note_looks(1);  // the error_rates block counts at least one look
  for (const auto& [key, ns] : groups) {
    const auto [d, kind] = key;
    const int dbar = sja::kernel_width(d), d3 = d * d * d;
    const sja::Stage1Problem pr(d, dbar, sja::algorithm1_gamma(dbar, kind));
    const auto gm = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
    const Eigen::VectorXd spec = pr.target_spectrum();
    const double lam_min = spec.minCoeff();
    if (kind >= 2) {
      st.positive_summary += (st.positive_summary.empty() ? "" : "; ") +
                             positive_gamma_cases(ctx, r, pr, d, kind, ns, lam_min, st.starts);
      r.step();
      continue;
    }
    Group g{d, kind, dbar, d3, ns, pr, gm, lam_min, {}, {}};
    if (negative_gamma_cases(ctx, r, g, st)) r.step();  // (a group without parts b, c has never counted progress)
  }

  st.findings.push_back("Stage 1 is solved by multi-start L-BFGS on the exact population loss (not a quadratic problem); "
                        "stage 2 exactly in the sparse form and by alternating exact least squares over full single "
                        "layers. The rank decision uses only the best stage-1 loss found, an upper bound on the true "
                        "minimum, so it holds for the true stage-1 minimisers.");
  st.findings.push_back("n L(n) of Algorithm 1 at the largest n against the App. C construction's exact n L (sja.thm2, "
                        "d(d^3 + 18d^2 + 95d + 142)/4; Theorem 2 states ((d+2)(d+1)+d)/2): " + st.asymptote + ".");
  r.extra("findings") = st.findings;
  r.error_rates(st.mc_tol);
  if (st.vr_max > 0)
    r.extra("variance_reduction") = {
        {"method", "query integrated exactly given the context (conditional Monte Carlo), part c's forward-pass check"},
        {"factor_min", st.vr_min},
        {"factor_max", st.vr_max}};
  bool negative_all_confirmed = true;  // every case with Gamma < 0 confirmed: the corrected statement verified
  for (const auto& c : r.cases())
    if (c["params"].contains("gamma") && c["params"]["gamma"].get<int>() <= 1 && c["verdict"] != "confirmed")
      negative_all_confirmed = false;
  const std::string corrected =
      negative_all_confirmed
          ? "Algorithm 1 with a negative-definite diagonal Gamma (Gamma < 0) gives M invertible, attention -> OLS and "
            "loss O(1/n): every case with Gamma = -I and -diag(0.5..2) in this run is confirmed"
          : "";
  for (const char* part : {"a", "c"})
    r.part(part).on_refuted(Refutation{
        RefutationClass::missing_assumption,
        "Algorithm 1 says 'any full-rank diagonal Gamma', but the corollary needs Gamma negative definite: with Gamma "
        "> 0 the unique stage-1 minimiser computes identically zero features (M = 0; every term of the stage-1 loss "
        "beyond E[y^2] is then nonnegative and vanishes only there), so no attention can learn and the loss stays "
        "E[y^2] at every n; with p positive entries every stage-1 layer has loss >= p lambda_min(S_v) (Sylvester's "
        "inertia), and the minimisers found are singular",
        {},
        corrected});
  return r.finish([&](Verdict v) { return summary_text(v, r, st); });
}

// The layout of the claim's LaTeX table (claim/table.hpp).
ClaimTable table_layout() {
  return with_part_text({TableKind::slope,
          "Corollary~6",
          "Algorithm~1 trains the App.~C block; its loss decays as $1/n$",
          {{"stage1_loss", "Stage 1", "loss after stage~1 of Algorithm~1 (part a)"},
           {"stated", "Paper", "stated value (b: the loss's limit; c: the log--log slope)"},
           {"exact", "Exact", "exact value (b: loss at $n_{\\max}$; c: local slope there)"},
           {"fit_slope", "Fitted slope", "least-squares log--log slope over $[n_{\\min}, n_{\\max}]$"},
           {"n_times_loss_at_n_max", "$n\\,\\mathcal{L}$", "$n$ times the exact loss at $n_{\\max}$"},
           {"appC_n_times_loss", "App.~C", "the same for the App.~C block's constants"}},
          {{"gamma", "Frozen $\\Gamma$"}},
          {{"gamma",
            {{"0", "$-I$"}, {"1", "$-\\mathrm{diag}(0.5..2)$"}, {"2", "$-I$, one entry $+1$"}, {"3", "$+I$"}}}}},
      {
       {"a", "stage~1 gives a bilinear layer $x\\mapsto Mv$, $v$ the features (8), with $M$ invertible ($n\\in\\Omega(d^3)$)"},
       {"b", "stage~2's attention approximately solves ordinary least squares on the layer's features (as $n$ grows)"},
       {"c", "the learned block's in-context loss is at most $O(1/n)$"}});
}

const RegisterClaim reg{Claim{
    .id = "sja.cor6",
    .title = "Algorithm 1 gives x -> M v and loss O(1/n)",
    .source = "Sun, Jadbabaie and Azizan (2025), Corollary 6 and Algorithm 1 (Section 3.3)",
    .statement = "For n in Omega(d^3), Algorithm 1 (stage 1: best bilinear weights with attention frozen at a full-rank diagonal "
    "Gamma; stage 2: best attention with the bilinear layer frozen) gives a bilinear layer x -> M v (M invertible), "
    "attention approximately OLS on those features, and loss O(1/n).",
    .params = {ParamSpec{"d", {2, 3}, {2}, 1, 4, true, "input dimension (dbar = C(d+2,2))"},
     ParamSpec{"gamma", {0, 1, 2, 3}, {0, 3}, 0, 3, true,
               "frozen Gamma of line 1: 0 = -I, 1 = -diag(0.5..2), 2 = -diag(0.5..2) with the last entry +1, 3 = +I"},
     ParamSpec{"n", {30, 100, 1000, 10000, 100000}, {10, 1000, 10000, 100000}, 1, 1e7, true,
               "context length (the grid's n >= d^3 judge parts b, c; the largest judges part a)"},
     ParamSpec{"search", {1}, {1}, 0.25, 64, false, "worst-case search budget multiplier (docs/search.md)", true}},
    .default_samples = 60000,
    .quick_samples = 8000,
    .memory_bytes = [](const Case& c, int threads) {
      const int dbar = sja::kernel_width(c.geti("d"));
      return threads * sja_shape(c.geti("d"), dbar, c.geti("n")).workspace_bytes() + 8.0 * std::pow(dbar + 1.0, 4) * 4;
    },
    .run = run,
    .parts = {PartSpec{"a", "Stage 1 gives a bilinear layer x -> M v, v the features (8), with M invertible (n in Omega(d^3)).",
              Strength::theorem},
     PartSpec{"b", "Stage 2's attention approximately solves ordinary least squares on the layer's features (as n grows).",
              Strength::asymptotic},
     PartSpec{"c", "The learned block's in-context loss is at most O(1/n).", Strength::asymptotic}},
    .table = table_layout()}};

}  // namespace icl::sja_cor6
