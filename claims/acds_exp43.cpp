// acds.exp43 — Ahn, Cheng, Daneshmand, Sra (002), Section 4.3 and Figures 1-2.
//
// The experiment: d = 5, n = 20, x ~ N(0, Sigma), w ~ N(0, Sigma^-1), Sigma = U^T D U (U uniformly random
// orthogonal, D = diag(1, 1, 0.25, 0.0625, 1)); a three-layer linear Transformer in form (8) trained with Adam
// from i.i.d. Gaussian A_i, minibatch 20000 resampled every 100 steps, each matrix's gradient clipped to 0.01,
// 5 runs each with its own U. The paper asserts (a) the loss converges to "an almost 0 value", (b)
// Dist(Sigma^1/2 A_i Sigma^1/2, I) -> 0 (the Thm. 3 critical point A_i = a_i Sigma^-1), (c) Dist(A_i, I) "remains
// constant", away from 0 (the trained network is not plain GD).
//
// We re-run it with the project's trainer (constructions/acds_training.hpp, judged in
// claims/common/acds_experiments.hpp). Default: reduced minibatch and
// steps (2 cores; `training.paper_settings_differences` lists every difference), the paper's settings with
// --set batch=20000 (runs=5, resample=100 are the defaults). Each asserted comparison is judged over the runs by
// a one-sample t interval of one number per run (the sign test's p-value is reported beside it), at the claim's
// alpha split over every decision of the run (Bonferroni):
//   a  final TRAINING loss (the minibatch loss of the last curve window: what Fig. 1d plots) / E[y_q^2] <= 0.1.
//      The fresh-prompt mean is not decided on: these trained networks' per-prompt loss is heavy-tailed (an
//      independent run found 0.1% of prompts carrying 99% of the summed loss), so its mean measures the tail; it is
//      reported beside the decision with the median and the tail's share (runs[].test_loss_distribution).
//      E[y_q^2] = d is the loss of the zero
//      predictor (and about the loss at a small initialisation). We read "almost 0" as at most 10% of it: the
//      architecture cannot reach 0 at n = 20 (the exact loss of the Thm. 3 family optimum is reported as
//      `family_optimum_loss`, 0.268 = 5.4% of E[y_q^2]), and the paper's Fig. 1d shows the loss falling from the
//      initial value to near the axis on a linear scale, not to a stated number;
//   b  max_i Dist(Sigma^1/2 A_i Sigma^1/2, I) at the end <= 0.1, and it fell from initialisation (both per run);
//   c  min_i Dist(A_i, I) at the end > 0.1: the red line stays above the band that parts b and d call "-> 0" (the
//      paper: it "remains constant, indicating that the trained transformer is not implementing plain gradient
//      descent"). Beside it, not decided on: the paired gap min_i [Dist(A_i, I) - Dist(Sigma^1/2 A_i Sigma^1/2, I)]
//      (whether A_i is nearer Sigma^-1 than I is part b's question; until November 2026 part c was judged on this
//      gap, a stronger statement than the paper's) and `dist_sigma_inverse`, the value Dist(A_i, I) takes at the
//      critical point.
// A refuting interval makes the part inconclusive, at any settings: the paper does not state its steps or
// learning rate, so no run of ours is known to have trained as long as the paper's; a diverged run makes every
// case inconclusive with its reason.
#include "claims/common/acds_experiments.hpp"
#include "icl/model/prompt.hpp"

namespace icl::acds_exp43 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

// The layout of the claim's LaTeX table (claim/table.hpp).
ClaimTable table_layout() {
  return with_part_text({TableKind::training,
          "Section~4.3",
          "Trained 3-layer form (8) reaches the preconditioned-GD solution",
          {{"over_runs", "Statistic over runs",
            "per run, the statistic of the row's part: (a) the final training loss$/\\mathbb{E}[y_q^2]$; (b) "
            "$\\max_i \\mathrm{Dist}(\\Sigma^{1/2}A_i\\Sigma^{1/2}, I)$; (c) $\\min_i \\mathrm{Dist}(A_i, I)$; mean over "
            "the runs $\\pm$ half-width of its interval"},
           {"bound", "Threshold", "the bound the statistic is compared with"},
           {"zero_predictor_loss", "$\\mathbb{E}[y_q^2]$", "loss of the zero predictor"},
           {"family_optimum_loss", "Family opt.", "exact optimum over the paper's family"},
           {"dist_sigma_inverse", "$\\mathrm{Dist}(\\Sigma^{-1}, I)$", "the same distance for $A=\\Sigma^{-1}$"}}},
      {
       {"a", "the training loss converges to an almost $0$ value"},
       {"b", "$\\mathrm{Dist}(\\Sigma^{1/2}A_i\\Sigma^{1/2}, I)\\to 0$ (the critical point of Theorem~3, $A_i\\propto\\Sigma^{-1}$)"},
       {"c", "$\\mathrm{Dist}(A_i, I)$ stays away from $0$ (the trained network is not plain gradient descent)"}});
}

const RegisterClaim reg{Claim{
    .id = "acds.exp43",
    .title = "Sec. 4.3: trained 3-layer form (8) -> loss ~ 0, Sigma^1/2 A_i Sigma^1/2 ~ I",
    .source = "Ahn, Cheng, Daneshmand and Sra (2023), Section 4.3, Figures 1-2",
    .statement = "d = 5, n = 20, Sigma = U^T diag(1, 1, 0.25, 0.0625, 1) U, w ~ N(0, Sigma^-1); three-layer form (8) trained with "
    "Adam (minibatch 20000 resampled every 100 steps, gradients clipped to 0.01 per matrix, 5 runs each with its own U): "
    "the loss converges to almost 0, Dist(Sigma^1/2 A_i Sigma^1/2, I) -> 0 while Dist(A_i, I) stays away from 0.",
    .params = acds_exp::training_experiment_params(20),
    .default_samples = 20000,
    .quick_samples = 4000,
    .memory_bytes = [](const Case& c, int threads) { return threads * acds_shape(5, c.geti("n")).workspace_bytes() + 8.0 * c.get("batch"); },
    .run = [](const ClaimContext& ctx) { return acds_exp::run_training_experiment(ctx, false); },
    .parts = {PartSpec{"a", "The training loss converges to an almost 0 value.", Strength::empirical},
     PartSpec{"b", "Dist(Sigma^1/2 A_i Sigma^1/2, I) converges to 0 (the critical point of Thm. 3, A_i proportional to Sigma^-1).",
              Strength::empirical},
     PartSpec{"c", "Dist(A_i, I) stays away from 0 (the trained network is not plain gradient descent).", Strength::empirical}},
    .table = table_layout()}};

}  // namespace icl::acds_exp43
