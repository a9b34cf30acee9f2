#include "claims/common/zfb_flow.hpp"

#include "icl/claim/case_json.hpp"

#include <cmath>

namespace icl::zfb {
namespace {

void append_flow_case_json(CaseJson& j, const PopulationLoss& pl, const LsaWeights& stated, const FlowCase& f) {
  const LsaWeights& exact = f.exact;
  const ZfbFlow& z = f.z;
  const flow_limit::Numbers& k = f.k;
  const int d = stated.d();
  j.quantity("stated", k.l_stated).quantity("exact", k.l_flow).quantity("mc", f.o.mc);
  j.quantity("stated_kq", stated.kq).quantity("stated_pv_dd", stated.pv(d, d));
  j.quantity("exact_kq", exact.kq).quantity("exact_pv_dd", exact.pv(d, d));
  j.quantity("flow_kq", z.end.kq).quantity("flow_pv", z.end.pv);
  j.quantity("distance_flow_to_stated", k.d_fs).quantity("distance_exact_to_stated", k.d_es);
  j.quantity("distance_flow_to_exact", k.d_fe).quantity("global_min_lower_bound", k.lower);
  j.quantity("loss_gap_to_global_min", k.l_flow - k.lower);
  j.quantity("time_to_converge", k.converged ? z.flow.t_end : NAN);
  j.decisions(f.o);
  j.decision("limit_vs_stated", f.limit);
  j.verdict(f.verdict);
  j.field("reduced_form", z.reduced.to_json());
  j.json()["reduced_form"]["stayed"] = z.reduced.max_off_reduced <= 1e-12;
  const auto [clo, chi] = curvature_range(pl, z.end);
  j.field("curvature_at_endpoint", nlohmann::ordered_json{{"min_nonzero", clo}, {"max", chi}, {"ratio", chi / clo}});
  j.field("flow", z.flow.to_json());
}

}  // namespace

FlowCase judge_flow_case(ClaimRun& r, const Case& c, double alpha_case, const FlowSetting& s, const FlowOptions& opt,
                         const flow_limit::Texts& texts, const std::function<void(CaseJson&)>& fields) {
  const ClaimContext& ctx = r.ctx();
  const PopulationLoss& pl = s.pl;
  const LsaWeights& stated = s.stated;
  FlowCase f;
  f.exact = reduced_form_limit(pl, s.init);
  f.z = zfb_gradient_flow(pl, s.init, stated, opt);
  f.k = flow_limit::numbers(f.z.flow, f.z.end.theta(), stated.theta(), f.exact.theta(), pl.loss(f.z.end), pl.loss(stated),
                            pl.tensor_lower_bound());
  const std::uint64_t purpose = ctx.purpose(c.label());
  auto make_worker = [&] { return LsaPromptWorker(f.z.end, s.prompts, ctx.seed, purpose); };
  // Budget moves to the cases that need it: a case whose Monte Carlo-vs-exact decision is still open at
  // ctx.samples runs on, doubling, up to 4 ctx.samples (at --quick a true case otherwise stays inconclusive
  // about one time in four: the detectable discrepancy there is about twice the band).
  f.o = sequential_equality(ctx, alpha_case, f.k.l_stated, f.k.l_flow, flow_limit::mc_tolerance(), Tolerance{1e-9, 1e-12},
                            s.prompts.dims(), 0, 4096, make_worker, 16384, true, 4 * ctx.samples);
  f.limit = flow_limit::limit_decision(f.k, flow_limit::Tolerances{}, "exact reduced-form limit");
  f.verdict = flow_limit::verdict(f.k, f.o, f.limit, texts);
  r.note_looks(f.o.looks_planned);
  CaseJson j(c);
  fields(j);
  append_flow_case_json(j, pl, stated, f);
  r.add_case(j);
  return f;
}

}  // namespace icl::zfb
