// The family-argmin kind (family_argmin.hpp): the decision, the Monte Carlo check, the case's report and the run.
#include "icl/claim/kinds/family_argmin.hpp"

#include "icl/claim/claim_run.hpp"
#include "icl/verdict/loss_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <tuple>

namespace icl::family_argmin {

Decision decide(const Spec& s, const Searches& f, bool searched, double gap) {
  const StartsMinimum &g = f.general, &dg = f.restricted;
  const Names& w = s.names;
  const double general_best = g.best.loss, restricted_best = dg.best.loss;
  Decision dec;
  dec.band = s.rule.equal_rel;
  if (!searched) {
    dec.verdict = Verdict::inconclusive;
    dec.why = fmt::format("no start converged ({} {}/{}, {} {}/{})", w.general, g.converged, s.starts, w.restricted,
                          dg.converged, s.starts);
  } else if (restricted_best <= general_best * (1 + s.rule.equal_rel) + s.rule.equal_abs) {
    // A global statement resting on a search: confirmed only if the search over the general family had stopped
    // improving (its later starts found nothing better).
    dec.verdict = g.search.still_improving ? Verdict::inconclusive : Verdict::confirmed;
    dec.why = fmt::format("best {} {} {:.15g} vs best {} {} {:.15g} (relative gap {:.1e} <= {:.0e}; {} and {} of {} "
                          "starts converged); {} {}",
                          w.restricted, w.member, restricted_best, w.general, w.member, general_best, gap,
                          s.rule.equal_rel, dg.converged, g.converged, s.starts, w.general, g.search.describe());
  } else {
    dec.verdict = gap > s.rule.refute_gap ? Verdict::refuted : Verdict::inconclusive;
    dec.why = fmt::format("a {} {} ({:.15g}) beats every {} {} found ({:.15g}): relative gap {:.2e}", w.general,
                          w.member, general_best, w.restricted, w.member, restricted_best, gap);
  }
  return dec;
}

namespace {

void run_case(ClaimRun& r, const Case& c, const Spec& s, double alpha_case, Tally& t) {
  const ClaimContext& ctx = r.ctx();
  const Names& w = s.names;
  const Searches f = s.search(c);
  const StartsMinimum &g = f.general, &dg = f.restricted;
  const bool searched = g.converged > 0 && dg.converged > 0;
  const double general_best = g.best.loss, restricted_best = dg.best.loss;
  const double gap = (restricted_best - general_best) / general_best;
  const Decision dec = decide(s, f, searched, gap);
  const Look look = s.look(c, f, searched);
  // Monte Carlo: the loss of the best restricted member through the real forward pass.
  EqualityOutcome o;
  if (searched) {
    const std::uint64_t m = std::min<std::uint64_t>(ctx.samples, s.rule.mc_prompts);
    o = forward_loss_equality(ctx, alpha_case, f.restricted_network(dg.best.theta), f.model, f.shape,
                              ctx.purpose(c.label() + "/mc"), restricted_best, std::nullopt, s.rule.mc, Tolerance{}, m,
                              m);
    r.note_looks(o.looks_planned);
  }
  // A Monte Carlo loss that contradicts the exact one leaves the case undecided (unless the decision refutes).
  const bool contradicted = o.mc_vs_stated.verdict == Verdict::refuted && dec.verdict != Verdict::refuted;
  const Verdict v = contradicted ? Verdict::inconclusive : dec.verdict;
  const std::string why = fmt::format("{}. {}. {}. Loss of the best {} {}: {}", to_string(v), dec.why, look.sentence,
                                      w.restricted, w.member, searched ? o.mc_vs_stated.why : "not run");
  if (gap > t.worst_gap) std::tie(t.worst_gap, t.worst) = std::tuple(gap, c.label());
  t.largest = std::max(t.largest, look.tallied);
  if (searched && g.losses[0] > general_best * (1 + s.rule.first_start_rel)) ++t.first_start_worse;

  const std::string is_global = w.restricted + "_is_global";
  CaseJson j(c);
  j.quantity("stated", restricted_best).quantity("exact", general_best);
  if (searched) j.mc(o.mc);
  j.quantity("general_best", general_best).quantity(w.restricted + "_best", restricted_best);
  j.quantity("relative_gap", gap);
  if (look.quantities) look.quantities(j);
  j.verdict(v, why, v == Verdict::inconclusive ? std::vector<std::string>{} : std::vector<std::string>{is_global});
  j.decision(is_global, dec);
  if (searched) j.decision("loss_mc_vs_exact", o.mc_vs_stated).decision("loss_mc_looks", o.looks_used);
  j.decision(w.general + "_start_losses", nlohmann::ordered_json(g.losses));
  j.decision(w.restricted + "_start_losses", nlohmann::ordered_json(dg.losses));
  j.field("search_" + w.general, g.search.to_json(12)).field("search_" + w.restricted, dg.search.to_json(12));
  r.add_case(j);
}

}  // namespace

ClaimResult run_claim(const ClaimContext& ctx, const Spec& s) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  Tally t;
  for (const auto& c : ctx.cases) run_case(r, c, s, alpha_case, t);
  r.error_rates(s.rule.mc);
  r.part("a").on_refuted(s.refutation);
  if (s.findings)
    for (std::string& f : s.findings(t)) r.finding(std::move(f));
  return r.finish([&](Verdict v) { return s.summary(v, t); });
}

}  // namespace icl::family_argmin
