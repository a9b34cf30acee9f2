// The log-log slope kind (loglog_slope.hpp): the slope of the loss on log-log axes, exact and by Monte Carlo, and a
// protocol's r^2 against a stated value.
#include "icl/claim/kinds/loglog_slope.hpp"

#include "icl/claim/case_json.hpp"
#include "icl/claim/param_names.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/verdict/checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace icl::loglog_slope {

namespace {

// The case's params: {"test": test}, then the setting's, then `more`.
nlohmann::ordered_json case_params(int test, const Spec& s, const nlohmann::ordered_json& more) {
  nlohmann::ordered_json p{{"test", test}};
  for (const auto& [k, v] : s.setting.items()) p[k] = v;
  for (const auto& [k, v] : more.items()) p[k] = v;
  return p;
}

}  // namespace

Outcome slope_case(ClaimRun& r, const Spec& s, const std::vector<int>& ns, const std::vector<double>& logn,
                   double alpha) {
  const ClaimContext& ctx = r.ctx();
  Outcome o;
  o.alpha = alpha;
  std::vector<double> exact_log, mc_log, mc_var;
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (int n : ns) {
    const double exact = s.exact(n);
    const Accumulator all = s.mc(n, ctx.purpose(fmt::format("slope/n={}", n)));
    const Estimate e = make_estimate(all, 1, 1 - alpha);
    if (all.variance(1) > 0) {
      o.vr_min = std::min(o.vr_min, all.variance(0) / all.variance(1));
      o.vr_max = std::max(o.vr_max, all.variance(0) / all.variance(1));
    }
    exact_log.push_back(std::log(exact));
    mc_log.push_back(std::log(e.mean));
    mc_var.push_back(std::pow(e.stderr_ / e.mean, 2));
    curve.push_back({{"n", n}, {"exact", exact}, {"mc", quantity_mc(e)}});
  }
  o.exact = fit_line(logn, exact_log);
  o.mc = fit_line(logn, mc_log, mc_var);  // weighted: delta-method variances of the log means
  const Estimate slope = slope_estimate(o.mc, ctx.samples * ns.size(), alpha);
  const Decision ex = judge_exact_equal(o.exact.slope, s.slope, s.exact_tol);
  const Decision mv = judge_mc_near(slope, s.slope, s.slope_tol, alpha);  // an exponent: the band is the statement's
  const Decision mx = judge_mc_equal(slope, o.exact.slope, s.slope_tol, alpha);
  const Decision v = combine_exact_first(ex, mv, mx);  // the exact fit decides, Monte Carlo checks it (rule 4)
  CaseJson j(case_params(1, s, {{"n_min", ns.front()}, {"n_max", ns.back()}}));
  j.quantity("stated", s.slope).quantity("exact", o.exact.slope).quantity("mc", slope).quantity("exact_r2", o.exact.r2);
  j.quantity("mc_r2", fit_line(logn, mc_log).r2).field("curve", curve).part("a");
  j.verdict(v.verdict, v.why + (s.exact_line ? s.exact_line(o.exact) : ""), v.basis);
  j.decision("exact_vs_stated", ex).decision("mc_vs_stated", mv).decision("mc_vs_exact", mx);
  r.add_case(j);
  return o;
}

DrawSummary r2_case(ClaimRun& r, const Spec& s, const std::vector<int>& ns, const std::vector<double>& draws,
                    double alpha) {
  const DrawSummary q = summarize_draws(draws, 1 - alpha);
  const McPValue p = two_sided_mc_p_value(draws, s.r2, alpha);  // p-value of the stated r^2, Clopper-Pearson bounds
  const Verdict v = p.p_high < alpha ? Verdict::refuted : (p.p_low > alpha ? Verdict::confirmed : Verdict::inconclusive);
  const std::size_t reps = draws.size();
  CaseJson j(case_params(2, s, {{"prompts_per_n", s.per_n}, {"replications", s.replications}}));
  j.quantity("stated", s.r2).quantity("mc", q.mean).quantity("r2_q05", q.q05).quantity("r2_median", q.median);
  j.quantity("r2_q95", q.q95).quantity("p_value_low", p.p_low).quantity("p_value_high", p.p_high).part("b");
  j.decision("r2_p_value", Decision{v, 0, 0, fmt::format("two-sided Monte Carlo p-value of r^2 = {:g} in [{:.3g}, "
                                                         "{:.3g}] (Clopper-Pearson) against alpha {:.3g}",
                                                         s.r2, p.p_low, p.p_high, alpha)});
  j.verdict(v, fmt::format(
      "over {} replications of the protocol on n = {}..{} ({} values), r^2 has median {:.4f} and 90% range "
      "[{:.4f}, {:.4f}]; {} of {} replications give r^2 <= {:g}; two-sided p-value in [{:.3g}, {:.3g}] against "
      "alpha {:.3g}: {:g} is {}",
      reps, ns.front(), ns.back(), ns.size(), q.median, q.q05, q.q95, p.at_or_below, reps, s.r2, p.p_low, p.p_high,
      alpha, s.r2,
      v == Verdict::confirmed ? "a plausible outcome" : v == Verdict::refuted ? "implausible" : "borderline"),
            {"r2_p_value"});
  r.add_case(j);
  return q;
}

ClaimResult run_claim(const ClaimContext& ctx, const Spec& s) {
  ClaimRun r(ctx, 2);  // progress: the two tests
  const double alpha = r.split_alpha(2);  // two cases
  r.note_looks(1);
  std::set<int> distinct;
  for (const auto& c : ctx.cases) distinct.insert(c.geti("n"));
  const std::vector<int> ns(distinct.begin(), distinct.end());  // the distinct n of the cases, sorted
  if (ns.size() < 3) throw std::invalid_argument(ctx.claim_id + " needs at least 3 distinct n");
  std::vector<double> logn;
  for (int n : ns) logn.push_back(std::log(n));
  Outcome o = slope_case(r, s, ns, logn, alpha);
  std::vector<std::uint64_t> purposes;
  for (int n : ns) purposes.push_back(ctx.purpose(fmt::format("protocol/n={}", n)));
  o.r2 = r2_case(r, s, ns, s.protocol(ns, purposes, logn), alpha);
  r.error_rates(s.slope_tol);
  r.extra("variance_reduction") = {{"method", s.mc_method}, {"factor_min", o.vr_min}, {"factor_max", o.vr_max}};
  r.extra("error_rates")["split"] = "Bonferroni over the 2 tests (slope, r^2)";
  for (const auto& [part, refutation] : s.refutations) r.part(part).on_refuted(refutation);
  return r.finish([&](Verdict v) { return s.summary(v, o); });
}

ClaimTable table(const std::string& where, const std::string& latex_title, const std::string& part_a,
                 const std::string& part_b) {
  return with_part_text({TableKind::slope,
                         where,
                         latex_title,
                         {{"stated", "Paper", "the stated slope or $r^2$"},
                          {"exact", "Exact", "exact slope"},
                          {"mc", "Monte Carlo", "fitted slope, or mean $r^2$ under the paper's protocol"},
                          {"r2_q05", "$r^2$ 5\\%", "5\\% quantile of $r^2$ over replications"},
                          {"r2_q95", "$r^2$ 95\\%", "95\\% quantile of $r^2$"}},
                         {{"prompts_per_n", "Prompts per $n$"}},
                         {{"test", {{"slope", "slope"}, {"r2", "$r^2$"}}}}},
                        {{"a", part_a}, {"b", part_b}});
}

Claim with_test_names(Claim c) { return with_case_names(std::move(c), "test", numbered_names({"slope", "r2"}, 1)); }

}  // namespace icl::loglog_slope
