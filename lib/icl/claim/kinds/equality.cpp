// The equality kind of a claim of one's own (equality.hpp): its per-case decision and the proposed correction of a
// refuted formula.
#include "icl/claim/kinds/equality.hpp"

#include "icl/exact/limits.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/io/printable.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

namespace icl {

namespace {

// The distinct values a parameter takes over the run's cases, in order of appearance.
std::vector<double> values_of(const ClaimContext& ctx, const std::string& name) {
  std::vector<double> v;
  for (const auto& c : ctx.cases)
    if (has_param(c, name) && std::find(v.begin(), v.end(), c.get(name)) == v.end()) v.push_back(c.get(name));
  return v;
}

}  // namespace

std::string equality_part() { return "the model's in-context loss equals the stated formula"; }

Decision equality_case(FormulaRun& run, const FormulaCase& k, CaseJson& j) {
  std::optional<Decision> exact_vs_stated;
  if (k.exact) exact_vs_stated = judge_exact_equal(*k.exact, k.stated, run.exact_tol);
  const double band = run.tol.band(k.stated);
  auto judge = [&](const Estimate& e, double a) { return judge_mc_equal(e, k.stated, run.tol, a); };
  return check_stated_value(run, k, j, exact_vs_stated, judge, DecideAt::exact_formula(k.stated, band));
}

ProposedCorrection search_correction(const FormulaClaim& f, const ClaimContext& ctx) {
  if (f.network)
    return no_correction_search("the model is a network of the library's layers, whose loss is Monte Carlo through "
                                "its forward pass, not an exact fraction");
  if (f.sigma || f.w_cov || f.theta0)
    return no_correction_search("the correction search integrates exact fractions for x ~ N(0, I), w ~ N(0, I) only; "
                                "this claim's task law is its own (sigma, w_cov or theta0)");
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
      why = fmt::format("the model at {} has {} layers; the correction search integrates exact fractions for one "
                        "layer only (a stack in acds's forms is decided on its exact loss, but not fitted)", c.label(),
                        w.num_layers());
      return std::nullopt;
    }
    auto it = moments->find({d, noise});
    if (it == moments->end()) {
      GaussianIclModel model = GaussianIclModel::from_task(
          named_task(f.task, d), Eigen::MatrixXd::Identity(d, d));
      model.noise_sd = noise;
      it = moments->emplace(std::make_pair(d, noise), exact_single_layer_moments(model, identity_features(d))).first;
    }
    const Rational n(c.get("n"));
    return single_layer_loss(it->second, exact_single_layer_coefficients(w.layers[0], d, n, /*as_fractions=*/true), n);
  };
  s->reading = "each weight read as the simplest fraction (denominator <= 2^20) its double rounds from, so that " \
               "weights computed in floating point from fractions (n/(n + d + 1)) count as those fractions";
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

std::string correction_sentence(const ProposedCorrection& pc) {
  if (!pc.verified) return "";
  return fmt::format("loss = {} ({}; proposed correction: fitted on {} exact values, equal to the exact loss at each of "
                     "{} held-out cases)",
                     pc.formula.text(), pc.scope, pc.fitted_on, pc.held_out);
}

void add_correction(ClaimResult& res, const ProposedCorrection& pc) {
  add_proposed_quantity(res.cases, pc);
  res.extra["proposed_correction"] = pc.to_json();
  res.summary += pc.verified ? fmt::format("; proposed correction: loss = {}, fitted on {} exact values and equal to the "
                                           "exact loss at each of {} held-out cases",
                                           pc.formula.text(), pc.fitted_on, pc.held_out)
                             : "; no correction proposed: " + pc.why;
}

void judge_proposed_against(nlohmann::ordered_json& cases, const ProposedCorrection& pc, const std::string& quantity,
                            const Tolerance& tol, const std::string& decision) {
  if (!pc.verified || !cases.is_array()) return;
  for (auto& c : cases) {
    if (!c.is_object() || !c.contains("quantities")) continue;
    const auto& q = c["quantities"];
    if (!q.contains("proposed") || !q.contains(quantity)) continue;
    const Decision dec = judge_exact_equal(q["proposed"]["value"].get<double>(), q[quantity]["value"].get<double>(), tol);
    c["decisions"][decision] = decision_json(dec);
  }
}

}  // namespace icl
