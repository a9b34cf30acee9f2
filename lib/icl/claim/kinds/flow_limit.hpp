// The flow-limit kind: "gradient flow on the population loss, from the stated initialisation, converges to the
// stated limit, a global minimum". A case is the flow's endpoint (exact/gradient_flow.hpp), the stated limit, and a
// limit computed independently of the stated formula (the claim's mathematics: an exact solve, say), all as weight
// vectors, with the loss at each and a lower bound on the global minimum; Monte Carlo through the forward pass at the
// endpoint checks the exact loss (verdict/checks.hpp sequential_equality). Two decisions:
//   limit    (exact; the case's decision "limit_vs_stated"): confirmed when the endpoint lies within `limit` and the
//            independent limit within `exact` (relative distances) of the stated limit and the endpoint's loss
//            attains the global lower bound (to 1e-9); refuted when both lie `far` from the stated limit and within
//            `limit` of each other; undecided otherwise, and whenever the flow did not converge;
//   verdict  the case's: confirmed when `limit` confirms and Monte Carlo confirms the stated loss (basis: Monte
//            Carlo's, then limit_vs_stated); refuted when `limit` refutes and Monte Carlo does not contradict the exact
//            loss at the endpoint (basis: limit_vs_stated); inconclusive otherwise.
// The evidence is worded by the claim (Texts; texts() words it from the limit's name). The kind also draws the flows' loss gap and distance against time, and
// holds a flow-limit claim's run around its cases (run_claim): its flow (flow_options), what the cases leave for the
// summary (Tally), its flows outside the theorem's condition (outside_summary), the report's blocks after the cases
// (write_report) and the evidence, finding and summary sentences (texts, run_claim).
#pragma once
#include "icl/claim/claim_run.hpp"
#include "icl/exact/gradient_flow.hpp"
#include "icl/io/svg_plot.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/checks.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace icl::flow_limit {

// fmt format strings with the named arguments d_fs, d_es, d_fe (relative distances endpoint-stated,
// independent-stated, endpoint-independent), l_flow, l_stated, lower, gap (= l_flow - lower), mc_mean, mc_half, mc_why.
struct Texts {
  std::string confirmed, refuted, mixed;
};

struct Tolerances {
  double limit = 1e-5;  // relative distance of the flow's endpoint to a limit
  double exact = 1e-9;  // relative distance of two exact computations
  double far = 1e-3;    // a limit this far away is a different limit
  // These and the flow's gradient tolerance, for the report.
  nlohmann::ordered_json to_json(const FlowOptions& opt) const {
    return {{"limit_relative", limit}, {"exact_relative", exact}, {"different_limit", far},
            {"gradient_norm_to_stop", opt.grad_tol}};
  }
};

// The exact numbers a case is decided on.
struct Numbers {
  double d_fs = 0, d_es = 0, d_fe = 0;      // relative distances (to the second of each pair)
  double l_flow = 0, l_stated = 0, lower = 0;  // losses at the endpoint and the stated limit; the global lower bound
  bool converged = false;
  std::string flow_description;  // the flow's own account (FlowResult::describe)
};
// ||a - b|| / ||b||.
double relative_distance(const Eigen::VectorXd& a, const Eigen::VectorXd& b);
Numbers numbers(const FlowResult& flow, const Eigen::VectorXd& end, const Eigen::VectorXd& stated,
                const Eigen::VectorXd& independent, double l_flow, double l_stated, double lower);

// `independent` names the independent limit in the evidence (the claim's words: "exact reduced-form limit", say).
Decision limit_decision(const Numbers& k, const Tolerances& tol, const std::string& independent = "independent limit");
Decision verdict(const Numbers& k, const EqualityOutcome& o, const Decision& limit, const Texts& texts);

// The kind's LaTeX table (claim/table.hpp): the distance of the flow's endpoint to the stated limit, the loss at the
// stated limit and Monte Carlo at the endpoint; `param_headers` and `param_values` as ClaimTable's.
ClaimTable table(const std::string& where, const std::string& latex_title,
                 std::map<std::string, std::string> param_headers = {},
                 std::map<std::string, std::map<std::string, std::string>> param_values = {});

// The Monte Carlo tolerance against the stated and the exact loss (5% relative), for the report's error rates.
inline Tolerance mc_tolerance() { return Tolerance{0.05, 0.0}; }

// The flow's loss gap to the global minimum and its distance to the stated limit against time, appended to two
// plots as series named `name`; write_plots puts them into the report (extra "plots" and "figures", from which
// `icl-verify report` redraws the SVGs and reports/plot_figures.py draws PDFs) and writes the SVG files.
void add_plot_series(const FlowResult& flow, double lower, const std::string& name, std::vector<PlotSeries>& loss_plot,
                     std::vector<PlotSeries>& dist_plot);
void write_plots(ClaimRun& r, const std::vector<PlotSeries>& loss_plot, const std::vector<PlotSeries>& dist_plot);

// The kind's flow: until ||grad L|| < 1e-10 or t = 1e7, at most 1.5 million steps (200000 at --quick); the trace from
// t = 1e-2, four points per decade (FlowOptions' own).
FlowOptions flow_options(bool quick);

// What a flow-limit claim's cases leave for its summary and its figures: the converged case farthest from the stated
// limit, and the flows drawn.
struct Tally {
  double worst_dist = 0;  // the largest distance of a converged flow's endpoint to the stated limit
  std::string worst;      // that case ("" while none)
  std::vector<PlotSeries> loss_plot, dist_plot;
  // `label` becomes `worst` when k's flow converged farther from the stated limit than worst_dist (or as far, with
  // ties_to_later).
  void note(const Numbers& k, const std::string& label, bool ties_to_later = false);
  // add_plot_series of the flow under `name`.
  void plot(const FlowResult& flow, const Numbers& k, const std::string& name);
};

// A claim's flows outside its theorem's condition, one record each with "flow" (FlowResult::to_json, its "status") and
// "distance_flow_to_stated" (and "sigma_over_bound" where it has one): whether every flow converged, whether every one
// converged within tol.limit of the stated limit, the largest distance and the largest sigma_over_bound (0: none).
struct Outside {
  bool converged = true, within = true;
  double worst = 0, largest_factor = 0;
};
Outside outside_summary(const nlohmann::ordered_json& records, const Tolerances& tol = {});

// After the cases: the report's error rates (mc_tolerance), its tolerances (with opt's gradient tolerance), the
// claim's flows outside its theorem's condition under `outside_key`, and the tally's plots (write_plots).
void write_report(ClaimRun& r, const FlowOptions& opt, const std::string& outside_key,
                  const nlohmann::ordered_json& outside, const Tally& t);

// The evidence sentences of a claim whose stated limit is named `limit` ("eq. (11)"), its independent limit
// `independent` ("exact reduced-form limit"), its Monte Carlo drawing `draws` ("prompts", "tau and prompts").
Texts texts(const std::string& limit, const std::string& independent, const std::string& draws = "prompts");

// A flow-limit claim's whole run (run_claim), around its cases. Per case, `run_case` runs and judges the case with the
// claim's binding (which adds the case's JSON to r: zfb::judge_flow_case, say; Monte Carlo at level alpha_case, the
// claim's alpha split over its cases) and returns what the kind tallies (CaseFlow). After the cases, `outside` gives
// the flows outside the theorem's condition (outside_summary's records; none: an empty array), `after_cases` adds the
// claim's findings, and the kind writes the report's blocks (write_report), the finding on the flows outside and the
// summary: "<verdict>: over <n> cases<cases_words> the flow's endpoint lies at most <worst> (relative) from <limit>
// (case <label>); longest time to converge <t>; largest departure from <invariant> <off>, <conserved> drift
// <drift><detail>. Outside <condition> the flow still converged to <limit> | did NOT always converge to <limit> (largest
// distance <worst outside>)." (the invariant clause only where a case reports it, the last sentence only where there
// are flows outside).
struct CaseFlow {
  Numbers k;
  FlowResult flow;
  std::string curve;  // the name of its curve in the plots: the first case of each name draws one ("" draws none)
  std::string label;  // the case's name in the summary ("": Case::label)
  // How far the flow left the set the proof keeps it on, and the drift of the quantity the flow conserves (NaN: none).
  double departure = NAN, drift = NAN;
};
struct ClaimSpec {
  std::string limit, condition, outside_key;  // "eq. (11)", "Assumption 3's condition on sigma", "outside_assumption_3"
  std::string invariant = "the reduced form", conserved = "balance";
  std::size_t max_curves = 16;
  std::function<CaseFlow(ClaimRun&, const Case&, double alpha_case, const FlowOptions&)> run_case{};
  std::function<nlohmann::ordered_json(const FlowOptions&)> outside{};
  std::function<void(ClaimRun&)> after_cases{};
  std::function<std::string()> cases_words{}, detail{};  // the summary's clauses after "over <n> cases" and the invariant's
};
ClaimResult run_claim(const ClaimContext& ctx, const ClaimSpec& s);

}  // namespace icl::flow_limit
