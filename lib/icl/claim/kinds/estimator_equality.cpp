// The equality kind on the conditional Monte Carlo estimator (estimator_equality.hpp): the case loop, the case's
// report, the error rates and the summary's tally.
#include "icl/claim/kinds/estimator_equality.hpp"

#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <utility>

namespace icl::estimator_equality {

void judge_case(ClaimRun& r, double alpha_case, const Case& c, const Spec& s, CaseJson& j, VarianceReductionRange& vr) {
  const ClaimContext& ctx = r.ctx();
  const Setting k = s.at(c, j);
  const Stack& st = k.stack;
  const ConditionalEquality m =
      conditional_equality(ctx, alpha_case, k.stated, k.exact, k.tol, s.exact_tol, st.features, st.attention, st.model,
                           query_moment_matrix(st.model, st.query_features), st.shape, ctx.purpose(c.label()), k.looks);
  r.note_looks(m.o.looks_planned);
  vr.add(m.variance_reduction);
  j.quantity("stated", k.stated);
  j.quantity("exact", k.exact);
  j.quantity("mc", m.o.mc);
  j.quantity("variance_reduction", m.variance_reduction);
  j.quantity("linearity_rms", m.linearity_rms);
  if (k.quantities) k.quantities(j);
  j.field("tolerance", tolerance_text(k.tol));
  j.verdict(m.o.verdict);
  j.decisions(m.o);
}

ClaimResult run_claim(const ClaimContext& ctx, const Spec& s) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  VarianceReductionRange vr;
  for (const auto& c : ctx.cases) {
    CaseJson j(c);
    judge_case(r, alpha_case, c, s, j, vr);
    r.add_case(j);
  }
  r.error_rates(s.error_rates);
  r.extra("error_rates")["tolerance"] = s.error_rates_text;
  r.extra("variance_reduction") = vr.to_json();
  if (s.after_cases) s.after_cases(r);
  return r.finish([&](Verdict v) {
    std::size_t confirmed = 0;
    for (const auto& c : r.cases()) confirmed += c["verdict"] == "confirmed";
    return fmt::format(fmt::runtime(s.summary), fmt::arg("verdict", to_string(v)), fmt::arg("confirmed", confirmed),
                       fmt::arg("cases", r.cases().size()),
                       fmt::arg("exact_checks", tally_decisions(r.cases(), "exact_vs_stated")),
                       fmt::arg("mc_checks", tally_decisions(r.cases(), "mc_vs_stated")));
  });
}

ClaimTable table(const std::string& where, const std::string& latex_title,
                 std::map<std::string, std::string> param_headers,
                 std::map<std::string, std::map<std::string, std::string>> param_values) {
  return with_param_text(
      ClaimTable{TableKind::equality, where, latex_title, {paper_value_column(), exact_column(), mc_column()}},
      std::move(param_headers), std::move(param_values));
}

}  // namespace icl::estimator_equality
