// Runs that survive interruption: the training state on disk (`icl-verify run ... --checkpoint DIR`).
//
// While a checkpoint folder is set, every training run (learn::train) is identified by a key: a hash of everything
// its numbers depend on (its configuration but not its thread count, its starting weights, the prompt source's
// shape, the loss, and the arithmetic: the cpu backend's (its label-row kernels, execute/label_row.hpp, apart from its
// layers), or the portable code's that the portable and cuda backends share, in its precision). A run writes its state (step, weights, optimiser state, the curve so far) to DIR every
// `every_seconds` and when a stop is requested (SIGTERM, SIGINT, SIGUSR1), and its whole result when it ends; a run
// whose key is found finished returns that result, and one found part-way goes on from the saved step. Training is bitwise
// reproducible and everything else a claim computes is recomputed from the same seed, so a resumed run writes
// bitwise the report an uninterrupted one writes (its wall-clock seconds aside). Files are written whole or not at
// all (a temporary file renamed). L-BFGS runs are saved when they end only (their line-search state is not kept).
// Under MPI, rank 0 writes and every rank reads.
//
// A file (train-KEY.state, train-KEY.done), format version 2:
//   bytes 0-6   "ICLCKPT", byte 7 the format version as an ASCII digit ('2'; version 1 files, without a checksum,
//               are refused by name)
//   8 bytes     L, the number of bytes from offset 16 up to the checksum (little-endian, as every number here)
//   8 bytes     the run's key (it names the file too)
//   L - 8       the body (state or result, fields in the order save_state / save_finished write them)
//   4 bytes     CRC-32 (Boost.CRC's crc_32_type, the zlib/PNG CRC) of every byte before it
// The whole file is checked (size, magic, version, length, checksum, key) before any byte of the body is used; a
// file that fails is a CheckpointError naming it (the command: one line, exit status 2) and the run does not go on
// from it. verify_checkpoint_folder checks every file of a folder that way before a run starts, so a run never
// resumes part of its training and then meets a damaged file.
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

// A stop was requested (the command's signal handler sets it; async-signal-safe). Under MPI the ranks agree on
// the step to stop at (the training loop ORs the flag across them every step).
std::atomic<bool>& stop_requested();

// A checkpoint file that cannot be used (damaged, truncated, extended, another version, not a regular file): the
// message is one line naming the file.
struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
// CheckpointError naming it.
std::optional<TrainResult> load_finished(std::uint64_t key);
std::optional<TrainState> load_state(std::uint64_t key);
void save_finished(std::uint64_t key, const TrainResult& r);
void save_state(std::uint64_t key, const TrainState& s);

// Checks every checkpoint file (train-*.state, train-*.done) in `dir` as the loaders do, without using any; the first
// that fails throws CheckpointError. A missing folder holds none.
void verify_checkpoint_folder(const std::string& dir);

// The same check of one file's bytes (`path` names it in the message); returns the body.
std::string checked_checkpoint_body(const std::string& bytes, const std::string& path, std::uint64_t key);
// A file's bytes for `body` under `key` (what save_state and save_finished write).
std::string checkpoint_file_bytes(std::uint64_t key, const std::string& body);

}  // namespace icl::learn
