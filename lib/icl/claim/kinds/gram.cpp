// The Gram kind (gram.hpp): a stated matrix of expectations E[v v^T], decided exactly by the claim and entry by entry
// by Monte Carlo.
#include "icl/claim/kinds/gram.hpp"

#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/statistics.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>

namespace icl::gram {

Decision exact_decision(const CaseSpec& k, const Spec& s) {
  if (k.exact_equal)
    return Decision{Verdict::confirmed, 0, 0,
                    fmt::format("{} of all {} variables is {}", s.exact_name, k.names.size(), s.stated_name)};
  return Decision{Verdict::refuted, 0, 0,
                  fmt::format("exact Gram matrix is not {}: {}", s.stated_name, k.exact_failure)};
}

Sampled monte_carlo(const SamplingPlan& plan, std::uint64_t purpose, const CaseSpec& k, const Spec& s, double alpha) {
  const Tolerance tol{0.0, s.band};
  const int d = k.inputs;
  const int m = static_cast<int>(k.names.size());
  const int dims = m * (m + 1) / 2;
  auto make_worker = [&] {
    return [d, m, &v_of = k.variables, seed = plan.seed, purpose, x = std::vector<double>(d),
            v = std::vector<double>(m)](std::uint64_t i, double* out) mutable {
      PromptRng rng(seed, purpose, i);
      for (auto& xi : x) xi = rng.normal();
      v_of(x.data(), v.data());
      int e = 0;
      for (int a = 0; a < m; ++a)
        for (int b = a; b < m; ++b) out[e++] = v[a] * v[b];
    };
  };
  // Looks double up to plan.samples and, while some entry is still undecided, on up to 4x (budget moved to the cases
  // that need it; every planned look shares alpha, so the error rates hold either way).
  auto looks = sequential_looks(s.first, plan.samples);
  for (std::uint64_t n = 2 * plan.samples; n <= 4 * plan.samples && plan.samples > 0; n *= 2) looks.push_back(n);
  Sampled g;
  g.looks_planned = looks.size();
  const double alpha_entry = alpha / static_cast<double>(looks.size()) / dims;
  MonteCarlo mc(dims, plan.threads);
  g.mean.resize(m, m);
  g.stderr_.resize(m, m);
  std::string worst_name;
  for (auto n : looks) {
    mc.extend_to(n, make_worker);
    const Accumulator acc = mc.total();
    int e = 0, refuted = 0, confirmed = 0;
    double worst_z = -1;
    for (int a = 0; a < m; ++a)
      for (int b = a; b < m; ++b, ++e) {
        const Estimate est = make_estimate(acc, e, 1 - alpha_entry);
        g.mean(a, b) = g.mean(b, a) = est.mean;
        g.stderr_(a, b) = g.stderr_(b, a) = est.stderr_;
        const double target = k.stated(a, b);
        const Decision dec = judge_mc_equal(est, target, tol, alpha_entry);
        refuted += dec.verdict == Verdict::refuted;
        confirmed += dec.verdict == Verdict::confirmed;
        const double z = std::abs(est.mean - target) / est.stderr_;
        if (z > worst_z) {
          worst_z = z;
          g.worst = est;
          worst_name = fmt::format("<{}, {}>", k.names[a], k.names[b]);
        }
      }
    g.verdict = refuted ? Verdict::refuted : (confirmed == dims ? Verdict::confirmed : Verdict::inconclusive);
    g.why = fmt::format("{} of {} Gram entries within ±{} of {} at {} samples ({} outside); farthest {} = "
                        "{:.4f} ± {:.4f}",
                        confirmed, dims, s.band, s.stated_name, acc.count, refuted, worst_name, g.worst.mean,
                        (g.worst.ci_high - g.worst.ci_low) / 2);
    if (g.verdict != Verdict::inconclusive) break;
  }
  return g;
}

ClaimResult run(const ClaimContext& ctx, const Spec& s) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  for (const auto& c : ctx.cases) {
    const CaseSpec k = s.at(c);
    const Decision exact = exact_decision(k, s);
    const Sampled g = monte_carlo(ctx, ctx.purpose(c.label()), k, s, alpha_case);
    r.note_looks(g.looks_planned);
    const Decision mc{g.verdict, s.band, 0, g.why};
    CaseJson j(c);
    j.quantity("stated", k.stated);
    j.quantity("exact", k.exact);
    j.quantity("mc", g.worst);
    j.quantity("mc_gram", g.mean);
    j.quantity("mc_gram_stderr", g.stderr_);
    j.field("variables", k.names);
    j.verdict(combine_equality(exact, mc, std::nullopt));
    j.decision("exact_vs_stated", exact);
    j.decision("mc_vs_stated", mc);
    r.add_case(j);
  }
  r.error_rates(Tolerance{0.0, s.band});
  auto& er = r.extra("error_rates");
  er["split"] = er["split"].get<std::string>() + ", and over the C(m+1,2) Gram entries";
  return r.finish([&](Verdict v) {
    if (v != Verdict::confirmed)
      return fmt::format("{}: Monte Carlo Gram matrix against {} (within ±{} per entry): {}.", to_string(v),
                         s.stated_name, s.band, tally_decisions(r.cases(), "mc_vs_stated"));
    return fmt::format("{}: {}", to_string(v), s.confirmed());
  });
}

ClaimTable table(const std::string& where, const std::string& caption, const std::string& stated_name) {
  return {TableKind::identity,
          where,
          caption,
          {{"mc", "MC worst entry", fmt::format("the Gram entry farthest from {}'s, by Monte Carlo", stated_name)}}};
}

}  // namespace icl::gram
