// The training objective on a minibatch, computed the way the Monte Carlo engine computes its estimates:
// prompts 0..count-1 of a stream are cut into fixed chunks of kChunk prompts (independent of the thread
// count), each chunk sums its prompts' losses and gradients in prompt order, and the chunk sums are merged
// in chunk order. Same seed, same numbers, bit for bit, whatever the thread count.
#pragma once
#include "icl/execute/executor.hpp"
#include "icl/model/parameters.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace icl::learn {

// The minibatch loss and gradient through the process's executor (execute/executor.hpp, `--backend`).
class BatchObjective {
public:
  static constexpr std::uint64_t kChunk = execute::Executor::kBatchChunk;
  BatchObjective(const Parameterisation& params, PromptSource source, LossSpec loss, int threads);
  ~BatchObjective();

  // Mean loss over prompts 0..count-1 of stream (seed, purpose) at theta; the mean gradient into *grad if given.
  double evaluate(const Eigen::Ref<const Eigen::VectorXd>& theta, std::uint64_t seed, std::uint64_t purpose,
                  std::uint64_t count, Eigen::VectorXd* grad);
  const Parameterisation& params() const { return *params_; }
  const PromptSource& source() const { return source_; }
  LossSpec loss() const { return loss_; }
  int threads() const { return threads_; }
  // The most MPI ranks that shared one of its minibatches so far (1: this process alone; execute/chunks.hpp).
  int ranks() const { return ranks_; }

private:
  const Parameterisation* params_;
  PromptSource source_;
  LossSpec loss_;
  int threads_;
  int ranks_ = 1;
  std::unique_ptr<execute::Executor> exec_;
};

// The loss of a network on fresh prompts (seed, purpose, 0..samples-1) through its forward pass, with a
// Student-t interval at `confidence` (the Monte Carlo engine: same numbers for any thread count).
Estimate mc_loss(const Network& net, const PromptSource& source, LossSpec loss, std::uint64_t seed,
                 std::uint64_t purpose, std::uint64_t samples, int threads, double confidence = 0.99);

// Paired: the mean over the same fresh prompts (seed, purpose, 0..samples-1, rounded up to whole chunks as mc_loss) of
// loss(a) - loss(b), each prompt through both networks, with a Student-t interval at `confidence` on the per-prompt
// differences (what decides "a has lower loss than b" on one trial's test prompts). The same numbers for any thread
// count.
Estimate mc_loss_difference(const Network& a, const Network& b, const PromptSource& source, LossSpec loss,
                            std::uint64_t seed, std::uint64_t purpose, std::uint64_t samples, int threads,
                            double confidence = 0.99);

// One side of a comparison whose losses may be heavy-tailed (verdict/over_trials.hpp judge_tailed_every_trial), from
// one pass over the fresh prompts of mc_loss (seed, purpose, 0..samples-1 rounded up to whole chunks): `full` is
// mc_loss's estimate bit for bit, `capped` the mean of min(loss, cap) (a lower bound on the expected loss for any
// cap), `tail_share` the share of the summed loss in the largest ceil(tail_fraction * count) prompts. The same numbers
// for any thread count.
TailedLoss tailed_loss(const Network& net, const PromptSource& source, LossSpec loss, std::uint64_t seed,
                       std::uint64_t purpose, std::uint64_t samples, int threads, double cap, double confidence = 0.99,
                       double tail_fraction = 0.001);

// The distribution of the per-prompt loss on the same fresh prompts as mc_loss (seed, purpose, 0..samples-1): a
// trained network's loss can be so heavy-tailed that a few prompts carry the mean (acds form (8)/(11): 0.1% of
// prompts held 99% of the summed loss in an independent run), so a report gives the median and the tail's share
// beside the mean. `tail_share` is the share of the summed loss carried by the largest ceil(tail_fraction *
// samples) prompts. The same numbers for any thread count.
struct LossDistribution {
  double mean = 0, median = 0, p90 = 0, p99 = 0, max = 0;
  double tail_fraction = 0.001, tail_share = 0;
  std::uint64_t samples = 0;
  nlohmann::ordered_json to_json() const;
};
LossDistribution loss_distribution(const Network& net, const PromptSource& source, LossSpec loss, std::uint64_t seed,
                                   std::uint64_t purpose, std::uint64_t samples, int threads, double tail_fraction = 0.001);

// The per-prompt gradient's mean and standard error, component by component (for checking that the
// minibatch gradient's expectation is the exact population gradient).
struct GradientEstimate {
  Eigen::VectorXd mean, stderr_;
  double loss_mean = 0, loss_stderr = 0;
  std::uint64_t samples = 0;
};
GradientEstimate mc_gradient(const Parameterisation& params, const Eigen::Ref<const Eigen::VectorXd>& theta,
                             const PromptSource& source, LossSpec loss, std::uint64_t seed, std::uint64_t purpose,
                             std::uint64_t samples, int threads);

}  // namespace icl::learn
