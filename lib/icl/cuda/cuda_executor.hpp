// The cuda backend of the executor (execute/executor.hpp): execute::PlannedExecutor (execute/planned_executor.hpp:
// the host code it shares with the portable backend) with the per-prompt losses and the minibatch's chunk sums
// computed on the GPU (kernels.hpp: the portable per-prompt arithmetic of execute/portable/ as CUDA kernels, one
// thread per prompt; the portable path's numbers, whatever the launch shape). Networks: stacks of dense LSA and
// bilinear layers on the prompts of a Gaussian task (execute/portable_path.hpp); anything else is
// execute::Unsupported naming what is not supported.
// Built only where CMake finds nvcc (ICL_HAVE_CUDA); make_executor(Backend::cuda) and backend_from_name("cuda") call
// it, and the latter refuses (bad input) where no GPU is present.
#pragma once
#include "icl/execute/executor.hpp"

#include <memory>
#include <string>

namespace icl::cuda {

// Whether a CUDA device is usable; if not, the reason in *why.
bool gpu_available(std::string* why);
std::unique_ptr<execute::Executor> make_cuda_executor(int threads);

}  // namespace icl::cuda
