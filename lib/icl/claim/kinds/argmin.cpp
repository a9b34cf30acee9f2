// The argmin kind of a claim of one's own (argmin.hpp): the search of the exact loss over argmin_over and the
// per-case decision on the stated minimiser.
#include "icl/claim/kinds/argmin.hpp"

#include "icl/claim/usage_error.hpp"
#include "icl/exact/limits.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/statistics.hpp"
#include "icl/verdict/checks.hpp"

#include <fmt/format.h>

#include <boost/math/tools/minima.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace icl {

namespace {

// The result of the search on one case.
struct ArgminSearch {
  double stated = 0, stated_loss = 0;   // the stated minimiser and its exact loss
  double best = 0, best_loss = 0;       // the searched point of least loss
  double lo = 0, hi = 0;                // the range searched
  std::size_t grid_points = 0, evaluations = 0;
};

ArgminSearch search_argmin(const std::function<double(double)>& loss, double stated, double lo, double hi) {
  ArgminSearch a;
  a.stated = stated;
  a.lo = lo;
  a.hi = hi;
  a.stated_loss = loss(stated);
  a.best = stated;
  a.best_loss = a.stated_loss;
  constexpr int kGrid = 41;
  std::vector<double> xs(kGrid), ys(kGrid);
  int k_best = 0;
  for (int i = 0; i < kGrid; ++i) {
    xs[i] = lo + (hi - lo) * i / (kGrid - 1);
    ys[i] = loss(xs[i]);
    if (ys[i] < ys[k_best]) k_best = i;
    if (ys[i] < a.best_loss) a.best = xs[i], a.best_loss = ys[i];
  }
  a.grid_points = kGrid;
  a.evaluations = kGrid + 1;
  // Brent's method within the grid's best cell pair (a unimodal bracket where the grid resolves the minima).
  const double blo = xs[std::max(k_best - 1, 0)], bhi = xs[std::min(k_best + 1, kGrid - 1)];
  std::uintmax_t iters = 500;
  const auto [x, y] = boost::math::tools::brent_find_minima(loss, blo, bhi, std::numeric_limits<double>::digits / 2, iters);
  a.evaluations += iters;
  if (y < a.best_loss) a.best = x, a.best_loss = y;
  return a;
}

// Prompts of the Monte Carlo path (no exact loss): the search's common prompts, and the decision's paired prompts
// (at most the claim's samples).
constexpr std::uint64_t kSearchPrompts = 8192;
constexpr std::uint64_t kDecisionPrompts = 65536;

// The mean loss of weights over the first `count` prompts of stream `purpose` (common random numbers: every weight
// sees the same prompts, so the search minimises a smooth function of the parameter).
double mean_loss(const FormulaCase& k, const LsaStack& weights, std::uint64_t purpose, std::uint64_t count) {
  const Transformer t = weights.transformer();
  MonteCarlo mc(1, k.ctx.threads);
  mc.extend_to(count, [&] { return ModelPromptWorker(t, k.model, k.shape, k.ctx.seed, purpose, +1.0); });
  return mc.total().mean[0];
}

// Per prompt: the loss of two models on the same prompt, and their difference (the paired excess).
struct PairedLossWorker {
  ModelPromptWorker a, b;
  void operator()(std::uint64_t i, double* out) {
    out[0] = a.loss(i);
    out[1] = b.loss(i);
    out[2] = out[0] - out[1];
  }
};

// The case without an exact loss: the search on the Monte Carlo loss over kSearchPrompts common prompts, then the
// excess of the stated minimiser's loss over the search's point on fresh paired prompts, one-sided at the case's
// alpha against argmin_mc_tolerance x the loss at the stated minimiser.
Decision argmin_case_mc(FormulaRun& run, FormulaCase& k, CaseJson& j, double lo, double hi) {
  const FormulaClaim& f = run.f;
  const Case& c = k.c;
  const double stated = k.stated;
  const std::uint64_t search_stream = k.purpose + 1, decision_stream = k.purpose + 2;
  const std::uint64_t search_n = std::min<std::uint64_t>(f.samples, kSearchPrompts);
  auto loss = [&](double x) {
    if (f.between_cases) f.between_cases();
    const double l = mean_loss(k, k.weights_at(x), search_stream, search_n);
    return std::isfinite(l) ? l : std::numeric_limits<double>::max();
  };
  const ArgminSearch a = search_argmin(loss, stated, lo, hi);
  // Paired prompts of a stream the search did not see: loss at the stated minimiser minus loss at the search's point.
  const Transformer ts = k.w.transformer(), tb = k.weights_at(a.best).transformer();
  MonteCarlo mc(3, k.ctx.threads);
  mc.extend_to(std::min<std::uint64_t>(f.samples, kDecisionPrompts), [&] {
    return PairedLossWorker{ModelPromptWorker(ts, k.model, k.shape, k.ctx.seed, decision_stream, +1.0),
                            ModelPromptWorker(tb, k.model, k.shape, k.ctx.seed, decision_stream, +1.0)};
  });
  const Accumulator total = mc.total();
  const std::uint64_t n = mc.samples();
  const double at_stated = total.mean[0], at_best = total.mean[1];
  const Estimate e = make_estimate(total, 2, 1 - 2 * run.alpha_case);  // its interval's ends: one-sided at alpha_case
  const double band = f.argmin_mc_tolerance * std::abs(at_stated);
  Decision v;
  v.band = band;
  v.detectable = e.ci_high - e.mean;
  const std::string paired = fmt::format("loss at the stated minimiser {} = {:.6g} minus loss at the search's point "
                                         "{:.6g} on {} fresh paired prompts: {:.3g}, one-sided {:.3g}% interval "
                                         "[{:.3g}, {:.3g}], against {:.3g} ({:.3g} x the loss there)",
                                         f.argmin_over, stated, a.best, n, e.mean, 100 * (1 - run.alpha_case),
                                         e.ci_low, e.ci_high, band, f.argmin_mc_tolerance);
  if (!std::isfinite(e.mean)) {
    v.verdict = Verdict::inconclusive;
    v.why = "the Monte Carlo loss is not finite at the stated minimiser or the search's point";
  } else if (e.ci_low > band) {
    v.verdict = Verdict::refuted;
    v.why = "the search's point has a lower loss beyond the band: " + paired;
  } else if (e.ci_high <= band) {
    v.verdict = Verdict::confirmed;
    v.why = "no searched point has a lower loss beyond the band: " + paired + " (judged on the loss, not the place)";
  } else {
    v.verdict = Verdict::inconclusive;
    v.why = "the interval straddles the band: " + paired;
  }
  j.quantity("search_argmin", a.best);
  j.quantity("loss_at_stated", at_stated);
  j.quantity("loss_at_search", at_best);
  j.quantity("excess", e);
  j.verdict(v, {"excess_vs_band"});
  j.decision("excess_vs_band", v);
  j.decision("search", nlohmann::ordered_json{
                           {"range", {a.lo, a.hi}},
                           {"grid_points", a.grid_points},
                           {"evaluations", a.evaluations},
                           {"method", fmt::format("grid, then Brent's method (Boost.Math brent_find_minima), on the "
                                                  "Monte Carlo loss over {} common prompts (no exact loss here)",
                                                  search_n)},
                           {"search_loss_at_stated", a.stated_loss},
                           {"search_loss_at_best", a.best_loss}});
  if (v.verdict == Verdict::inconclusive) run.undecided.push_back(c.label() + " (Monte Carlo excess undecided)");
  if (v.verdict == Verdict::refuted && !run.counterexample) {
    nlohmann::ordered_json ce = c.to_json();
    ce[f.argmin_over] = a.best;
    ce["loss"] = at_best;
    ce["stated_" + f.argmin_over] = stated;
    ce["loss_at_stated"] = at_stated;
    ce["paired_prompts"] = n;
    run.counterexample = ce;
  }
  return v;
}

}  // namespace

void check_argmin_fields(const FormulaClaim& f) {
  if (f.argmin_over.empty())
    throw UsageError(f.id + ": kind 'argmin' needs argmin_over, the parameter the stated value minimises over");
  for (const char* fixed : {"d", "n", "cov", "noise"})
    if (f.argmin_over == fixed)
      throw UsageError(fmt::format("{}: argmin_over '{}' is a setting of the task, not a parameter of the model",
                                   f.id, f.argmin_over));
  for (const auto& p : f.grid)
    if (p.name == f.argmin_over)
      throw UsageError(fmt::format("{}: argmin_over '{}' is also in the grid; the search sets it", f.id, f.argmin_over));
  if (f.argmin_range && !(std::isfinite(f.argmin_range->first) && std::isfinite(f.argmin_range->second) &&
                          f.argmin_range->first < f.argmin_range->second))
    throw UsageError(f.id + ": argmin_range must be two finite numbers, low < high");
  if (!(f.argmin_tolerance > 0 && f.argmin_tolerance < 1)) throw UsageError(f.id + ": argmin_tolerance must be in (0, 1)");
  if (!(f.argmin_mc_tolerance > 0 && f.argmin_mc_tolerance < 1))
    throw UsageError(f.id + ": argmin_mc_tolerance must be in (0, 1)");
}

std::string argmin_part(const FormulaClaim& f) {
  return "the stated value of " + f.argmin_over + " minimises the model's in-context loss";
}

ClaimTable argmin_table(const FormulaClaim& f) {
  return ClaimTable{TableKind::equality,
                    "",
                    "",
                    {{"stated", "Stated", "the stated minimiser of " + f.argmin_over},
                     {"search_argmin", "Search", "the point of least loss a grid and Brent's method found"},
                     {"loss_at_stated", "Loss there", "the loss at the stated minimiser (exact; Monte Carlo where there is no exact loss)"},
                     {"loss_at_search", "Least loss", "the loss at the search's point (likewise)"},
                     mc_column()}};
}

Decision argmin_case(FormulaRun& run, FormulaCase& k, CaseJson& j) {
  const FormulaClaim& f = run.f;
  const Case& c = k.c;
  const double stated = k.stated;
  Decision v;
  j.quantity("stated", stated);
  const double width = std::max(std::abs(stated), 1.0);
  const double lo = f.argmin_range ? f.argmin_range->first : stated - width;
  const double hi = f.argmin_range ? f.argmin_range->second : stated + width;
  if (!(lo <= stated && stated <= hi))
    throw UsageError(fmt::format("{}: the stated minimiser {} = {:g} at {} lies outside the search range [{:g}, {:g}]",
                                 f.id, f.argmin_over, stated, c.label(), lo, hi));
  if (!k.exact) return argmin_case_mc(run, k, j, lo, hi);  // several layers, or d beyond the exact range
  auto loss = [&](double x) {
    const LsaStack wx = k.weights_at(x);
    const auto l = k.exact_loss(wx);
    if (!l)
      throw UsageError(fmt::format("{}: the model at {} = {:g} ({}) has no exact loss, at {} = {:g} it has one",
                                   f.id, f.argmin_over, x, c.label(), f.argmin_over, stated));
    return *l;
  };
  const ArgminSearch a = search_argmin(loss, stated, lo, hi);
  const double loss_band = run.exact_tol.band(a.stated_loss);
  const double place_band = f.argmin_tolerance * width;
  const double lower_by = a.stated_loss - a.best_loss, off_by = std::abs(a.best - stated);
  Decision search;
  search.band = loss_band;
  if (lower_by > loss_band) {
    search.verdict = Verdict::refuted;
    search.why = fmt::format("the exact loss at {} = {:.10g} is {:.10g}, lower than {:.10g} at the stated "
                             "minimiser {:.10g} by {:.3g} (> {:.3g})",
                             f.argmin_over, a.best, a.best_loss, a.stated_loss, stated, lower_by, loss_band);
  } else if (off_by > place_band && a.best_loss < a.stated_loss) {
    search.verdict = Verdict::refuted;
    search.why = fmt::format("the search's minimiser {} = {:.10g} lies {:.3g} from the stated {:.10g} (> {:.3g}) "
                             "with a lower exact loss ({:.10g} < {:.10g})",
                             f.argmin_over, a.best, off_by, stated, place_band, a.best_loss, a.stated_loss);
  } else {
    search.verdict = Verdict::confirmed;
    search.why = fmt::format("the exact loss at the stated minimiser {} = {:.10g} is {:.10g}, within {:.3g} of "
                             "the least the search found ({:.10g} at {:.10g}, {:.3g} from the stated one{})",
                             f.argmin_over, stated, a.stated_loss, loss_band, a.best_loss, a.best, off_by,
                             off_by > place_band ? "; the minimum is flat there, no lower loss off it"
                                                 : fmt::format(", within {:.3g}", place_band));
  }
  // Monte Carlo through the forward pass at the stated minimiser checks the exact engine there.
  auto judge = [&](const Estimate& e, double al) { return judge_mc_equal(e, a.stated_loss, run.tol, al); };
  const EqualityOutcome o = exact_first_check(run.ctx, run.alpha_case, search, a.stated_loss, judge, DecideAt{{}, std::nullopt}, run.tol, 1, 0,
                                              kFormulaFirstLook, [&] { return k.worker(); });
  run.looks = std::max(run.looks, o.looks_planned);
  j.quantity("search_argmin", a.best);
  j.quantity("loss_at_stated", a.stated_loss);
  j.quantity("loss_at_search", a.best_loss);
  j.quantity("mc", o.mc);
  v = o.verdict;
  j.verdict(v);
  j.decision("exact_vs_stated", search);
  j.decision("mc_vs_exact", *o.mc_vs_exact);
  j.decision("looks", fmt::format("{} of {}", o.looks_used, o.looks_planned));
  j.decision("search", nlohmann::ordered_json{{"range", {a.lo, a.hi}},
                                              {"grid_points", a.grid_points},
                                              {"evaluations", a.evaluations},
                                              {"method", "grid, then Brent's method (Boost.Math brent_find_minima)"}});
  if (v.verdict == Verdict::inconclusive) run.inconsistent.push_back(c.label());
  if (v.verdict == Verdict::refuted && !run.counterexample) {
    nlohmann::ordered_json ce = c.to_json();
    ce[f.argmin_over] = a.best;
    ce["loss"] = a.best_loss;
    ce["stated_" + f.argmin_over] = stated;
    ce["loss_at_stated"] = a.stated_loss;
    run.counterexample = ce;
  }
  return v;
}

std::string argmin_refutation(const FormulaClaim& f) {
  return fmt::format("the stated minimiser fails: a search of the exact loss over {} finds a lower loss away from it "
                     "(the counterexample gives the better point and both losses).",
                     f.argmin_over);
}

nlohmann::ordered_json argmin_quantity_meanings(const FormulaClaim& f) {
  return {{"stated", "the stated minimiser of the loss over " + f.argmin_over},
          {"search_argmin", "the point of least loss a grid and Brent's method found over " + f.argmin_over +
                                " (on the exact loss; where there is none, on the Monte Carlo loss over common prompts)"},
          {"loss_at_stated", "the loss at the stated minimiser (exact; where there is none, Monte Carlo over the "
                             "decision's fresh prompts)"},
          {"loss_at_search", "the loss at the search's point (likewise)"},
          {"excess", "no exact loss: loss at the stated minimiser minus loss at the search's point, per paired prompt"},
          {"mc", "Monte Carlo loss through the forward pass at the stated minimiser"}};
}

}  // namespace icl
