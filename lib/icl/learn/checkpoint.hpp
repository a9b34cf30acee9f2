// Runs that survive interruption: the training state on disk (`icl-verify run ... --checkpoint DIR`).
//
// While a checkpoint folder is set, every training run (learn::train) is identified by a key: a hash of everything
// its numbers depend on (its configuration but not its thread count, its starting weights, the prompt source's
// shape, the loss, and the arithmetic: the cpu backend's, or the portable code's that the portable and cuda backends
// share, in its precision). A run writes its state (step, weights, optimiser state, the curve so far) to DIR every
// `every_seconds` and when a stop is requested (SIGTERM), and its whole result when it ends; a run whose key is
// found finished returns that result, and one found part-way goes on from the saved step. Training is bitwise
// reproducible and everything else a claim computes is recomputed from the same seed, so a resumed run writes
// bitwise the report an uninterrupted one writes (its wall-clock seconds aside). Files are written whole or not at
// all (a temporary file renamed). L-BFGS runs are saved when they end only (their line-search state is not kept).
// Under MPI, rank 0 writes and every rank reads.
#pragma once
#include "icl/learn/trainer.hpp"

#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace icl::learn {

struct CheckpointSettings {
  std::string dir;             // empty: no checkpoints
  double every_seconds = 300;  // how often a running training run saves its state
};
void set_checkpoints(CheckpointSettings s);
const CheckpointSettings& checkpoints();

// A stop was requested (the command's SIGTERM handler sets it; async-signal-safe).
std::atomic<bool>& stop_requested();

// Thrown by train() after it saved its state, when a stop was requested.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The state of a run part-way, what train() needs to go on bit for bit.
struct TrainState {
  int t = 0;                       // steps done
  Eigen::VectorXd theta, good;
  Eigen::VectorXd adam_m, adam_v;
  long adam_t = 0;
  double window = 0, gnorm = 0, last_loss = 0, seconds = 0;
  int window_n = 0;
  int ranks = 1;
  TrainCurve curve;
};

// The key of a run (see above).
std::uint64_t training_key(const Parameterisation& params, const Eigen::VectorXd& theta0, const PromptSource& source,
                           LossSpec loss, const TrainConfig& cfg);

// Saved results and states (nothing when no folder is set or none is saved under the key). A damaged file throws
// std::runtime_error naming it.
std::optional<TrainResult> load_finished(std::uint64_t key);
std::optional<TrainState> load_state(std::uint64_t key);
void save_finished(std::uint64_t key, const TrainResult& r);
void save_state(std::uint64_t key, const TrainState& s);

}  // namespace icl::learn
