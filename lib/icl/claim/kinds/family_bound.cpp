// The family lower-bound kind (family_bound.hpp): the exact decision, the verdict and the case's JSON.
#include "icl/claim/kinds/family_bound.hpp"

#include <fmt/format.h>

#include <utility>

namespace icl::family_bound {

Decision exact_vs_stated(const Case& k) {
  Decision d;
  if (k.member_exact < k.stated * (1 - kExactTolerance)) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("the exact loss of {} {} is {:.8g} < {}", k.member, k.where, k.member_exact, k.stated);
  } else if (k.infimum >= k.stated * (1 - kExactTolerance) - 1e-12) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("the exact infimum over the family {:.10g} >= {}; the exact loss of {} {} is {:.8g}", k.infimum,
                        k.stated, k.member, k.where, k.member_exact);
  } else {
    d.why = fmt::format("the exact infimum over the family {:.8g} < {}, but the exact loss of {} {} is {:.8g} >= {}",
                        k.infimum, k.stated, k.member, k.where, k.member_exact, k.stated);
  }
  return d;
}

Decision verdict(const Case& k, const Decision& exact) {
  const bool mc_consistent = k.mc_vs_exact.verdict != Verdict::refuted;
  Decision v;
  if (!k.internal_error.empty()) {
    v.why = k.internal_error;
  } else if (exact.verdict == Verdict::refuted && k.mc_vs_stated.verdict == Verdict::refuted && mc_consistent) {
    v.verdict = Verdict::refuted;
    v.why = fmt::format("counterexample: {} {} has loss {:.6g} (exact; Monte Carlo {}) < {}{}, margin {:.4g}; infimum "
                        "over the family {:.6g}",
                        k.member, k.where, k.member_exact, k.mc_vs_stated.why, k.stated,
                        k.bound.empty() ? "" : " = " + k.bound, k.stated - k.member_exact, k.infimum);
  } else if (exact.verdict == Verdict::confirmed && k.mc_vs_stated.verdict == Verdict::confirmed && mc_consistent) {
    v.verdict = Verdict::confirmed;
    v.why = fmt::format("the infimum over the family {:.6g} >= {}; {} {}: exact {:.6g}, Monte Carlo {}", k.infimum,
                        k.stated, k.member, k.where, k.member_exact, k.mc_vs_stated.why);
  } else {
    v.why = fmt::format("infimum {:.6g} vs bound {}; {} {}: exact {:.6g}; Monte Carlo: {}; vs exact: {}", k.infimum,
                        k.stated, k.member, k.where, k.member_exact, k.mc_vs_stated.why, k.mc_vs_exact.why);
  }
  return v;
}

void write_quantities(CaseJson& j, const Case& k) {
  j.quantity("stated", k.stated);
  j.quantity("exact", k.infimum);
  j.quantity("mc", k.member_mc);
  j.quantity("exact_construction", k.member_exact);
}

Decision write_verdict(CaseJson& j, const Case& k) {
  const Decision exact = exact_vs_stated(k);
  const Decision v = verdict(k, exact);
  j.verdict(v.verdict, v.why, {"exact_vs_stated", "mc_vs_stated"});
  j.decision("exact_vs_stated", exact);
  j.decision("mc_vs_stated", k.mc_vs_stated);
  j.decision("mc_vs_exact_construction", k.mc_vs_exact);
  return v;
}

void Closest::offer(const Case& k, const std::string& label) {
  if (k.member_exact / k.stated - 1 < excess) {
    excess = k.member_exact / k.stated - 1;
    text = fmt::format("{}: loss {:.5g} vs bound {}", label, k.member_exact, k.stated);
  }
}

std::string Closest::sentence() const {
  return text.empty() ? std::string("(none in this grid)") : fmt::format("{} ({:+.1f}%)", text, 100 * excess);
}

ClaimResult run_claim(const ClaimContext& ctx, const ClaimSpec& s) {
  ClaimRun r(ctx);
  Closest closest;
  auto skip = [&](const icl::Case& c) { return s.skip ? s.skip(c) : std::string(); };
  r.judge_cases(skip, [&](const icl::Case& c, double alpha_case) {
    CaseJson j(c);
    const Case k = s.judge(r, c, alpha_case, j);
    if (!s.closest_counts || s.closest_counts(c)) closest.offer(k, c.label());
    r.add_case(j);
  });
  r.error_rates_over_judged(s.error_rates);
  return r.finish([&](Verdict v) {
    return fmt::format(fmt::runtime(s.summary), fmt::arg("verdict", to_string(v)),
                       fmt::arg("closest", closest.sentence()));
  });
}

ClaimTable table(const std::string& where, const std::string& latex_title, const std::string& bound_meaning,
                 std::map<std::string, std::string> param_headers,
                 std::map<std::string, std::map<std::string, std::string>> param_values) {
  return with_param_text(ClaimTable{TableKind::bound,
                                    where,
                                    latex_title,
                                    {{"stated", "Bound", bound_meaning},
                                     {"exact", "Exact inf.", "exact infimum over the family"},
                                     {"mc", "Construction (MC)", "a finite-$n$ construction by Monte Carlo"}}},
                         std::move(param_headers), std::move(param_values));
}

}  // namespace icl::family_bound
