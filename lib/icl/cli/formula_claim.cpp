#include "icl/cli/formula_claim.hpp"

#include "icl/claim/case_json.hpp"
#include "icl/cli/engine.hpp"
#include "icl/cli/eval.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/report/provenance.hpp"
#include "icl/report/quantities.hpp"
#include "icl/report/report.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/proposed_correction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace icl {

namespace {

bool has_param(const Case& c, const std::string& name) {
  return std::any_of(c.params.begin(), c.params.end(), [&](const auto& p) { return p.first == name; });
}

// An exact decision on a bound: loss <= bound (upper) or >= bound (lower), within a floating-point tolerance.
Decision judge_exact_bound(double exact, double bound, const Tolerance& tol, bool upper) {
  Decision d;
  d.band = tol.band(bound);
  const bool holds = upper ? exact <= bound + d.band : exact >= bound - d.band;
  d.verdict = holds ? Verdict::confirmed : Verdict::refuted;
  d.why = fmt::format("exact {:.10g} {} the bound {:.10g}", exact,
                      holds ? (upper ? "lies below" : "lies above") : (upper ? "lies above" : "lies below"), bound);
  return d;
}

// The distinct values a parameter takes over the run's cases, in order of appearance.
std::vector<double> values_of(const ClaimContext& ctx, const std::string& name) {
  std::vector<double> v;
  for (const auto& c : ctx.cases)
    if (has_param(c, name) && std::find(v.begin(), v.end(), c.get(name)) == v.end()) v.push_back(c.get(name));
  return v;
}

// The proposed correction of a refuted equality (formula_claim.hpp): the model's exact loss as a fraction on a grid
// the toolkit chooses, fitted and verified by verdict/proposed_correction.hpp.
ProposedCorrection search_correction(const FormulaClaim& f, const ClaimContext& ctx) {
  std::vector<GridAxis> axes, own;
  std::optional<GridAxis> n_axis;
  std::vector<std::pair<std::string, double>> fixed;
  std::string scope = fmt::format("task {}, x ~ N(0, I), w ~ N(0, I)", f.task);
  for (const auto& p : f.grid) {
    const std::vector<double> vals = values_of(ctx, p.name);
    if (vals.empty()) continue;
    if (p.name == "cov") {
      for (double v : vals)
        if (v != 0)
          return no_correction_search(fmt::format(
              "the loss is integrated as an exact fraction for isotropic inputs only (cov 0); this grid has cov = {:g}", v));
      fixed.emplace_back("cov", 0.0);
    } else if (p.name == "d") {
      const double dmax = std::min<double>(p.max, exact_max_d(f.task));
      if (dmax < 8)  // six values to fit and two beyond them
        return no_correction_search(fmt::format(
            "the {} task's loss is integrated exactly up to d = {:g} only: too few values of d to fit a polynomial in d "
            "and check it beyond the fit (d = 1..8 needed)",
            f.task, dmax));
      axes.push_back(GridAxis{"d", FitRole::polynomial, true, p.min, dmax, vals, true});
    } else if (p.name == "n") {
      n_axis = GridAxis{"n", FitRole::reciprocal, true, p.min, p.max, vals, false};
    } else if (vals.size() >= 2) {
      own.push_back(GridAxis{p.name, FitRole::polynomial, p.integer, p.min, p.max, vals, false});
    } else {
      fixed.emplace_back(p.name, vals[0]);
      scope += fmt::format(", {} = {:g}", p.name, vals[0]);
    }
  }
  axes.insert(axes.end(), own.begin(), own.end());
  if (n_axis) axes.push_back(*n_axis);
  std::string why;
  auto s = choose_correction_grid(axes, why);
  if (!s) return no_correction_search(why);

  auto moments = std::make_shared<std::map<std::pair<int, double>, ExactSingleLayerMoments>>();
  s->exact = [&f, axes, fixed, moments](const std::vector<Rational>& pt, std::string& why) -> std::optional<Rational> {
    Case c;
    for (std::size_t i = 0; i < axes.size(); ++i) c.params.emplace_back(axes[i].name, pt[i].convert_to<double>());
    for (const auto& kv : fixed) c.params.push_back(kv);
    const int d = c.geti("d");
    const double noise = has_param(c, "noise") ? c.get("noise") : 0.0;
    LsaStack w;
    try {
      w = f.model(c);
    } catch (const std::exception& e) {
      why = fmt::format("model({}) raised: {}", c.label(), printable_line(e.what(), 200));
      return std::nullopt;
    }
    if (w.d != d) {
      why = fmt::format("the model at {} has d = {}", c.label(), w.d);
      return std::nullopt;
    }
    if (w.num_layers() != 1) {
      why = fmt::format("the model at {} has {} layers; the loss is integrated exactly for one layer", c.label(),
                        w.num_layers());
      return std::nullopt;
    }
    auto it = moments->find({d, noise});
    if (it == moments->end()) {
      GaussianIclModel model = GaussianIclModel::from_task(
          f.task == "linear" ? PolynomialTask::linear(d) : PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
      model.noise_sd = noise;
      it = moments->emplace(std::make_pair(d, noise), exact_single_layer_moments(model, identity_features(d))).first;
    }
    const Rational n(c.get("n"));
    return single_layer_loss(it->second, exact_single_layer_coefficients(w.layers[0], d, n), n);
  };
  s->time_budget_s = f.propose_budget_s;
  s->between = f.between_cases;
  s->scope = scope;
  ProposedCorrection pc = propose_correction(*s);
  std::vector<std::vector<Rational>> claim_points;
  for (const auto& c : ctx.cases) {
    std::vector<Rational> pt;
    for (const auto& a : axes) pt.push_back(Rational(c.get(a.name)));
    claim_points.push_back(pt);
  }
  check_on_claim_cases(pc, claim_points, s->exact);
  return pc;
}

ClaimResult run_formula(const FormulaClaim& f, const ClaimContext& ctx) {
  ClaimResult res;
  const Tolerance tol{f.tolerance, 0.0}, exact_tol{f.exact_tolerance, 1e-12};
  const double alpha_case = ctx.alpha / static_cast<double>(ctx.cases.size());
  const bool equality = f.kind == "equality", upper = f.kind == "upper_bound";
  std::size_t looks = 1, done = 0, confirmed = 0, refuted = 0, with_exact = 0;
  for (const auto& c : ctx.cases) {
    if (f.between_cases) f.between_cases();
    const int d = c.geti("d"), n = c.geti("n");
    const int cov = has_param(c, "cov") ? c.geti("cov") : 0;
    const double noise = has_param(c, "noise") ? c.get("noise") : 0.0;
    const double stated = f.stated(c);
    if (!std::isfinite(stated))
      throw UsageError(fmt::format("{}: the stated value at {} is {} (not a finite number)", f.id, c.label(), stated));
    const LsaStack w = f.model(c);
    if (w.d != d || w.num_layers() < 1)
      throw UsageError(fmt::format("{}: the model at {} has d = {}, the case d = {}", f.id, c.label(), w.d, d));
    const Eigen::MatrixXd sigma = test_covariance(d, cov);
    const PolynomialTask task = f.task == "linear" ? PolynomialTask::linear(d) : PolynomialTask::quadratic(d);
    GaussianIclModel model = GaussianIclModel::from_task(task, sigma);
    model.noise_sd = noise;
    const Transformer stack = w.transformer();
    const PromptShape shape = acds_shape(d, n);

    std::optional<double> exact;
    if (w.num_layers() == 1 && d <= exact_max_d(f.task)) {
      const SingleLayerMoments m = single_layer_moments(model, identity_features(d));
      exact = single_layer_loss(m, single_layer_coefficients(w.layers[0], d, n), n);
    }
    with_exact += exact.has_value();
    const std::uint64_t purpose = ctx.purpose(c.label());
    auto make_worker = [&] { return ModelPromptWorker(stack, model, shape, ctx.seed, purpose, +1.0); };

    CaseJson j(c);
    j.field("covariance", covariance_name(cov, d));
    j.quantity("stated", stated);
    if (exact) j.quantity("exact", *exact);
    Decision v;
    if (equality) {
      const EqualityOutcome o = sequential_equality(ctx, alpha_case, stated, exact, tol, exact_tol, 1, 0, 4096, make_worker);
      looks = std::max(looks, o.looks_planned);
      j.quantity("mc", o.mc);
      v = o.verdict;
      j.verdict(v);
      j.decisions(o);
    } else {
      MonteCarlo mc(1, ctx.threads);
      mc.extend_to(ctx.samples, make_worker);
      const Estimate est = make_estimate(mc.total(), 0, 1 - alpha_case);
      const Decision mc_vs_stated = upper ? judge_mc_upper_bound(est, stated, tol, alpha_case)
                                          : judge_mc_lower_bound(est, stated, tol, alpha_case);
      std::optional<Decision> exact_vs_stated, mc_vs_exact;
      if (exact) {
        exact_vs_stated = judge_exact_bound(*exact, stated, exact_tol, upper);
        mc_vs_exact = judge_mc_equal(est, *exact, tol, alpha_case);
      }
      v = combine_equality(exact_vs_stated, mc_vs_stated, mc_vs_exact);
      j.quantity("mc", est);
      j.verdict(v);
      if (exact_vs_stated) j.decision("exact_vs_stated", *exact_vs_stated);
      j.decision("mc_vs_stated", mc_vs_stated);
      if (mc_vs_exact) j.decision("mc_vs_exact", *mc_vs_exact);
    }
    confirmed += v.verdict == Verdict::confirmed;
    refuted += v.verdict == Verdict::refuted;
    res.cases.push_back(j.take());
    if (ctx.progress) ctx.progress(++done, ctx.cases.size());
  }
  const std::string what = equality ? "formula" : upper ? "upper bound" : "lower bound";
  std::optional<ProposedCorrection> proposal;
  if (equality && refuted > 0 && f.propose) proposal = search_correction(f, ctx);
  std::string corrected;
  if (proposal && proposal->verified)
    corrected = fmt::format("loss = {} ({}; proposed correction: fitted on {} exact values, equal to the exact loss at "
                            "each of {} held-out cases)",
                            proposal->formula.text(), proposal->scope, proposal->fitted_on, proposal->held_out);
  if (refuted > 0)
    res.parts["a"].on_refuted(Refutation{
        RefutationClass::substantive,
        fmt::format("the stated {} fails: the exact loss of the model and its Monte Carlo loss through the forward pass "
                    "both exclude the stated value (within {:.3g}%).",
                    what, 100 * f.tolerance),
        {}, corrected});
  res.extra["error_rates"] = error_rates_json(ctx.alpha, ctx.cases.size(), looks, tol);
  res.summary = fmt::format("{}: of {} cases, {} confirm the stated {} and {} refute it ({} with the exact loss beside "
                            "Monte Carlo through the forward pass)",
                            to_string(claim_verdict(ctx, res)), ctx.cases.size(), confirmed, what, refuted, with_exact);
  if (proposal) {
    add_proposed_quantity(res.cases, *proposal);
    res.extra["proposed_correction"] = proposal->to_json();
    res.summary += proposal->verified
                       ? fmt::format("; proposed correction: loss = {}, fitted on {} exact values and equal to the exact "
                                     "loss at each of {} held-out cases",
                                     proposal->formula.text(), proposal->fitted_on, proposal->held_out)
                       : "; no correction proposed: " + proposal->why;
  }
  return res;
}

void check_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || !std::all_of(id.begin(), id.end(), [](unsigned char ch) {
        return std::isalnum(ch) || ch == '.' || ch == '_' || ch == '-';
      }) || id.front() == '.' || id.front() == '-')
    throw UsageError(fmt::format("claim id '{}': use 1 to 64 letters, digits, '.', '_' or '-' (it names the report files)",
                                 printable_line(id, 80)));
  // A word the command line reads as something else: 'all' (every claim of the catalogue) or a subcommand.
  for (const char* word : {"all", "list", "run", "report", "eval", "help"})
    if (id == word)
      throw UsageError(fmt::format("claim id '{}' is a word of the command line ('all' runs the whole catalogue); "
                                   "choose another name",
                                   id));
}

// Registered for the time of one run, so that run_command finds it; removed again however the run ends.
struct ScopedRegistration {
  std::string id;
  explicit ScopedRegistration(Claim c) : id(c.id) { RegisterClaim{std::move(c)}; }
  ~ScopedRegistration() {
    auto& r = claim_registry();
    r.erase(std::remove_if(r.begin(), r.end(), [&](const Claim& c) { return c.id == id; }), r.end());
  }
  ScopedRegistration(const ScopedRegistration&) = delete;
  ScopedRegistration& operator=(const ScopedRegistration&) = delete;
};

}  // namespace

Claim formula_claim(const FormulaClaim& f) {
  check_id(f.id);
  if (f.statement.empty()) throw UsageError(f.id + ": a statement is required (what is claimed, in words)");
  if (f.kind != "equality" && f.kind != "upper_bound" && f.kind != "lower_bound")
    throw UsageError(fmt::format("{}: kind '{}' is not equality, upper_bound or lower_bound", f.id, printable_line(f.kind, 40)));
  if (f.task != "linear" && f.task != "quadratic")
    throw UsageError(fmt::format("{}: unknown task '{}' (linear, quadratic)", f.id, printable_line(f.task, 40)));
  if (!f.stated || !f.model) throw UsageError(f.id + ": both the stated value and the model are required");
  if (!(f.tolerance > 0 && f.tolerance < 1)) throw UsageError(f.id + ": tolerance must be in (0, 1)");
  if (!(f.exact_tolerance >= 0 && f.exact_tolerance < 1)) throw UsageError(f.id + ": exact_tolerance must be in [0, 1)");
  if (f.samples < 1) throw UsageError(f.id + ": samples must be >= 1");
  if (!(f.propose_budget_s > 0 && f.propose_budget_s <= 86400))
    throw UsageError(f.id + ": propose_budget_s must be in (0, 86400] seconds");
  std::set<std::string> names;
  for (const auto& p : f.grid) {
    if (!names.insert(p.name).second) throw UsageError(fmt::format("{}: grid parameter '{}' given twice", f.id, p.name));
    if (p.defaults.empty()) throw UsageError(fmt::format("{}: grid parameter '{}' has no values", f.id, p.name));
    for (double v : p.defaults) {
      if (!std::isfinite(v) || v < p.min || v > p.max || (p.integer && v != std::round(v)))
        throw UsageError(fmt::format("{}: grid parameter {} = {:g} is outside [{:g}, {:g}]{}", f.id, p.name, v, p.min,
                                     p.max, p.integer ? " or not a whole number" : ""));
    }
  }
  for (const char* need : {"d", "n"})
    if (!names.count(need)) throw UsageError(fmt::format("{}: the grid must give '{}'", f.id, need));

  Claim c;
  c.id = f.id;
  c.title = f.title.empty() ? (f.statement.size() > 100 ? f.statement.substr(0, 97) + "..." : f.statement) : f.title;
  c.source = f.source.empty() ? std::string("stated by the user") : f.source;
  c.statement = f.statement;
  c.params = f.grid;
  for (auto& p : c.params) p.quick = p.defaults;
  c.default_samples = f.samples;
  c.quick_samples = f.samples;
  c.memory_bytes = [](const Case& k, int threads) { return threads * acds_shape(k.geti("d"), k.geti("n")).workspace_bytes(); };
  c.parts = {PartSpec{"a",
                      f.kind == "equality"      ? "the model's in-context loss equals the stated formula"
                      : f.kind == "upper_bound" ? "the model's in-context loss is at most the stated bound"
                                                : "the model's in-context loss is at least the stated bound",
                      Strength::theorem}};
  c.run = [f](const ClaimContext& ctx) { return run_formula(f, ctx); };
  return c;
}

nlohmann::ordered_json check_formula_claim(const FormulaClaim& f, const std::string& out, std::uint64_t seed, int threads,
                                           double alpha, const std::string& command) {
  Claim c = formula_claim(f);
  if (find_claim(f.id)) throw UsageError(fmt::format("claim id '{}' is taken by a claim of the library", f.id));
  if (out.empty()) throw UsageError(f.id + ": an output folder is required");
  if (threads < 0) throw UsageError("threads must be >= 1");
  ScopedRegistration reg(std::move(c));
  RunOptions o;
  o.claims = {f.id};
  o.seed = seed;
  o.threads = threads;
  o.alpha = alpha;
  o.out = out;
  o.command = printable_line(command, 2000);
  run_command(o);
  return nlohmann::ordered_json::parse(read_file(out + "/" + f.id + ".json"));
}

}  // namespace icl
