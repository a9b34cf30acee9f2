// Ahn, Cheng, Daneshmand, Sra (002), Theorem 1 and Appendix A: the single layer in form (8) (P0 = e e^T frozen,
// Q0 = -[A_0, 0; 0, 0], constructions/acds_forms.hpp acds_form8(d, 1)) trained by the project's trainer
// (lib/icl/learn) on the model's prompts (acds_shape(d, n)), as in the setting of the acds authors' code (isotropic
// x, d = 5, n = 20; the claim chooses the case). A fixed schedule: Adam, learning rate 0.02 decayed by 0.3 every
// quarter of the steps, a fresh minibatch every step (batch 1000 and 300 steps at --quick, 2000 and 800 otherwise),
// the test loss on 1000 (--quick) or 4000 held-out prompts at 50 curve points; A_0 starts N(0, 0.1^2). The streams
// are ctx.purpose(label + "/train") and ctx.purpose(label + "/init"), so a run is reproducible from the report's seed.
// The trained Gamma = -A_0 is measured against a target matrix (the claim's stated block) and by its exact loss.
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/argmin_gamma.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/gaussian_model.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <string>

namespace icl::acds {

struct SingleLayerTraining {
  learn::TrainConfig config;
  learn::TrainResult result;  // ok() unless the run diverged or stalled (its status and reason say why)
  Eigen::MatrixXd gamma;      // -A_0 at the end: the trained layer's Gamma, comparable with Q0's block
  double relative = NAN;      // ||gamma - target||_F / ||target||_F
  double exact_loss = NAN;    // gamma's exact loss (exact/sparse_attention.hpp sparse_lsa_loss on fm)
};

// `label` names the case (its streams and the progress line, prefixed by ctx.claim_id); fm: the model's feature
// moments (identity features) for the exact loss.
SingleLayerTraining train_single_layer(const ClaimContext& ctx, const std::string& label, const GaussianIclModel& model,
                                       int d, int n, const FeatureMoments& fm, const Eigen::MatrixXd& target);

// The trained matrix as the claim's further check of its stated minimiser (claim/kinds/argmin_gamma.hpp Extra:
// decision "trained_matrix", "Training" in the evidence): a run that diverged or stalled is inconclusive with its
// status and reason; else ||trained - target||_F / ||target||_F within `tol` (judge_relative_difference), with the
// trained layer's exact loss. Its quantities: trained_matrix, trained_relative_difference, trained_exact_loss, and
// the run's curve (field training_run). `t` must outlive the Extra (its quantities read it).
argmin_gamma::Extra trained_check(const SingleLayerTraining& t, double tol);

// The run in the claim's report: extra["training"] (learn::training_json: its configuration and seed) and the
// learning curve of A_0 as <claim>.training.svg, under `title`.
void report_training(ClaimRun& r, const SingleLayerTraining& t, const std::string& title);

}  // namespace icl::acds
