// The per-case judgement shared by sja.prop4 and sja.remark1: the stated lower bound k = C(d+2,2) - dt over a
// family of bilinear layers (projected dimension dt, or width dbar), judged at its worst case (the infimum over
// the family) and against the explicit construction evaluated at context length n (lib/icl/lower_bounds.hpp),
// together with the corrected bound's check and the case's JSON.
#pragma once
#include "icl/lower_bounds.hpp"

#include <cmath>
#include <string>

namespace icl {

struct LowerBoundCase {
  int n = 0;                             // context length
  int k = 0;                             // the stated bound, C(d+2,2) - dt
  double inf = 0;                        // the infimum of the loss over the family
  double corrected = 0;                  // the corrected bound
  double random_best_limit = INFINITY;   // best n -> infinity loss of random layers of the family (exact)
  std::string internal_error;            // non-empty: the construction is not in the family (inconclusive)
  std::string layer;                     // the construction in the evidence, e.g. "width 5"
  std::string bound;                     // the bound's formula in the evidence, e.g. "C(d+2,2) - dbar"
};

struct LowerBoundCaseResult {
  nlohmann::ordered_json json;   // the case: params, quantities, construction, verdict, evidence, decisions
  bool corrected_holds = false;  // the corrected bound equals the infimum and lies below every loss measured
};

// c: the case; e: the construction's evaluation (evaluate_block with stated = k); layer, construction: its
// weights and description.
LowerBoundCaseResult judge_lower_bound_case(const Case& c, const BlockEvaluation& e, const BilinearLayer& layer,
                                            const std::string& construction, const LowerBoundCase& in);

// Sanity check on a family of bilinear layers: the best n -> infinity loss (exact) of 20 random layers of
// width dbar drawn from the stream `tag` of the claim; layers of projected rank above max_rank (if >= 0)
// are skipped, since they are outside the family.
double random_bilinear_best_limit(const ClaimContext& ctx, const std::string& tag, const GaussianIclModel& model,
                                  const std::vector<Poly>& v, const Eigen::MatrixXd& C, int d, int dbar,
                                  int max_rank = -1);

}  // namespace icl
