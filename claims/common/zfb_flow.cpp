#include "claims/common/zfb_flow.hpp"

#include "icl/claim/case_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl::zfb {

void append_flow_case_json(CaseJson& j, const PopulationLoss& pl, const LsaWeights& stated, const FlowCase& f) {
  const LsaWeights& exact = f.exact;
  const ZfbFlow& z = f.z;
  const EqualityOutcome& o = f.o;
  const int d = stated.d();
  const bool converged = z.flow.status == FlowStatus::converged;
  const double l_flow = pl.loss(z.end), l_stated = pl.loss(stated), lower = pl.tensor_lower_bound();
  j.quantity("stated", l_stated);
  j.quantity("exact", l_flow);
  j.quantity("mc", o.mc);
  j.quantity("stated_kq", stated.kq);
  j.quantity("stated_pv_dd", stated.pv(d, d));
  j.quantity("exact_kq", exact.kq);
  j.quantity("exact_pv_dd", exact.pv(d, d));
  j.quantity("flow_kq", z.end.kq);
  j.quantity("flow_pv", z.end.pv);
  j.quantity("distance_flow_to_stated", relative_distance(z.end, stated));
  j.quantity("distance_exact_to_stated", relative_distance(exact, stated));
  j.quantity("distance_flow_to_exact", relative_distance(z.end, exact));
  j.quantity("global_min_lower_bound", lower);
  j.quantity("loss_gap_to_global_min", l_flow - lower);
  j.quantity("time_to_converge", converged ? z.flow.t_end : NAN);
  j.decisions(o);
  j.decision("limit_vs_stated", f.limit);
  j.verdict(f.verdict);
  j.field("reduced_form", z.reduced.to_json());
  j.json()["reduced_form"]["stayed"] = z.reduced.max_off_reduced <= 1e-12;
  const auto [clo, chi] = curvature_range(pl, z.end);
  j.field("curvature_at_endpoint", nlohmann::ordered_json{{"min_nonzero", clo}, {"max", chi}, {"ratio", chi / clo}});
  j.field("flow", z.flow.to_json());
}

FlowCase run_flow_case(const ClaimContext& ctx, double alpha_case, const PopulationLoss& pl, const LsaWeights& init,
                       const LsaWeights& stated, const FlowOptions& opt, const LsaPromptModel& prompts,
                       const std::string& tag, const flow_limit::Texts& texts, const flow_limit::Tolerances& tol) {
  FlowCase f;
  f.exact = reduced_form_limit(pl, init);
  f.z = zfb_gradient_flow(pl, init, stated, opt);
  f.converged = f.z.flow.status == FlowStatus::converged;
  f.distance_to_stated = relative_distance(f.z.end, stated);
  f.loss_flow = pl.loss(f.z.end), f.loss_stated = pl.loss(stated), f.global_lower_bound = pl.tensor_lower_bound();
  const std::uint64_t purpose = ctx.purpose(tag);
  auto make_worker = [&] { return LsaPromptWorker(f.z.end, prompts, ctx.seed, purpose); };
  // Budget moves to the cases that need it: a case whose Monte Carlo-vs-exact decision is still open at
  // ctx.samples runs on, doubling, up to 4 ctx.samples (at --quick a true case otherwise stays inconclusive
  // about one time in four: the detectable discrepancy there is about twice the band).
  f.o = sequential_equality(ctx, alpha_case, f.loss_stated, f.loss_flow, flow_limit::mc_tolerance(), Tolerance{1e-9, 1e-12},
                            prompts.dims(), 0, 4096, make_worker, 16384, true, 4 * ctx.samples);
  const flow_limit::Numbers k = flow_limit::numbers(f.z.flow, f.z.end.theta(), stated.theta(), f.exact.theta(), f.loss_flow,
                                                     f.loss_stated, f.global_lower_bound);
  f.limit = flow_limit::limit_decision(k, tol);
  f.verdict = flow_limit::verdict(k, f.o, f.limit, texts);
  return f;
}

}  // namespace icl::zfb
