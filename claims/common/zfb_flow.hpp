// What zfb.thm4 and zfb.thm8 share of a gradient-flow case (the flow and its limits are in
// constructions/zfb_flow.hpp; the decisions and plots are the flow-limit kind's): one case from start to verdict, and
// its JSON.
#pragma once
#include "constructions/zfb_cases.hpp"
#include "constructions/zfb_flow.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/exact/gradient_flow.hpp"
#include "icl/claim/claim.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/flow_limit.hpp"
#include "icl/exact/lsa_population_loss.hpp"
#include "icl/montecarlo/lsa_prompt_worker.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace icl::zfb {

// One flow case of zfb.thm4 / zfb.thm8 from start to verdict, a case of the flow-limit kind on the setting s: the flow
// from s.init, the exact reduced-form limit (the independent limit), the loss at the endpoint by Monte Carlo through
// the forward pass (prompts drawn as s.prompts says, stream c.label() of the claim; the kind's tolerance against the
// stated and the exact loss), the kind's decisions `limit` and `verdict`. Its looks are noted in r and its JSON added
// to r: the claim's `fields`, then the quantities (losses at the stated limit and at the flow's endpoint, Monte Carlo,
// the stated / exact / flow limits, their distances, the lower bound on the global minimum and the gap to it, the time
// to converge), decisions, verdict, reduced_form, curvature_at_endpoint and flow.
struct FlowCase {
  LsaWeights exact;  // the reduced-form limit
  ZfbFlow z;
  flow_limit::Numbers k;  // distances, losses and the global lower bound the decisions rest on
  EqualityOutcome o;
  Decision verdict, limit;
  // What the flow-limit kind tallies of the case (flow_limit::CaseFlow): its curve `curve` ("": none), its name `label`.
  flow_limit::CaseFlow tally(std::string curve, std::string label = "") const {
    return {k, z.flow, std::move(curve), std::move(label), z.reduced.max_off_reduced, z.reduced.max_balance_drift};
  }
};
FlowCase judge_flow_case(ClaimRun& r, const Case& c, double alpha_case, const FlowSetting& s, const FlowOptions& opt,
                         const flow_limit::Texts& texts, const std::function<void(CaseJson&)>& fields);

}  // namespace icl::zfb
