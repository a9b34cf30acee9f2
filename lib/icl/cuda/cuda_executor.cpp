#include "icl/cuda/cuda_executor.hpp"

#include "icl/cuda/kernels.hpp"
#include "icl/execute/portable_path.hpp"

#include <algorithm>
#include <stdexcept>

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

  double minibatch(const learn::Parameterisation&, const Eigen::Ref<const Eigen::VectorXd>&, const learn::PromptSource&,
                   learn::LossSpec, std::uint64_t, std::uint64_t, std::uint64_t, Eigen::VectorXd*) override {
    throw std::invalid_argument("training (minibatch) is not yet supported on the cuda backend; use --backend cpu");
  }

  int last_ranks() const override { return 1; }

private:
  int threads_;
};

}  // namespace

std::unique_ptr<execute::Executor> make_cuda_executor(int threads) { return std::make_unique<CudaExecutor>(threads); }

}  // namespace icl::cuda
