#include "icl/execute/planned_executor.hpp"

#include "icl/execute/portable_path.hpp"
#include "icl/execute/thread_pool.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace icl::execute {

PlannedExecutor::PlannedExecutor(int threads) : threads_(std::max(1, threads)) {}

void PlannedExecutor::losses(const icl::Network& net, const icl::PromptSource& source, icl::LossSpec loss,
                             std::uint64_t seed, std::uint64_t purpose, std::uint64_t count, std::vector<double>& out) {
  const std::string who = std::string(to_string(backend())) + " backend";
  const auto plan = plan_portable(net, source, loss, who.c_str(), default_precision());
  out.assign(static_cast<std::size_t>(count), 0.0);
  note_executor_prompts(backend(), count);
  if (count > 0) device_losses(*plan, portable_stream_key(seed, purpose), count, out.data());
}

double PlannedExecutor::minibatch(const icl::Parameterisation& params, const Eigen::Ref<const Eigen::VectorXd>& theta,
                                  const icl::PromptSource& source, icl::LossSpec loss, std::uint64_t seed,
                                  std::uint64_t purpose, std::uint64_t count, Eigen::VectorXd* grad) {
  if (count == 0) throw std::invalid_argument("Executor::minibatch: empty batch");
  const std::string who = std::string(to_string(backend())) + " backend";
  const auto plan = plan_portable(params.network(theta), source, loss, who.c_str(), default_precision());
  note_executor_prompts(backend(), count);
  const std::uint64_t chunks = (count + kBatchChunk - 1) / kBatchChunk;
  std::vector<double> chunk_loss(static_cast<std::size_t>(chunks), 0.0), dW;
  if (grad) dW.assign(static_cast<std::size_t>(chunks * static_cast<std::uint64_t>(plan->grad_size())), 0.0);
  device_minibatch_chunks(*plan, portable_stream_key(seed, purpose), count, chunk_loss.data(),
                          grad ? dW.data() : nullptr);
  return minibatch_from_chunks(*plan, params, chunk_loss, grad ? &dW : nullptr, grad);
}

namespace {

class PortableExecutor final : public PlannedExecutor {
public:
  using PlannedExecutor::PlannedExecutor;
  Backend backend() const override { return Backend::portable; }

protected:
  void device_losses(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count, double* out) override {
    const std::uint64_t chunks = (count + kLossChunk - 1) / kLossChunk;
    parallel_tasks(chunks, threads(), [&] {
      return [&, scratch = PromptScratch(plan, false)](std::uint64_t c) mutable {
        const std::uint64_t first = c * kLossChunk, last = std::min(count, first + kLossChunk);
        portable_loss_range(plan, key, first, last, scratch, out + first);
      };
    });
  }

  void device_minibatch_chunks(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count, double* loss,
                               double* dW) override {
    const std::uint64_t chunks = (count + kBatchChunk - 1) / kBatchChunk;
    const auto G = static_cast<std::uint64_t>(plan.grad_size());
    parallel_tasks(chunks, threads(), [&] {
      return [&, scratch = PromptScratch(plan, dW != nullptr)](std::uint64_t c) mutable {
        loss[c] = portable_minibatch_chunk(plan, key, c, count, scratch, dW ? dW + c * G : nullptr);
      };
    });
  }
};

}  // namespace

std::unique_ptr<Executor> make_portable_executor(int threads) { return std::make_unique<PortableExecutor>(threads); }

}  // namespace icl::execute
