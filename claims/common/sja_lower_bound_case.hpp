// One feed-forward + attention block evaluated against a stated lower bound (evaluate_block; sja.cor9's member case:
// judge_block_member), and the run shared by sja.prop4 and sja.remark1: the stated lower bound k = C(d+2,2) - dt over a
// family of bilinear layers (projected dimension dt, or width dbar), judged at its worst case (the infimum over
// the family) and against the explicit construction evaluated at context length n (lib/icl/exact/lower_bounds.hpp),
// together with the corrected bound's check and the case's JSON.
#pragma once
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/family_bound.hpp"
#include "constructions/sja_lower_bound.hpp"
#include "icl/exact/lower_bounds.hpp"
#include "icl/layers/network.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/conditional_equality.hpp"
#include "icl/verdict/decision.hpp"

#include <functional>
#include <string>
#include <utility>

namespace icl {

// One feed-forward (bilinear) + attention block on the sja embedding, evaluated at context length n with its exactly
// optimal sparse attention: exact quantities and a Monte Carlo run through the real forward pass, judged against a
// stated lower bound (within bound_tol: a bound can be tight) and its exact loss (within 3%): conditional Monte Carlo,
// verdict/conditional_equality.hpp conditional_lower_bound_with_exact.
struct BlockEvaluation : sja::BlockExact, ConditionalBoundWithExact {  // exact: constructions/sja_lower_bound.hpp
  BlockEvaluation() = default;
  explicit BlockEvaluation(sja::BlockExact exact) : sja::BlockExact(std::move(exact)) {}
};

BlockEvaluation evaluate_block(const ClaimContext& ctx, double alpha, const GaussianIclModel& model,
                               const std::vector<Poly>& v, const Eigen::MatrixXd& C, const BilinearLayer& layer, int d,
                               int n, double stated, const std::string& tag, const Tolerance& bound_tol = Tolerance{0.02, 0.0});

// A claim's explicit block on the basis v as the member of a family of projected dimension dt (sja.cor9), judged
// (judge_block_member) against `stated` and the family's exact `infimum`.
struct BlockMember {
  GaussianIclModel model;
  std::vector<Poly> v;
  Eigen::MatrixXd C;
  BilinearLayer layer;
  std::string description;  // the construction's, for the case
  int d = 0, n = 0, dt = 0;
  double stated = 0, infimum = 0;
  std::string member;  // in the evidence: "the explicit kernel"
};
// Evaluates the block at n (its looks noted in r) and writes the case: the kind's quantities, construction_limit,
// mc_plain, linearity_check_rms, `own` (the claim's quantities), construction, weights, projected_dimension, the
// verdict and the looks. Returns the kind's case.
family_bound::Case judge_block_member(ClaimRun& r, double alpha, const Case& c, CaseJson& j, const BlockMember& b,
                                      const std::function<void(CaseJson&)>& own);

// What distinguishes sja.prop4 (a family of projected dimension dt) from sja.remark1 (a family of width
// dbar): everything else of their runs is run_lower_bound_claim.
struct LowerBoundClaimSpec {
  std::string family_param;  // the case parameter that names the family's dimension: "dt" or "dbar"
  // Empty if the case (d, family dimension) is in range; otherwise why it is skipped (ClaimRun::judge_cases).
  std::function<std::string(int d, int dt)> out_of_range;
  std::function<double(int d, int dt)> corrected;  // the corrected bound
  bool random_layers_within_rank = false;  // random layers of the family: keep only those of projected rank <= dt
  // Empty if the explicit construction belongs to the family; otherwise the internal error (default:
  // projected_dimension_error).
  std::function<std::string(const BlockEvaluation& e, int dt)> not_in_family;
  std::function<std::string(const BlockEvaluation& e, int dt)> layer_text;  // "width 5", for the evidence
  std::string bound_text;                                                    // "C(d+2,2) - dbar"
  std::string corrected_formula;
  std::string finding;
  // How a failure of the bound is classed (class, explanation); the counterexample is the first refuted case,
  // `corrected` is set to corrected_formula when the corrected bound holds in every case.
  Refutation refutation;
};

// Every case: the quadratic task, the bound C(d+2,2) - dt, the explicit layer of constructions/sja_lower_bound
// evaluated at n, judged by the family lower-bound kind with the corrected bound's check beside it.
ClaimResult run_lower_bound_claim(const ClaimContext& ctx, const LowerBoundClaimSpec& spec);
// Their LaTeX table (claim/table.hpp): a bound table of the stated bound, the exact infimum, the construction by Monte
// Carlo and the corrected bound, under `label` ("Remark~1") and `caption`.
ClaimTable lower_bound_table(const std::string& label, const std::string& caption);

}  // namespace icl
