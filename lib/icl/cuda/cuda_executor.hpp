// The cuda backend of the executor (execute/executor.hpp): losses() runs the portable per-prompt arithmetic
// (execute/portable/) as a CUDA kernel, one thread per prompt, the losses back in prompt order (so they are the
// portable path's, whatever the launch shape). Networks: stacks of dense LSA layers on the prompts of a Gaussian
// task (execute/portable_path.hpp); anything else is std::invalid_argument naming what is not supported.
// minibatch() (training) is not implemented yet: it throws std::invalid_argument saying so.
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
