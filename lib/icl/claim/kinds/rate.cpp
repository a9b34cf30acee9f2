// The rate kind (rate.hpp): the loss against rate_over on log-log axes, its local slopes against the stated exponent.
#include "icl/claim/kinds/rate.hpp"

#include "icl/claim/usage_error.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace icl {

namespace {

struct Point {
  double x = 0, loss = 0, se = 0;  // se: 0 for an exact loss
  bool exact = false;
};

struct Slope {
  double value = 0, lo = 0, hi = 0;  // lo = hi = value where both losses are exact
};

Slope slope_between(const Point& a, const Point& b, double z) {
  const double dx = std::log(b.x) - std::log(a.x);
  Slope s;
  s.value = (std::log(b.loss) - std::log(a.loss)) / dx;
  const double var = (a.se * a.se) / (a.loss * a.loss) + (b.se * b.se) / (b.loss * b.loss);
  const double half = z * std::sqrt(var) / dx;
  s.lo = s.value - half;
  s.hi = s.value + half;
  return s;
}

// The case without rate_over: the group's key and its report case.
Case without(const Case& c, const std::string& name) {
  Case g = c;
  g.params.erase(std::remove_if(g.params.begin(), g.params.end(), [&](const auto& p) { return p.first == name; }),
                 g.params.end());
  return g;
}

}  // namespace

void check_rate_fields(const FormulaClaim& f) {
  const auto p = std::find_if(f.grid.begin(), f.grid.end(), [&](const ParamSpec& s) { return s.name == f.rate_over; });
  if (p == f.grid.end())
    throw UsageError(fmt::format("{}: rate_over '{}' is not a parameter of the grid", f.id, f.rate_over));
  if (p->defaults.size() < 3)
    throw UsageError(fmt::format("{}: kind 'rate' needs at least 3 values of {} (a trend), got {}", f.id, f.rate_over,
                                 p->defaults.size()));
  for (double v : p->defaults)
    if (!(v > 0)) throw UsageError(fmt::format("{}: the values of {} must be positive (log-log axes)", f.id, f.rate_over));
  if (!(f.rate_tolerance > 0 && f.rate_tolerance < 10)) throw UsageError(f.id + ": rate_tolerance must be in (0, 10)");
}

std::string rate_part(const FormulaClaim& f) {
  return "the loss behaves like C " + f.rate_over + "^p as " + f.rate_over + " grows, p the stated exponent";
}

ClaimTable rate_table(const FormulaClaim& f) {
  return ClaimTable{TableKind::slope,
                    "",
                    "",
                    {{"stated", "Stated $p$", "the stated exponent"},
                     {"slope", "Last slope", "the log-log slope of the loss between the two largest values of " + f.rate_over},
                     {"slope_before", "Slope before", "the slope between the two values before them"}}};
}

ClaimResult run_rate(const FormulaClaim& f, const ClaimContext& ctx) {
  ClaimResult res;
  // Groups: the cases with the same other parameters, in the order of their first case.
  std::vector<Case> keys;
  std::map<std::string, std::vector<const Case*>> groups;
  for (const auto& c : ctx.cases) {
    const Case g = without(c, f.rate_over);
    if (!groups.count(g.label())) keys.push_back(g);
    groups[g.label()].push_back(&c);
  }
  const double alpha_group = ctx.alpha / static_cast<double>(keys.size());
  const double z = normal_quantile(1 - alpha_group / 2);  // each of the two slopes one-sided at alpha_group / 2
  std::size_t confirmed = 0, refuted = 0, exact_groups = 0, done = 0;
  std::vector<std::string> undecided;
  std::optional<nlohmann::ordered_json> counterexample;
  for (const auto& key : keys) {
    auto members = groups[key.label()];
    std::sort(members.begin(), members.end(),
              [&](const Case* a, const Case* b) { return a->get(f.rate_over) < b->get(f.rate_over); });
    std::vector<Point> pts;
    double stated = 0;
    for (const Case* c : members) {
      if (f.between_cases) f.between_cases();
      FormulaCase k(f, ctx, *c);
      stated = k.stated;
      Point p;
      p.x = c->get(f.rate_over);
      if (k.exact) {
        p.loss = *k.exact;
        p.exact = true;
      } else {
        MonteCarlo mc(1, ctx.threads);
        mc.extend_to(f.samples, [&] { return k.worker(); });
        const Estimate e = make_estimate(mc.total(), 0, 0.99);
        p.loss = e.mean;
        p.se = e.stderr_;
      }
      pts.push_back(p);
      if (ctx.progress) ctx.progress(++done, ctx.cases.size());
    }
    const bool exact = std::all_of(pts.begin(), pts.end(), [](const Point& p) { return p.exact; });
    exact_groups += exact;
    CaseJson j(key);
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& p : pts)
      points.push_back({{f.rate_over, p.x}, {"loss", p.loss}, {"exact", p.exact}, {"stderr", p.se}});
    j.field("points", points);
    j.quantity("stated", stated);
    Decision v;
    v.band = f.rate_tolerance;
    const std::size_t m = pts.size();
    const bool positive = std::all_of(pts.begin(), pts.end(), [](const Point& p) { return p.loss > 0 && std::isfinite(p.loss); });
    if (!positive) {
      v.verdict = Verdict::inconclusive;
      v.why = "a loss is not a positive finite number: no log-log slope";
      undecided.push_back(key.label() + " (a loss not positive)");
    } else {
      const Slope last = slope_between(pts[m - 2], pts[m - 1], z), before = slope_between(pts[m - 3], pts[m - 2], z);
      j.quantity("slope", last.value);
      j.quantity("slope_before", before.value);
      const double lo_band = stated - f.rate_tolerance, hi_band = stated + f.rate_tolerance;
      const std::string what = fmt::format(
          "log-log slope of the loss between {} = {:g} and {:g}: {:.4g}{}, before it ({:g} to {:g}) {:.4g}{}; stated "
          "exponent {:.4g} +/- {:.3g}",
          f.rate_over, pts[m - 2].x, pts[m - 1].x, last.value,
          exact ? "" : fmt::format(" [{:.4g}, {:.4g}]", last.lo, last.hi), pts[m - 3].x, pts[m - 2].x, before.value,
          exact ? "" : fmt::format(" [{:.4g}, {:.4g}]", before.lo, before.hi), stated, f.rate_tolerance);
      const bool within = lo_band <= last.lo && last.hi <= hi_band;
      const bool away = exact ? std::abs(last.value - stated) > f.rate_tolerance &&
                                    std::abs(last.value - stated) >= std::abs(before.value - stated)
                              : (last.lo > hi_band && before.lo > hi_band) || (last.hi < lo_band && before.hi < lo_band);
      if (within) {
        v.verdict = Verdict::confirmed;
        v.why = what + (exact ? " (exact losses)" : " (Monte Carlo: the interval within the band)");
      } else if (away) {
        v.verdict = Verdict::refuted;
        v.why = what + (exact ? " (exact losses): outside the band and not approaching it"
                              : " (Monte Carlo): both intervals outside the band on the same side");
      } else {
        v.verdict = Verdict::inconclusive;
        v.why = what + (exact ? " (exact losses): approaching the stated exponent, not yet within the band; larger "
                              : " (Monte Carlo): not decided; more prompts or larger ") +
                f.rate_over + " would decide";
        undecided.push_back(key.label());
      }
    }
    j.verdict(v, {"slope_vs_stated"});
    j.decision("slope_vs_stated", v);
    confirmed += v.verdict == Verdict::confirmed;
    refuted += v.verdict == Verdict::refuted;
    if (v.verdict == Verdict::refuted && !counterexample) {
      nlohmann::ordered_json ce = key.to_json();
      ce["points"] = points;
      ce["stated_exponent"] = stated;
      counterexample = ce;
    }
    res.cases.push_back(j.take());
  }
  if (refuted > 0)
    res.parts["a"].on_refuted(Refutation{
        RefutationClass::substantive,
        fmt::format("the stated rate fails: the loss's log-log slope against {} is outside {:.3g} of the stated "
                    "exponent at the largest values and does not approach it (the counterexample lists the losses)",
                    f.rate_over, f.rate_tolerance),
        counterexample ? *counterexample : nlohmann::ordered_json::object(), ""});
  res.extra["error_rates"] = nlohmann::ordered_json{
      {"decision", fmt::format("exact losses: none (a deterministic comparison); Monte Carlo losses: each slope's "
                               "interval one-sided at {:.3g} (the claim's alpha {} over {} groups and 2 slopes)",
                               alpha_group / 2, ctx.alpha, keys.size())},
      {"tolerance", fmt::format("{:.3g} on the exponent, absolute", f.rate_tolerance)}};
  res.extra["quantity_meanings"] = nlohmann::ordered_json{
      {"stated", "the stated exponent p of loss ~ C " + f.rate_over + "^p"},
      {"slope", "the log-log slope of the loss between the two largest values of " + f.rate_over},
      {"slope_before", "the log-log slope between the two values before them"}};
  res.summary = fmt::format("{}: of {} groups, {} confirm the stated rate and {} refute it ({} on exact losses, {} on "
                            "Monte Carlo){}",
                            to_string(claim_verdict(ctx, res)), keys.size(), confirmed, refuted, exact_groups,
                            keys.size() - exact_groups, undecided.empty() ? "" : "; undecided: " + name_cases(undecided));
  return res;
}

}  // namespace icl
