// The flow-limit kind (flow_limit.hpp): the exact limit decision, the case verdict and the flows' plots.
#include "icl/claim/kinds/flow_limit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace icl::flow_limit {

double relative_distance(const Eigen::VectorXd& a, const Eigen::VectorXd& b) { return (a - b).norm() / b.norm(); }

Numbers numbers(const FlowResult& flow, const Eigen::VectorXd& end, const Eigen::VectorXd& stated,
                const Eigen::VectorXd& independent, double l_flow, double l_stated, double lower) {
  Numbers k;
  k.d_fs = relative_distance(end, stated);
  k.d_es = relative_distance(independent, stated);
  k.d_fe = relative_distance(end, independent);
  k.l_flow = l_flow, k.l_stated = l_stated, k.lower = lower;
  k.converged = flow.status == FlowStatus::converged;
  k.flow_description = flow.describe();
  return k;
}

Decision limit_decision(const Numbers& k, const Tolerances& tol, const std::string& independent) {
  const bool global = k.l_flow - k.lower <= 1e-9 * std::max(1.0, std::abs(k.lower));
  Decision d;
  d.band = tol.limit;
  if (!k.converged) {
    d.why = "the flow did not converge: " + k.flow_description;
    return d;
  }
  if (k.d_fs <= tol.limit && k.d_es <= tol.exact && global)
    d.verdict = Verdict::confirmed;
  else if (k.d_fs > tol.far && k.d_es > tol.far && k.d_fe <= tol.limit)
    d.verdict = Verdict::refuted;
  d.why = fmt::format("relative distances: flow endpoint to the stated limit {:.3g} (tolerance {:.0e}), {} to the "
                      "stated limit {:.3g} (tolerance {:.0e}), flow to exact {:.3g}; loss gap to the global lower bound "
                      "{:.3g}",
                      k.d_fs, tol.limit, independent, k.d_es, tol.exact, k.d_fe, k.l_flow - k.lower);
  return d;
}

Decision verdict(const Numbers& k, const EqualityOutcome& o, const Decision& limit, const Texts& texts) {
  Decision v;
  if (!k.converged) {
    v.why = limit.why;
    return v;
  }
  const std::string* text = &texts.mixed;
  if (limit.verdict == Verdict::confirmed && o.verdict.verdict == Verdict::confirmed) {
    v.verdict = Verdict::confirmed, text = &texts.confirmed;
    v.basis = o.verdict.basis;
    v.basis.push_back("limit_vs_stated");
  } else if (limit.verdict == Verdict::refuted && o.mc_vs_exact && o.mc_vs_exact->verdict != Verdict::refuted) {
    v.verdict = Verdict::refuted, text = &texts.refuted;
    v.basis = {"limit_vs_stated"};
  }
  v.why = fmt::format(fmt::runtime(*text), fmt::arg("d_fs", k.d_fs), fmt::arg("d_es", k.d_es), fmt::arg("d_fe", k.d_fe),
                      fmt::arg("l_flow", k.l_flow), fmt::arg("l_stated", k.l_stated), fmt::arg("lower", k.lower),
                      fmt::arg("gap", k.l_flow - k.lower), fmt::arg("mc_mean", o.mc.mean),
                      fmt::arg("mc_half", (o.mc.ci_high - o.mc.ci_low) / 2), fmt::arg("mc_why", o.verdict.why));
  return v;
}

void add_plot_series(const FlowResult& flow, double lower, const std::string& name, std::vector<PlotSeries>& loss_plot,
                     std::vector<PlotSeries>& dist_plot) {
  PlotSeries ls{name, {}, {}}, ds = ls;
  for (const auto& s : flow.trace) {
    ls.t.push_back(s.t), ls.y.push_back(s.loss - lower);
    ds.t.push_back(s.t), ds.y.push_back(s.distance);
  }
  loss_plot.push_back(ls);
  dist_plot.push_back(ds);
}

void write_plots(ClaimRun& r, const std::vector<PlotSeries>& loss_plot, const std::vector<PlotSeries>& dist_plot) {
  const std::string& id = r.ctx().claim_id;
  r.extra("plots") = {fmt::format("{}.loss.svg", id), fmt::format("{}.distance.svg", id)};
  const PlotSpec loss_spec{std::string("Loss gap L(t) - global minimum"), "t", "loss gap", true, true, loss_plot};
  const PlotSpec dist_spec{std::string("||theta(t) - theta_*|| / ||theta_*||"), "t", "relative distance", true,
                           true, dist_plot};
  r.extra("figures") = {{"loss", plot_json(loss_spec)}, {"distance", plot_json(dist_spec)}};
  r.result().files["loss.svg"] = svg_plot(loss_spec);
  r.result().files["distance.svg"] = svg_plot(dist_spec);
}

FlowOptions flow_options(bool quick) {
  FlowOptions opt;
  opt.grad_tol = 1e-10;
  opt.t_max = 1e7;
  opt.max_steps = quick ? 200000 : 1500000;
  opt.trace_t_min = 1e-2;
  opt.trace_per_decade = 4;
  return opt;
}

void Tally::note(const Numbers& k, const std::string& label, bool ties_to_later) {
  if (k.converged && (k.d_fs > worst_dist || (ties_to_later && k.d_fs == worst_dist))) {
    worst_dist = k.d_fs;
    worst = label;
  }
}

void Tally::plot(const FlowResult& flow, const Numbers& k, const std::string& name) {
  add_plot_series(flow, k.lower, name, loss_plot, dist_plot);
}

Outside outside_summary(const nlohmann::ordered_json& records, const Tolerances& tol) {
  Outside o;
  for (const auto& j : records) {
    const bool converged = j["flow"]["status"] == "converged";
    const double distance = j["distance_flow_to_stated"].get<double>();
    o.converged &= converged;
    o.within &= converged && distance <= tol.limit;
    o.worst = std::max(o.worst, distance);
    if (j.contains("sigma_over_bound")) o.largest_factor = std::max(o.largest_factor, j["sigma_over_bound"].get<double>());
  }
  return o;
}

void write_report(ClaimRun& r, const FlowOptions& opt, const std::string& outside_key,
                  const nlohmann::ordered_json& outside, const Tally& t) {
  r.error_rates(mc_tolerance());
  r.extra("tolerances") = Tolerances{}.to_json(opt);
  r.extra(outside_key) = outside;
  write_plots(r, t.loss_plot, t.dist_plot);
}

namespace {
// `text` as a literal inside a fmt format string.
std::string literal(const std::string& text) {
  std::string out;
  for (char ch : text) {
    out += ch;
    if (ch == '{' || ch == '}') out += ch;
  }
  return out;
}
}  // namespace

Texts texts(const std::string& limit, const std::string& independent, const std::string& draws) {
  const std::string l = literal(limit), i = literal(independent), mc = "Monte Carlo over " + literal(draws);
  return {"flow endpoint within {d_fs:.2e} (relative) of " + l + ", " + i + " within {d_es:.2e}; loss {l_flow:.10g} "
          "attains the global lower bound {lower:.10g}; " + mc + ": {mc_why}",
          "flow and " + i + " lie within {d_fe:.2e} of each other but {d_fs:.3g} (relative) from " + l + "; loss there "
          "{l_flow:.10g} vs {l_stated:.10g} at the stated limit; " + mc + " {mc_mean:.6g} +/- {mc_half:.2g}",
          "mixed evidence: flow-stated {d_fs:.3g}, exact-stated {d_es:.3g}, flow-exact {d_fe:.3g}, loss gap to the "
          "global bound {gap:.3g}; " + mc + ": {mc_why}"};
}

ClaimResult run_claim(const ClaimContext& ctx, const ClaimSpec& s) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  const FlowOptions opt = flow_options(ctx.quick);
  Tally t;
  double max_time = 0, departure = NAN, drift = NAN;
  std::set<std::string> drawn;
  for (const auto& c : ctx.cases) {
    const CaseFlow f = s.run_case(r, c, alpha_case, opt);
    t.note(f.k, f.label.empty() ? c.label() : f.label);
    max_time = std::max(max_time, f.flow.t_end);
    departure = std::fmax(departure, f.departure), drift = std::fmax(drift, f.drift);  // NaN (none) gives way
    if (!f.curve.empty() && drawn.size() < s.max_curves && drawn.insert(f.curve).second) t.plot(f.flow, f.k, f.curve);
  }
  const nlohmann::ordered_json outside = s.outside ? s.outside(opt) : nlohmann::ordered_json::array();
  write_report(r, opt, s.outside_key, outside, t);
  if (s.after_cases) s.after_cases(r);
  const Outside o = outside_summary(outside);
  const std::string converged = o.within ? "still converged to " + s.limit : "did NOT always converge to " + s.limit;
  if (!outside.empty())
    r.finding(fmt::format("{}utside {}{}, the flow {} ({} runs, largest distance to {} {:.2g}).",
                          o.within ? "The condition is sufficient, not necessary: o" : "O", s.condition,
                          o.largest_factor > 0 ? fmt::format(", with sigma up to {:g} times its bound", o.largest_factor) : "",
                          converged, outside.size(), s.limit, o.worst));
  return r.finish([&](Verdict v) {
    return fmt::format(
        "{}: over {} cases{} the flow's endpoint lies at most {:.2g} (relative) from {} (case {}); longest time to "
        "converge {:.3g}{}{}.{}",
        to_string(v), ctx.cases.size(), s.cases_words ? s.cases_words() : "", t.worst_dist,
        s.limit, t.worst.empty() ? "-" : t.worst, max_time,
        std::isnan(departure) ? "" : fmt::format("; largest departure from {} {:.1e}, {} drift {:.1e}", s.invariant,
                                                 departure, s.conserved, drift),
        s.detail ? s.detail() : "",
        outside.empty() ? "" : fmt::format(" Outside {} the flow {} (largest distance {:.2g}).", s.condition, converged, o.worst));
  });
}

ClaimTable table(const std::string& where, const std::string& latex_title,
                 std::map<std::string, std::string> param_headers,
                 std::map<std::string, std::map<std::string, std::string>> param_values) {
  return {TableKind::equality,
          where,
          latex_title,
          {{"distance_flow_to_stated", "Distance", "relative distance, flow endpoint to the stated limit"},
           {"stated", "$L(W^*)$", "loss at the stated limit $W^*$"},
           mc_column()},
          std::move(param_headers),
          std::move(param_values)};
}

}  // namespace icl::flow_limit
