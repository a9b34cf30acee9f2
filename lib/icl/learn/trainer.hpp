// Training a Parameterisation on a prompt distribution (stochastic minibatches, reproducible bit for bit).
//
// Step t uses minibatch block b = t / resample_every: prompts 0..batch-1 of the stream
// (seed, block_purpose(purpose, b)), so a minibatch is resampled every `resample_every` steps (acds Sec. 4.3:
// 20000 prompts resampled every 100 steps; sja App. J: 4000 fresh prompts every step). The loss and gradient
// are summed over fixed chunks merged in order (learn/objective.hpp): the same seed gives the same weights
// whatever the thread count. Optimisers: "adam" (torch.optim.Adam, no weight decay), "sgd", "lbfgs" (on each
// block's fixed minibatch, history reset when the block changes). Each group's gradient can be clipped to a
// norm (`clip`, acds: 0.01, before the optimiser sees it). The learning rate can be multiplied by
// `lr_decay` every `lr_decay_every` steps.
//
// A held-out test set (test_batch prompts of the stream (seed, test_purpose), the same prompts at every
// evaluation) gives the test-loss curve; curve points are thinned to about `curve_points`, each holding the
// mean minibatch loss since the previous point. A run ends `diverged` (never with a NaN in its weights) when
// the loss or gradient is not finite or a weight exceeds max_weight in absolute value: the result keeps the
// last finite weights and says why, and the caller reports the case as inconclusive with that reason.
// On a terminal (stderr is a tty) a progress line shows step, loss and time.
#pragma once
#include "icl/learn/objective.hpp"
#include "icl/learn/optimizers.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace icl::learn {

struct TrainConfig {
  std::string optimizer = "adam";  // "adam" | "sgd" | "lbfgs"
  double learning_rate = 1e-3;     // lbfgs: the first step's length along -g/||g||
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  std::uint64_t batch = 4000;
  int steps = 1000;
  int resample_every = 1;
  double clip = 0.0;               // per-group gradient norm bound (0: none)
  int lr_decay_every = 0;          // 0: constant learning rate
  double lr_decay = 0.5;
  int lbfgs_history = 10;
  std::uint64_t test_batch = 0;    // held-out prompts for the test-loss curve (0: none)
  int eval_every = 0;              // test loss every this many steps (0: only at curve points)
  int curve_points = 200;
  double max_weight = 1e6;         // |theta|_inf beyond this is divergence
  std::uint64_t seed = 1;
  std::uint64_t purpose = 0;       // training stream; the test stream is block_purpose(purpose, ~0)
  int threads = 1;
  std::string label = "train";     // progress-line prefix
  bool progress = true;
  // Extra curve columns (e.g. Dist(Sigma^1/2 A_i Sigma^1/2, I)): called at every curve point.
  std::vector<std::string> observe_names;
  std::function<void(int step, const Eigen::VectorXd& theta, std::vector<double>& values)> observe;
};

enum class TrainStatus { finished, diverged, stalled };
const char* to_string(TrainStatus s);

struct TrainCurve {
  std::vector<int> step;
  std::vector<double> train_loss;  // mean minibatch loss since the previous point
  std::vector<double> test_loss;   // NaN where not evaluated
  std::vector<double> grad_norm;   // largest group gradient norm (before clipping) at the point
  std::vector<std::string> extra_names;
  std::vector<std::vector<double>> extra;  // extra[k][point]
};

struct TrainResult {
  TrainStatus status = TrainStatus::finished;
  std::string reason;          // why it stopped early (diverged / stalled)
  Eigen::VectorXd theta;       // the last finite weights
  int steps_done = 0;
  double final_train_loss = 0; // mean minibatch loss of the last curve window
  double final_test_loss = NAN;
  double seconds = 0;
  int ranks = 1;  // how many MPI ranks shared its minibatches (data parallel, bitwise as one process)
  TrainCurve curve;
  bool ok() const { return status == TrainStatus::finished; }
};

// `icl-verify run --estimate`: while an estimate is on, train() does not train a run of more than 3 steps; it
// measures the cost of a step (3 steps against 1, at the run's minibatch, backend and threads) and adds the run's
// steps times that cost to the estimate, and the claim goes on with the 3-step weights (so everything but the
// training steps really runs and is timed by the caller).
struct TrainingEstimate {
  double predicted_seconds = 0;    // the training steps of every run, predicted
  double calibration_seconds = 0;  // what the calibration itself took (inside the caller's wall time)
  long long runs = 0, steps = 0;   // runs predicted, and their steps
  double step_seconds_max = 0;     // the dearest step measured
};
void begin_training_estimate();
TrainingEstimate end_training_estimate();

TrainResult train(const Parameterisation& params, Eigen::VectorXd theta0, const PromptSource& source, LossSpec loss,
                  const TrainConfig& config);

// The `training` block of docs/reports.md for runs of this config: optimizer, learning_rate, batch, steps,
// trials, seeds, paper_settings, curve_file, plus the schedule (resample_every, clip, lr decay).
nlohmann::ordered_json training_json(const TrainConfig& c, const std::vector<std::uint64_t>& seeds,
                                     bool paper_settings, const std::string& curve_file);
// One run's curve and outcome as JSON: status, reason, steps_done, final losses, and the curve columns.
nlohmann::ordered_json curve_json(const TrainResult& r);
// Loss curves of several runs (train solid, test dashed; log loss against step).
std::string training_svg(const std::string& title, const std::vector<std::pair<std::string, const TrainResult*>>& runs);

}  // namespace icl::learn
