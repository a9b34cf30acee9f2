// acds.exp51 — Ahn, Cheng, Daneshmand, Sra (002), Section 5.1, Figures 3-5 and Appendix D (Fig. 5).
//
// The experiment: as acds.exp43 (d = 5, Sigma = U^T diag(1, 1, 0.25, 0.0625, 1) U, w ~ N(0, Sigma^-1), Adam with the
// Sec. 4.3 setup, 5 runs each with its own U) but n = 10 and form (11): P_i = [B_i, 0; 0, 1], Q_i = -[A_i, 0; 0, 0],
// A_i and B_i trained. The paper asserts (a) the loss converges to about 0, (b) Dist(Sigma^1/2 A_i Sigma^1/2, I) -> 0,
// (c) Dist(A_i, I) stays away from 0 (Fig. 3d-f, red line), (d) Dist(B_i, I) -> 0 for B_0, B_1 (B_2 does not reach the
// prediction, footnote 4), (e) ||A_0|| < ||A_1|| < ||A_2|| (Sec. 5.1 item 2, App. D).
// The paper contradicts itself on the optimiser: the text trains "using ADAM with the same setup as in Subsection
// 4.3", while Fig. 3c plots "the in-context loss through the iterations of L-BFGS". We follow the text (Adam); the
// report's `training.paper_optimizer_note` says so.
//
// Judged as acds.exp43 (claims/common/acds_experiments.hpp): per run one number, a one-sample t interval over the
// runs at the claim's alpha split over every decision (Bonferroni), the sign test's p-value beside it:
//   a  final training (minibatch) loss / E[y_q^2] <= 0.1 ("about 0", read and reported as in acds.exp43: the fresh-
//      prompt mean, median and tail share beside it);
//   b  max_i Dist(Sigma^1/2 A_i Sigma^1/2, I) <= 0.1 at the end, and it fell from initialisation;
//   c  min_i Dist(A_i, I) at the end > 0.1 (as acds.exp43: the red line stays above the "-> 0" band; the paired gap
//      min_i [Dist(A_i, I) - Dist(Sigma^1/2 A_i Sigma^1/2, I)] is reported beside it, not decided on);
//   d  max(Dist(B_0, I), Dist(B_1, I)) <= 0.1 at the end;
//   e  ||A_0|| < ||A_1|| < ||A_2|| at the end, counted over the converged runs (part a's bound per run) and judged by
//      the rule stated before the runs that decide it (docs/budgets.md): exact binomial tests, confirmed where most
//      runs show it, refuted (missing assumption) where more runs lack it than a failure fraction of 1/4 allows, at
//      least 15 converged runs (the paper budget with --set runs=20).
// Reduced default settings (2 cores) are listed in `training.paper_settings_differences`; --set batch=20000 gives
// the paper's minibatch. A refuting interval makes parts a-d inconclusive, at any settings (as acds.exp43: the
// steps and learning rate are ours); part e refutes only at the paper's settings, and says what it rests on.
#include "claims/common/acds_experiments.hpp"
#include "icl/model/prompt.hpp"

namespace icl::acds_exp51 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

// The layout of the claim's LaTeX table (claim/table.hpp).
ClaimTable table_layout() {
  return with_part_text({TableKind::training,
          "Section~5.1",
          "Trained 3-layer form (11): $B_i \\approx I$, $A_i \\approx \\Sigma^{-1}$, growing $\\|A_i\\|$",
          {{"over_runs", "Statistic over runs",
            "per run, the statistic of the row's part: (a) the final training loss$/\\mathbb{E}[y_q^2]$; (b) "
            "$\\max_i \\mathrm{Dist}(\\Sigma^{1/2}A_i\\Sigma^{1/2}, I)$; (c) $\\min_i \\mathrm{Dist}(A_i, I)$; (d) $\\max_i \\mathrm{Dist}(B_i, I)$; (e) the smaller of $\\log(\\|A_1\\|/\\|A_0\\|)$ and $\\log(\\|A_2\\|/\\|A_1\\|)$; mean over "
            "the runs $\\pm$ half-width of its interval"},
           {"bound", "Threshold", "the bound the statistic is compared with"},
           {"zero_predictor_loss", "$\\mathbb{E}[y_q^2]$", "loss of the zero predictor"},
           {"dist_sigma_inverse", "$\\mathrm{Dist}(\\Sigma^{-1}, I)$", "the same distance for $A=\\Sigma^{-1}$"}}},
      {
       {"a", "the training loss converges to about $0$"},
       {"b", "$\\mathrm{Dist}(\\Sigma^{1/2}A_i\\Sigma^{1/2}, I)\\to 0$ ($A_i\\propto\\Sigma^{-1}$)"},
       {"c", "$\\mathrm{Dist}(A_i, I)$ stays away from $0$"},
       {"d", "$\\mathrm{Dist}(B_i, I)\\to 0$ for $B_0, B_1$"},
       {"e", "$\\|A_0\\| < \\|A_1\\| < \\|A_2\\|$"}});
}

const RegisterClaim reg{Claim{
    .id = "acds.exp51",
    .title = "Sec. 5.1: trained 3-layer form (11) -> B_i ~ I, A_i ~ Sigma^-1, growing ||A_i||",
    .source = "Ahn, Cheng, Daneshmand and Sra (2023), Section 5.1, Figures 3-5",
    .statement = "As acds.exp43 with n = 10 and form (11) (A_i, B_i trained): the loss converges to about 0, Dist(B_i, I) -> 0, "
    "Dist(Sigma^1/2 A_i Sigma^1/2, I) -> 0, and ||A_0|| < ||A_1|| < ||A_2||.",
    .params = acds_exp::training_experiment_params(10),
    .default_samples = 20000,
    .quick_samples = 4000,
    .memory_bytes = [](const Case& c, int threads) { return threads * acds_shape(5, c.geti("n")).workspace_bytes() + 8.0 * c.get("batch"); },
    .run = [](const ClaimContext& ctx) { return acds_exp::run_training_experiment(ctx, true); },
    .parts = {PartSpec{"a", "The training loss converges to about 0.", Strength::empirical},
     PartSpec{"b", "Dist(Sigma^1/2 A_i Sigma^1/2, I) converges to 0 (A_i proportional to Sigma^-1).", Strength::empirical},
     PartSpec{"c", "Dist(A_i, I) stays away from 0.", Strength::empirical},
     PartSpec{"d", "Dist(B_i, I) converges to 0 for B_0, B_1.", Strength::empirical},
     PartSpec{"e", "||A_0|| < ||A_1|| < ||A_2||.", Strength::empirical}},
    .table = table_layout()}};

}  // namespace icl::acds_exp51
