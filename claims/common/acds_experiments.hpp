// acds.exp43 (Sec. 4.3) and acds.exp51 (Sec. 5.1): the trained runs of constructions/acds_training.hpp judged part by
// part. Statistics over runs: an asserted comparison is judged on one number per run (e.g. a final loss, or a paired
// difference of two Dists in the same run) by a one-sample Student t interval over the runs
// (`over_runs`, then verdict/decision.hpp's judge_mc_upper_bound / judge_mc_lower_bound with the interval at
// confidence 1 - alpha'), and the binomial sign test's one-sided p-value is reported beside it
// (`sign_test_p`).
#pragma once
#include "constructions/acds_training.hpp"
#include "icl/claim/claim.hpp"
#include "icl/verdict/over_trials.hpp"

#include <vector>

namespace icl::acds_exp {

// acds.exp43 (form (8), n = 20) and acds.exp51 (form (11), n = 10): the whole claim. Parameters read from each
// case: n, runs, steps, batch, resample (see the claims' ParamSpecs). Parts:
//   exp43: a loss -> almost 0; b Dist(S^1/2 A_i S^1/2, I) -> 0; c Dist(A_i, I) stays away from 0.
//   exp51: the same a, b, c, and d Dist(B_i, I) -> 0, e ||A_0|| < ||A_1|| < ||A_2||.
ClaimResult run_training_experiment(const ClaimContext& ctx, bool form11);
// Their parameters (the paper's n: 20 for exp43, 10 for exp51).
std::vector<ParamSpec> training_experiment_params(int paper_n);

}  // namespace icl::acds_exp
