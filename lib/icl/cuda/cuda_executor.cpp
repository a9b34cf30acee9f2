#include "icl/cuda/cuda_executor.hpp"

#include "icl/cuda/kernels.hpp"
#include "icl/execute/planned_executor.hpp"

namespace icl::cuda {

bool gpu_available(std::string* why) { return device_count(why) > 0; }

namespace {

// The host code is execute::PlannedExecutor's (planning, chunk layout, pullback, sum over chunks: the same code the
// portable backend runs); the device calls are the kernels' (kernels.hpp: the portable path's numbers, bit for bit).
class CudaExecutor final : public execute::PlannedExecutor {
public:
  using PlannedExecutor::PlannedExecutor;
  execute::Backend backend() const override { return execute::Backend::cuda; }

protected:
  void device_losses(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count, double* out) override {
    prompt_losses(plan, key, 0, count, out);
  }
  void device_minibatch_chunks(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count, double* loss,
                               double* dW) override {
    minibatch_chunks(plan, key, count, kBatchChunk, loss, dW);
  }
};

}  // namespace

std::unique_ptr<execute::Executor> make_cuda_executor(int threads) { return std::make_unique<CudaExecutor>(threads); }

}  // namespace icl::cuda
