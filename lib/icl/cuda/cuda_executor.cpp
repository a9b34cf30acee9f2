#include "icl/cuda/cuda_executor.hpp"

#include "icl/cuda/kernels.hpp"
#include "icl/execute/portable_path.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace icl::cuda {

bool gpu_available(std::string* why) { return device_count(why) > 0; }

namespace {

class CudaExecutor final : public execute::Executor {
public:
  explicit CudaExecutor(int threads) : threads_(std::max(1, threads)) {}
  execute::Backend backend() const override { return execute::Backend::cuda; }
  int threads() const override { return threads_; }

  // One process, one GPU: MPI ranks do not split a cuda loss run (each rank would compute every prompt).
  void losses(const learn::Network& net, const learn::PromptSource& source, learn::LossSpec loss, std::uint64_t seed,
              std::uint64_t purpose, std::uint64_t count, std::vector<double>& out) override {
    const auto plan = execute::plan_portable(net, source, loss, "cuda backend");
    out.assign(static_cast<std::size_t>(count), 0.0);
    prompt_losses(*plan, execute::portable_stream_key(seed, purpose), 0, count, out.data());
  }

  // The chunk sums on the GPU (kernels.hpp minibatch_chunks: the portable path's, bit for bit), then the pullback
  // to theta and the sum over chunks on the host, as the portable path does. Stacks of dense lsa layers only.
  double minibatch(const learn::Parameterisation& params, const Eigen::Ref<const Eigen::VectorXd>& theta,
                   const learn::PromptSource& source, learn::LossSpec loss, std::uint64_t seed, std::uint64_t purpose,
                   std::uint64_t count, Eigen::VectorXd* grad) override {
    const auto plan = execute::plan_portable(params.network(theta), source, loss, "cuda backend");
    const std::uint64_t chunk = kBatchChunk, chunks = (count + chunk - 1) / chunk;
    std::vector<double> chunk_loss(static_cast<std::size_t>(chunks)), dW;
    if (grad) dW.assign(static_cast<std::size_t>(chunks * static_cast<std::uint64_t>(plan->grad_size())), 0.0);
    minibatch_chunks(*plan, execute::portable_stream_key(seed, purpose), count, chunk, chunk_loss.data(),
                     grad ? dW.data() : nullptr);
    return execute::minibatch_from_chunks(*plan, params, chunk_loss, grad ? &dW : nullptr, grad);
  }

  int last_ranks() const override { return 1; }

private:
  int threads_;
};

}  // namespace

std::unique_ptr<execute::Executor> make_cuda_executor(int threads) { return std::make_unique<CudaExecutor>(threads); }

}  // namespace icl::cuda
