// The batched executor: the one seam between what a claim asks (a network, a prompt stream, a loss) and where the
// arithmetic runs. Monte Carlo losses of a trained network, the trainer's minibatch loss and gradient, and the
// per-prompt loss distribution all go through an Executor; a backend is one implementation of it.
//
// The contract every backend keeps (so that the same seed gives the same numbers on any backend, thread count or
// number of MPI ranks):
//   - prompt i of stream (seed, purpose) is drawn by the prompt source from its counter alone;
//   - work is cut into fixed chunks of prompts (kLossChunk for losses, kBatchChunk for minibatches), independent of
//     the threads, and dealt to ranks and threads by the one chunk schedule (chunks.hpp, which the Monte Carlo
//     engine of the papers' constructions uses too); a chunk sums its prompts in prompt order; chunk results are
//     merged in chunk order;
//   - per-prompt losses come back in prompt order, bit for bit as one thread computes them.
// Backends: `cpu` (this library's layers on the library's thread pool; under K MPI ranks, rank r computes the
// chunks c = r mod K of a loss run or a minibatch and every rank receives every chunk's result bit for bit, so
// training is data parallel with every rank holding the same weights; a call made inside a task of the pool is not
// split: chunks.hpp); `cuda` (built where CMake finds nvcc: lib/icl/cuda/; losses() and minibatch() of stacks of
// dense LSA, bilinear and softmax-attention layers on Gaussian-task or unstructured prompts, the portable per-prompt
// code of execute/portable/ as kernels, one GPU thread per prompt, or one block per prompt with
// ICL_CUDA_SCHEDULE=block (its scratch in shared memory where it fits) or block-global); `portable` (always built:
// the cuda backend's host code, execute/planned_executor.hpp, with the kernels' per-prompt arithmetic on the CPU's
// thread pool, a chunk per task; the same networks as cuda, and the same numbers as the portable path of
// execute/portable_path.hpp at any thread count). Neither cuda nor portable splits work across MPI ranks; both refuse what the portable code does not run
// (another layer, another prompt source) with Unsupported naming it. Asking for a backend that is not built, or for
// cuda where no GPU is present, is bad input: backend_from_name() (backends/backends.hpp) says which are built.
#pragma once
#include "icl/execute/precision.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/loss.hpp"
#include "icl/model/parameters.hpp"
#include "icl/model/prompt_source.hpp"

#include <Eigen/Core>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace icl::execute {

enum class Backend { cpu, cuda, portable };
const char* to_string(Backend b);
// A network or prompt source a backend does not run (the cuda and portable backends: a layer other than dense lsa
// and bilinear, prompts other than a Gaussian task's): one line naming it. Bad input, not an internal failure: the
// command line reports it with exit status 2.
struct Unsupported : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

class Executor {
public:
  static constexpr std::uint64_t kLossChunk = 256;  // prompts per chunk of a loss run (the Monte Carlo chunk)
  static constexpr std::uint64_t kBatchChunk = 64;  // prompts per chunk of a minibatch
  virtual ~Executor() = default;
  virtual Backend backend() const = 0;
  virtual int threads() const = 0;

  // out[i] = loss(net(prompt i), y_i) for the prompts 0..count-1 of stream (seed, purpose).
  virtual void losses(const icl::Network& net, const icl::PromptSource& source, icl::LossSpec loss,
                      std::uint64_t seed, std::uint64_t purpose, std::uint64_t count, std::vector<double>& out) = 0;

  // The summed loss over prompts 0..count-1 of stream (seed, purpose) of the network params.network(theta), and the
  // summed gradient with respect to theta into *grad when given (sized params.size()). Each chunk's sum is formed in
  // prompt order, then chunks are added in chunk order.
  virtual double minibatch(const icl::Parameterisation& params, const Eigen::Ref<const Eigen::VectorXd>& theta,
                           const icl::PromptSource& source, icl::LossSpec loss, std::uint64_t seed,
                           std::uint64_t purpose, std::uint64_t count, Eigen::VectorXd* grad) = 0;

  // How many MPI ranks shared the last minibatch() (1: this process alone).
  virtual int last_ranks() const = 0;
};

// The cpu backend's executor (any backend by name or enum: backends/backends.hpp make_executor).
std::unique_ptr<Executor> make_cpu_executor(int threads);

// The backend of the process (`--backend`, default cpu): what the trainer and the Monte Carlo loss of a trained
// network use, like the process's MPI communicator (execute/ranks.hpp).
Backend default_backend();
void set_default_backend(Backend b);

// How many prompts the executors of backend b have computed in this process (losses() and minibatch(), every call
// counted once per process): the command line reads it before and after a claim, so that a report says where its
// executor work ran (provenance: a claim whose work never reaches the executor ran on the host, whatever --backend
// says). note_executor_prompts is what each backend calls.
std::uint64_t executor_prompts(Backend b);
void note_executor_prompts(Backend b, std::uint64_t count);

}  // namespace icl::execute
