// What zfb.thm4, zfb.thm8 and zfb.shift share of a gradient-flow case (the flow and its limits are in
// constructions/zfb_flow.hpp): the case's JSON, its verdict against the stated limit, the plots, and one case from start
// to verdict.
#pragma once
#include "constructions/zfb_flow.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/exact/gradient_flow.hpp"
#include "icl/claim/claim.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/exact/lsa_population_loss.hpp"
#include "icl/montecarlo/lsa_prompt_worker.hpp"
#include "icl/report/svg_plot.hpp"
#include "icl/verdict/checks.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace icl::zfb {

// The verdict of one flow case (run_flow_case) is worded by the claim: `texts` are fmt format strings with the named
// arguments d_fs, d_es, d_fe (relative distances flow-stated, exact-stated, flow-exact), l_flow, l_stated, lower,
// gap (= l_flow - lower), mc_mean, mc_half, mc_why.
struct FlowVerdictTexts {
  std::string confirmed, refuted, mixed;
};
struct FlowTolerances {
  double limit = 1e-5;  // relative distance of the flow's endpoint to a limit
  double exact = 1e-9;  // relative distance of two exact computations
  double far = 1e-3;    // a limit this far away is a different limit
  // These and the flow's gradient tolerance, for the report.
  nlohmann::ordered_json to_json(const FlowOptions& opt) const {
    return {{"limit_relative", limit}, {"exact_relative", exact}, {"different_limit", far},
            {"gradient_norm_to_stop", opt.grad_tol}};
  }
};

// Appends the flow's loss gap to the global minimum and its distance to the stated limit against time to two
// plots, as series named `name`.
void add_flow_plot_series(const ZfbFlow& z, double lower, const std::string& name, std::vector<PlotSeries>& loss_plot,
                          std::vector<PlotSeries>& dist_plot);

// extra "plots" and "figures", and the SVG files, of a flow claim (zfb.thm4, zfb.thm8): the two plots above. The
// curves' data go into the report (figures), from which `icl-verify report` redraws the SVGs and
// reports/plot_figures.py draws PDFs.
void write_flow_plots(ClaimRun& r, const std::vector<PlotSeries>& loss_plot, const std::vector<PlotSeries>& dist_plot);

// One flow case of zfb.thm4 / zfb.thm8 from start to verdict: the flow from `init`, the exact reduced-form limit,
// the loss at the endpoint by Monte Carlo through the forward pass (prompts drawn as `prompts` says, stream `tag`
// of the claim; 5% tolerance against the stated and the exact loss), and two decisions:
//   limit    (the case's decision "limit_vs_stated", exact): confirmed when the flow's endpoint and the exact
//            reduced-form limit are both within tolerance of the stated limit and the endpoint's loss attains the
//            global lower bound; refuted when both lie far from it, within tolerance of each other;
//   verdict  the case's: confirmed when `limit` is and Monte Carlo is within its band of the stated and exact losses
//            (basis: limit_vs_stated, exact_vs_stated, mc_vs_stated); refuted when `limit` is and Monte Carlo does
//            not exclude the exact loss (basis: limit_vs_stated); inconclusive otherwise.
struct FlowCase {
  LsaWeights exact;  // the reduced-form limit
  ZfbFlow z;
  EqualityOutcome o;
  Decision verdict, limit;
  bool converged = false;
  double distance_to_stated = 0, loss_stated = 0, loss_flow = 0, global_lower_bound = 0;
};
FlowCase run_flow_case(const ClaimContext& ctx, double alpha_case, const PopulationLoss& pl, const LsaWeights& init,
                       const LsaWeights& stated, const FlowOptions& opt, const LsaPromptModel& prompts,
                       const std::string& tag, const FlowVerdictTexts& texts, const FlowTolerances& tol = {});
// The part of a flow case's JSON shared by zfb.thm4 and zfb.thm8, appended to j in this order: the quantities (losses
// at the stated limit and at the flow's endpoint, Monte Carlo, the stated / exact / flow limits, their distances, the
// lower bound on the global minimum and the gap to it, the time to converge), decisions, verdict, reduced_form,
// curvature_at_endpoint and flow. Recomputes the losses, distances and curvature from pl (deterministic).
void append_flow_case_json(CaseJson& j, const PopulationLoss& pl, const LsaWeights& stated, const FlowCase& f);
// The Monte Carlo tolerance of run_flow_case (for the report's error rates).
inline Tolerance flow_mc_tolerance() { return Tolerance{0.05, 0.0}; }

}  // namespace icl::zfb
