// The host side of the backends that run the portable per-prompt arithmetic (execute/portable/): `cuda` (the GPU,
// lib/icl/cuda/) and `portable` (the CPU's threads). One implementation of Executor for both: it plans the network
// and prompt source with plan_portable (execute/portable_path.hpp; what the portable code does not run is
// execute::Unsupported naming it), asks the device for the per-prompt losses or the minibatch's chunk sums, and pulls
// the chunks back to theta with minibatch_from_chunks. A backend supplies the two device calls; everything else of a
// cuda run (planning, the chunk layout, the pullback, the sum over chunks) is this code, so the portable backend runs
// exactly the host code of a GPU run, with the kernels' per-prompt arithmetic on CPU threads.
//
// Neither backend splits work across MPI ranks (last_ranks() = 1: every rank computes every prompt).
#pragma once
#include "icl/execute/executor.hpp"
#include "icl/execute/portable/plan.hpp"

#include <cstdint>
#include <memory>

namespace icl::execute {

class PlannedExecutor : public Executor {
public:
  explicit PlannedExecutor(int threads);
  int threads() const override { return threads_; }

  // out[i] = device_losses of the plan of (net, source, loss), prompts 0..count-1, in prompt order.
  void losses(const icl::Network& net, const icl::PromptSource& source, icl::LossSpec loss, std::uint64_t seed,
              std::uint64_t purpose, std::uint64_t count, std::vector<double>& out) final;
  // The chunk sums of the plan of (params.network(theta), source, loss) from device_minibatch_chunks, then
  // minibatch_from_chunks: each chunk's gradient pulled back to theta, the chunks added in chunk order.
  double minibatch(const icl::Parameterisation& params, const Eigen::Ref<const Eigen::VectorXd>& theta,
                   const icl::PromptSource& source, icl::LossSpec loss, std::uint64_t seed, std::uint64_t purpose,
                   std::uint64_t count, Eigen::VectorXd* grad) final;
  int last_ranks() const final { return 1; }

protected:
  // out[i] = portable::prompt_loss of prompt i of the stream `key`, i < count (out holds count doubles), as
  // portable_losses computes it.
  virtual void device_losses(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count,
                             double* out) = 0;
  // The minibatch's chunk sums, as portable_minibatch_chunks computes them: chunks of kBatchChunk prompts of the
  // stream `key` (prompts 0..count-1), chunk c's loss in loss[c] and, when dW is not null, its gradient with respect
  // to the layers' weights at dW[c * plan.grad_size()] (zeroed by the caller), each summed in prompt order.
  virtual void device_minibatch_chunks(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count,
                                       double* loss, double* dW) = 0;

private:
  int threads_;
};

// The portable backend: the device calls on the library's thread pool (thread_pool.hpp), a chunk per task (kLossChunk
// prompts of a loss run, kBatchChunk of a minibatch), each chunk's prompts in prompt order into its own slot; so the
// numbers are portable_losses' and portable_minibatch's bit for bit at any thread count.
std::unique_ptr<Executor> make_portable_executor(int threads);

}  // namespace icl::execute
