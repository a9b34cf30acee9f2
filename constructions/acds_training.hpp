// Ahn, Cheng, Daneshmand, Sra (002), Secs. 4.3 and 5.1: one training run of a trainable acds form ((8) or (11),
// constructions/acds_forms.hpp) on the paper's distribution, with the numbers the experiments (acds.exp43, acds.exp51,
// acds.figs67) read off the trained weights.
//
// Setting (Sec. 4.3): d = 5, x ~ N(0, Sigma), w ~ N(0, Sigma^-1), Sigma = U^T D U with U uniformly random
// orthogonal (Haar: QR of a Gaussian matrix with the signs of R's diagonal moved into Q) and D = diag(1, 1,
// 0.25, 0.0625, 1). Each run draws its own U from the counter-based stream (seed, purpose), so a run is
// reproducible from the report's seed.
//
// Dist(M, I) = min_alpha || M / ||M||_F - alpha I ||_F = sqrt(1 - tr(M)^2 / (d ||M||_F^2)) (alpha = tr(M) / (d
// ||M||_F), the paper's own choice); 0 exactly for a nonzero multiple of I, and 1 for M = 0 by convention.
#pragma once
#include "constructions/acds_forms.hpp"
#include "icl/algebra/matrix_functions.hpp"
#include "icl/claim/claim.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace icl::acds_exp {

// The pieces of the setting (lib/ and constructions/acds_forms): a Haar U, Sigma = U^T D U, the task, Sigma^1/2, Dist(M, I).
using icl::dist_identity;
using icl::inverse_weight_model;
using icl::random_orthogonal;
using icl::sqrt_psd;
inline Eigen::MatrixXd paper_sigma(const Eigen::MatrixXd& U) { return acds_paper_sigma(U); }

// One training run of an acds form on the paper's distribution (Sec. 4.3 / 5.1 schedule: Adam, minibatch
// resampled every `resample` steps, each matrix's gradient clipped to `clip`). What the paper leaves out (steps,
// learning rate and schedule, Adam's betas, the initial scale, the choice among the last weights) the paper budgets
// take from the authors' public code (docs/budgets.md, "The acds experiments at the authors' protocol").
struct RunSettings {
  int d = 5, n = 20, L = 3;
  bool form11 = false;
  int steps = 2000;
  std::uint64_t batch = 2000;
  int resample = 100;
  double clip = 0.01;
  double learning_rate = 0.01;
  double lr_decay = 0.5;
  int lr_decay_every = 0;
  double beta1 = 0.9, beta2 = 0.999;
  double init_sd = 0.1;
  // Where select_last > 0: the weights kept are the best, on `select_samples` validation prompts (stream
  // purpose(tag + "/validate"), the same for every run of the case), of the last select_last snapshots taken every
  // select_every steps (the final weights among them), as the authors' Figs. 6-7 code keeps the best of its last 20
  // (10) saved weights on a validation batch; 0: the final weights.
  int select_last = 0, select_every = 100;
  std::uint64_t select_samples = 20000;
  std::uint64_t test_samples = 20000;  // fixed test prompts for the final test loss (the same for every run of a case)
};

// The settings the paper leaves out, read from the authors' public code (github.com/chengxiang/LinearTransformer,
// never copied; docs/budgets.md cites each value's notebook and cell): Adam as torch.optim.AdamW with weight_decay 0,
// its betas, the learning rate and its halving interval, the number of steps, the initial scale (Transformer_F's
// allparam.normal_(0, var), var = 0.0001 a standard deviation), and for Figs. 6-7 the choice of the best of the last
// saved weights on a validation batch. The paper states the rest (minibatch 20000 resampled every 100 steps, each
// matrix's gradient clipped to 0.01, 5 runs; Figs. 6-7: Adam).
struct Protocol {
  int steps;
  double lr;
  int decay_every;  // the learning rate is halved every decay_every steps
  double beta1, beta2, init_sd;
  std::uint64_t batch = 20000;
  int resample = 100;
  double clip = 0.01;
  int select_last = 0;  // the best of the last select_last weights saved every 100 steps (0: the final weights)
  const char* notebook;  // the notebook
  const char* source;    // its cells and the values read there
};
// Sec. 4.3 (form (8), 'rotation demonstration-Adam-p0.ipynb') or Sec. 5.1 (form (11), 'rotation demonstration-Adam.ipynb').
Protocol authors_protocol(bool form11);
// App. D: Fig. 7 (over L at n = 20: 'variable_L_exp.ipynb') or Fig. 6 (over n at L = 3: 'variable_N_exp.ipynb'); both
// train the authors' Transformer_F, whose P_i = [B_i, 0; 0, 1] and Q_i = [A_i, 0; 0, 0]: form (11).
Protocol authors_appD_protocol(bool fig7, int n);

struct RunOutcome {
  learn::TrainConfig config;
  learn::TrainResult result;
  Eigen::MatrixXd U, sigma;
  std::vector<Eigen::MatrixXd> A, B;      // trained A_i (and B_i for form (11))
  Estimate test_loss;                     // Monte Carlo loss on the case's fixed test prompts (purpose tag/test)
  learn::LossDistribution test_losses;    // the same prompts' per-prompt losses: median, tail share
  double zero_loss = 0;                   // E[y_q^2] = tr(Sigma Sigma^-1) = d: the loss of predicting 0
  double init_loss = 0;                   // the first curve point's minibatch loss
  std::vector<double> dist_pre, dist_raw; // Dist(Sigma^1/2 A_i Sigma^1/2, I), Dist(A_i, I) at the end
  std::vector<double> dist_pre0, dist_raw0; // the same at initialisation
  std::vector<double> dist_B;             // Dist(B_i, I), i < L-1 (form (11))
  std::vector<double> norm_A;             // ||A_i||_F
  int selected_step = -1;                 // with select_last: the step of the weights kept
  std::vector<double> select_losses;      // their validation losses, oldest first
};

// Trains run `run` (its own U and initialisation) for the case `tag`; the curve observes the Dists.
RunOutcome train_run(const ClaimContext& ctx, const std::string& tag, int run, const RunSettings& s, double confidence);
// Per-run JSON for a case: U-independent summary (final losses, Dists, norms, the curve).
nlohmann::ordered_json run_json(const RunOutcome& r);

// A Sec. 4.3 / 5.1 experiment's training block (learn::training_json of the first run's settings, the trials, the
// differences from the paper's settings, the note on the optimiser the paper names) and its figure (the first case's
// runs, one curve each).
nlohmann::ordered_json experiment_training_json(const ClaimContext& ctx, bool form11, const learn::TrainConfig& config0,
                                                const std::vector<std::uint64_t>& seeds, bool paper,
                                                const std::string& differences);
std::string experiment_training_svg(bool form11, const std::vector<RunOutcome>& kept);

// The best exact population loss of form (8) on the Thm. 3 family A_i = a_i Sigma^-1 (optimal per-layer a_i, from the
// stationary equations: exact/acds_family_loss.hpp reduced_family_optimum; the same for every Sigma): the loss this
// architecture reaches on its stationary family.
double family_optimum(int d, int n, int L);

}  // namespace icl::acds_exp
