// sja.remark1 — Sun, Jadbabaie, Azizan (000), Remark 1 (a consequence of Proposition 4).
//
// Statement: for the quadratic task, if the embedding width dbar < C(d+2,2), then
// L(BTFB) >= C(d+2,2) - dbar (for every bilinear layer of width dbar, every attention layer, every n).
//
// Judged at its worst case (lib/icl/exact/lower_bounds.hpp): a bilinear layer of width dbar has features whose
// projection onto span{v_ij} has dimension <= dbar, so over the whole family the infimum of the loss is the
// sum of the m - dbar smallest eigenvalues of C = Cov(wbar) (wbar: the target's coefficients in the v
// basis), approached as n -> infinity by the explicit width-dbar layer of constructions/sja_lower_bound.hpp.
// stated      m - dbar.
// exact       that infimum.
// mc          the explicit layer (weights in the JSON) with its exactly optimal attention, at this n,
//             through the real forward pass; exact_construction is its exact loss at this n.
// corrected   the corrected bound m - dbar - 1 + lam-, lam- = (d+3 - sqrt((d+3)^2-8))/2 (dbar >= d + 1).
// Where the paper goes wrong: Remark 1 inherits Prop. 4's error (App. E: Cov(wbar) has off-diagonal
// entries sqrt2, not 1, so its smallest eigenvalue is lam- < 1); see sja.prop4.
//
// Refutation class: substantive, as sja.prop4's. Remark 1 reads
//   "As an immediate consequence of Proposition 4, if the prompt’s embedding dimension \bar{d} is less than
//    \binom{d+2}{2}, then the ICL loss is lower bounded by \mathcal{L}(\mathsf{BTFB})\geq\binom{d+2}{2}-\bar{d}."
// (seed 000, Remark 1; formulas in the seed's LaTeX)
// The stated bound is false for every d and every width d+1 <= dbar < C(d+2,2) (e.g. d = 2, dbar = 5: an
// explicit width-5 layer reaches 0.869 < 1 at n = 400); the corrected bound C(d+2,2) - dbar - 1 + lam- is
// verified. The remark's reasoning (width bounds the projected dimension) is right; the number it inherits
// from Prop. 4 is not, and no typo in the remark gives the true number.
#include "claims/common/sja_lower_bound_case.hpp"
#include "constructions/sja_appC.hpp"
#include "constructions/sja_lower_bound.hpp"
#include "icl/exact/lower_bounds.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/prompt.hpp"
#include "icl/verdict/checks.hpp"

#include <algorithm>

namespace icl::sja_remark1 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

// The corrected bound for width dbar >= d + 1 (so that m - dbar <= d(d+1)/2 + 1 eigenvalues are summed:
// lam- and then ones).
double corrected_bound(int d, int dbar) { return sja::kernel_width(d) - dbar - 1 + sja::lambda_minus(d); }

ClaimResult run(const ClaimContext& ctx) {
  LowerBoundClaimSpec spec;
  spec.family_param = "dbar";  // the width, the largest projected dimension
  spec.out_of_range = [](int d, int dbar) {
    const int m = sja::kernel_width(d);
    return dbar >= m || dbar < d + 1 ? fmt::format("dbar must be in [d+1, C(d+2,2)-1] = [{}, {}]", d + 1, m - 1)
                                     : std::string();
  };
  spec.corrected = corrected_bound;
  spec.not_in_family = [](const BlockEvaluation& e, int dbar) {
    return e.projected_dim != dbar || e.dbar != dbar
               ? fmt::format("INTERNAL: the construction has width {} and projected dimension {}, not {}", e.dbar,
                             e.projected_dim, dbar)
               : std::string();
  };
  spec.layer_text = [](const BlockEvaluation& e, int) { return fmt::format("width {}", e.dbar); };
  spec.bound_text = "C(d+2,2) - dbar";
  spec.corrected_formula = "L >= C(d+2,2) - dbar - 1 + (d+3 - sqrt((d+3)^2-8))/2 for d+1 <= dbar < C(d+2,2)";
  spec.refutation = Refutation{
      RefutationClass::substantive,
      "The bound C(d+2,2) - dbar is false for every width d+1 <= dbar < C(d+2,2): an explicit width-dbar bilinear layer "
      "with its optimal attention goes below it. Remark 1 inherits Prop. 4's error (App. E: Cov(wbar) has "
      "off-diagonal entries sqrt2, not 1, so its smallest eigenvalue is lam- < 1).",
      {},
      ""};
  spec.finding =
      "Remark 1 fails for every d and every width d+1 <= dbar < C(d+2,2): an explicit width-dbar bilinear layer "
      "spanning the top eigenspace of Cov(wbar) approaches C(d+2,2) - dbar - 1 + lam- < C(d+2,2) - dbar as n grows "
      "(lam- = 2 - sqrt2 at d = 1). Inherits Prop. 4's error in App. E.";
  return run_lower_bound_claim(ctx, spec);
}

const RegisterClaim reg{Claim{
    .id = "sja.remark1",
    .title = "Width dbar < C(d+2,2) forces loss >= C(d+2,2) - dbar",
    .source = "Sun, Jadbabaie and Azizan (2025), Remark 1 (after Proposition 4)",
    .statement = "If the prompt's embedding dimension dbar is less than C(d+2,2), then L(BTFB) >= C(d+2,2) - dbar.",
    .params = {ParamSpec{"d", {1, 2, 3}, {2}, 1, 4, true, "input dimension"},
     ParamSpec{"dbar", {2, 3, 4, 5, 7, 9}, {5}, 2, 20, true,
               "embedding width (cases outside [d+1, C(d+2,2)-1] are skipped)"},
     ParamSpec{"n", {1000}, {400}, 1, 1e6, true, "context length"}},
    .default_samples = 200000,
    .quick_samples = 50000,
    .memory_bytes = [](const Case& c, int threads) {
      const int d = c.geti("d"), dbar = std::max(c.geti("dbar"), d + 1);
      return threads * sja_shape(d, dbar, c.geti("n")).workspace_bytes();
    },
    .run = run,
    .parts = {PartSpec{"a",
              "If the prompt's embedding dimension dbar is less than C(d+2,2), then L(BTFB) >= C(d+2,2) - dbar, for "
              "every bilinear layer of width dbar, every attention layer and every n.",
              Strength::theorem}},
    .table = lower_bound_table("Remark~1", "Width $\\bar d < \\binom{d+2}{2}$ forces $L \\ge \\binom{d+2}{2}-\\bar d$")}};

}  // namespace icl::sja_remark1
