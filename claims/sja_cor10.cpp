// sja.cor10 — Sun, Jadbabaie, Azizan (000), Corollary 10 (Appendix A).
//
// Statement: for the general nonlinear ICL task, a deep Transformer with dbar = d + h + 1 implements
// block-coordinate descent over kernel regression: yhat^(l) = Z^(2l)[dbar+1, n+1] = f(x_q; w^(l)), w^(l)
// the iterates of (9), whose feature subsets are the intermediate activations of the neural network
// (hidden width h) obtained by stacking the Transformer's feed-forward layers.
//
// How it is checked (an identity; the setting, the check of one prompt and of a case are constructions/sja_cor10:
// cor10_setup, cor10_check_prompt, cor10_check_case): per case a feature network of L bilinear layers is drawn (A0_l,
// A1_l with N(0, 1/(4 (1+d+h))) entries, reading 1, x and the hidden units, writing the hidden units); its activations
// are derived independently as exact polynomials (lib/icl/exact/symbolic_forward: polynomial algebra, not the matrix
// forward pass) and evaluated at each input. The reference is block-coordinate descent
// (lib/icl/exact/block_coordinate_descent, long double) on
// L(w) = (1/2n) sum (f(x_i; w) + y_i)^2 with f(x; w) = sum_l w_l^T (1, x, h^(l)(x)) (one coefficient
// block per layer; repeated features are harmless: the prediction does not depend on the
// parametrisation), block l = layer l's activation, eta^(l) = -Gamma^(l)^T. Prompts alternate
// between Gamma^(l) = -(Lambda_l + r I)^{-1} (Lambda_l = E[u_l u_l^T] of layer l's activation u_l, estimated
// once per case from 4096 fixed inputs, ridge r = 1e-3 tr(Lambda_l)/dbar) and a random non-symmetric
// Gamma^(l) of the same scale.
// Labels: y = sum of the network's activations with N(0, 1) weights plus N(0, 1) noise (the identity
// needs nothing of them). Every intermediate output is compared: rows 1 and x unchanged, hidden rows
// = h^(l)(x) after bilinear layer l and unchanged by attention, label row = y_i + f(x_i; w^(l)).
//
// Quantities: `stated` = f(x_q; w^(L)) (reference) and `exact` = the forward pass at the worst prompt;
// `max_rel_error` (label rows, relative to the sum of absolute terms of each entry),
// `max_hidden_error` (hidden rows against the polynomials, relative to their absolute-term sums),
// `max_rel_error_query` (plain, final prediction), `reference_self_error`, `feature_degree`.
#include "constructions/sja_cor10.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/identity.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace icl::sja_cor10 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

using E = sja::Cor10Prompt;  // the error kinds

// Per case: the worst of each error over the prompts (those out of the double range set aside), judged as two
// identities (claim/kinds/identity.hpp judge_identities: confirmed at most 1e-9, refuted at least 1e-6): the label
// rows against block-coordinate descent, and the hidden and carried rows; the case is confirmed where both are,
// refuted where either is. `stated` and `exact` are the reference's and the forward pass's predictions at the worst
// label prompt.
ClaimResult run(const ClaimContext& ctx) {
  IdentityClaimSpec spec;
  spec.tolerance_text = identity_tolerance_text(spec.tol, "long double reference on the exact polynomial features");
  spec.check = [&](const Case& c, CaseJson& j) {
    // The case's setting and its prompts' worst errors; stated, exact, the errors, feature_degree (header above).
    const WorstCase wc = sja::cor10_check_case(ctx, c, j);
    return IdentityCase{wc,
                        {{"labels", wc.worst[E::kLabels], "label rows vs block-coordinate descent"},
                         {"rows", std::max(wc.worst[E::kHidden], wc.worst[E::kTop]),
                          "hidden rows = network activations; 1, x and carried rows unchanged"}},
                        fmt::format(". Worst label error at prompt {}.", wc.where[E::kLabels])};
  };
  spec.after_cases = [](ClaimRun& r) {
    r.finding(fmt::format("Hidden rows equal the feature network's activations (degrees up to {}) to {:.2g}; label rows "
                          "equal block-coordinate descent over the activations to {:.2g} (final prediction {:.2g}).",
                          static_cast<int>(max_quantity(r.cases(), "feature_degree")),
                          max_quantity(r.cases(), "max_carried_row_change", max_quantity(r.cases(), "max_hidden_error")),
                          max_quantity(r.cases(), "max_rel_error"), max_quantity(r.cases(), "max_rel_error_query")));
  };
  spec.summary = [](Verdict v, const ClaimRun& r) {
    return fmt::format("{}: the stack is block-coordinate descent over its own feature network's activations; worst "
                       "relative error {:.2g} (features up to degree {}).",
                       to_string(v), max_quantity(r.cases(), "max_rel_error"),
                       static_cast<int>(max_quantity(r.cases(), "feature_degree")));
  };
  return run_identity_claim(ctx, spec);
}

const RegisterClaim reg{Claim{
    .id = "sja.cor10",
    .title = "Width d+h+1 stack = block-coordinate descent over kernel regression",
    .source = "Sun, Jadbabaie and Azizan (2025), Corollary 10 (Appendix A)",
    .statement = "For the general nonlinear ICL task, a deep Transformer with dbar = d + h + 1 implements block-coordinate descent "
    "over kernel regression: yhat^(l) = f(x_q; w^(l)) with w^(l) the iterates of (9), the feature subsets being the "
    "intermediate activations of the network obtained by stacking its feed-forward layers.",
    .params = {ParamSpec{"d", {1, 3}, {2}, 1, 16, true, "input dimension"},
     ParamSpec{"h", {1, 4}, {3}, 1, 32, true, "hidden units (dbar = d + h + 1)"},
     ParamSpec{"L", {1, 2, 3}, {2}, 1, 4, true, "feed-forward layers (blocks)"},
     ParamSpec{"n", {3, 40}, {5}, 1, 10000, true, "context length"}},
    .default_samples = 2000,
    .quick_samples = 40,
    .memory_bytes = [](const Case& c, int threads) {
      return threads * 8.0 * 20 * (c.geti("d") + c.geti("h") + 2.0) * (c.geti("n") + 1.0) * c.geti("L");
    },
    .run = run,
    .parts = {PartSpec{"a",
              "A deep Transformer with dbar = d + h + 1 implements block-coordinate descent over kernel regression: "
              "yhat^(l) = f(x_q; w^(l)), w^(l) the iterates of (9) over the feed-forward network's intermediate "
              "activations.",
              Strength::theorem}},
    .table = ClaimTable{TableKind::identity,
          "Corollary~10",
          "Width $d+h+1$ stack $=$ block-coordinate descent (kernel regression)",
          {{"max_rel_error", "Max.\\ rel.\\ error", "forward pass vs.\\ BCD"},
           {"feature_degree", "Degree", "largest feature degree"}}}}};

}  // namespace icl::sja_cor10
