// The family-argmin kind: "a restricted family of weights holds a global minimiser of the loss over a larger, general
// family" (e.g. diagonal pairs among symmetric ones), judged on searches of an exact loss over both families. The
// binding supplies, per case, the two searches (search/minimize_from_starts.hpp: each start refined to convergence,
// the best converged start), the model and prompts, the network of a restricted member, and its own look at the best
// members found; the kind owns the rest:
//   - the decision `<restricted>_is_global`: the best restricted member's loss <= the best general member's
//     (1 + equal_rel) + equal_abs: confirmed where the general search had stopped improving (a global statement
//     resting on a search), else inconclusive; beyond, refuted where the relative gap exceeds refute_gap (a converged
//     general member beats every converged restricted one), else inconclusive; inconclusive where either search had
//     no converged start;
//   - the best restricted member's exact loss against Monte Carlo through the real forward pass (one look of
//     min(samples, mc_prompts) prompts at the case's alpha, verdict/loss_check.hpp): a contradiction makes the case
//     inconclusive (unless the decision refutes), too noisy is reported;
//   - the case's quantities (`stated` the best restricted loss, `exact` the best general loss, `mc`, `general_best`,
//     `<restricted>_best`, `relative_gap`, then the binding's), its decisions, both searches' start losses and
//     multi-start profiles, and the run's tally for the findings and summary.
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/claim/parts.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/search/minimize_from_starts.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace icl::family_argmin {

// The words of the evidence and the names of the case's keys: "best <restricted> <member>", "<general> <member>".
struct Names {
  std::string general = "general", restricted = "restricted", member = "member";
};

struct Rule {
  double equal_rel = 1e-10, equal_abs = 1e-14;  // restricted best <= general best (1 + equal_rel) + equal_abs: as good
  double refute_gap = 1e-8;                     // relative gap beyond which the general best refutes
  Tolerance mc;                                 // the Monte Carlo loss of the best restricted member vs its exact loss
  std::uint64_t mc_prompts = 32768;             // its prompts (at most the claim's samples)
  double first_start_rel = 1e-8;                // the first start "ends worse" where its loss exceeds the best by this
};

// One case's searches, the binding's: over the general and the restricted family, on the same exact loss, from the
// same number of starts; the model and prompts of the Monte Carlo check and the network of a restricted member.
struct Searches {
  StartsMinimum general, restricted;
  GaussianIclModel model;
  PromptShape shape;
  std::function<Transformer(const Eigen::VectorXd& theta)> restricted_network;
};

// The binding's look at the best members found: a sentence of the evidence, its quantities (after the kind's), and a
// number whose largest over the cases the tally keeps (Tally::largest).
struct Look {
  std::string sentence;
  std::function<void(CaseJson&)> quantities;
  double tallied = NAN;
};

// What the run keeps across cases: the largest relative gap (and its case), the cases whose first start ended worse
// than the best general member (by more than first_start_rel), the largest Look::tallied (0 without one).
struct Tally {
  double worst_gap = -INFINITY;
  std::string worst;
  std::size_t first_start_worse = 0;
  double largest = 0;
};

struct Spec {
  Names names;
  Rule rule;
  int starts = 0;  // of each search
  std::function<Searches(const Case& c)> search;
  std::function<Look(const Case& c, const Searches& f, bool searched)> look;  // searched: both searches converged
  Refutation refutation;                                                      // part "a", where refuted
  std::function<std::vector<std::string>(const Tally& t)> findings;
  std::function<std::string(Verdict v, const Tally& t)> summary;
};

// The decision `<restricted>_is_global` (gap: (restricted best - general best) / general best).
Decision decide(const Spec& s, const Searches& f, bool searched, double gap);

// Every case (the claim's alpha split over them), the error rates at s.rule.mc, the refutation, the findings and the
// summary.
ClaimResult run_claim(const ClaimContext& ctx, const Spec& s);

}  // namespace icl::family_argmin
