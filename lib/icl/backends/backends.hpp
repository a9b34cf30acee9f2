// Choosing a backend: the one place that knows every executor (execute/: cpu and portable; cuda/: cuda where built),
// so that execute/ does not reach up into cuda/.
#pragma once
#include "icl/execute/executor.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace icl::execute {

// The backends this binary was built with: cpu, portable, and cuda where CMake found nvcc.
std::vector<std::string> built_backends();
// "cpu" -> Backend::cpu, "portable" -> Backend::portable, "cuda" -> Backend::cuda where built and a GPU is present;
// any other name throws std::invalid_argument with one line naming the built backends (a known backend that is not
// built here, or cuda without a GPU, says so).
Backend backend_from_name(std::string_view name);

// An executor of the given backend on `threads` threads (at least 1). It keeps per-thread scratch between calls:
// minibatch() prepares per-thread prompt drawers and accumulators for the (params, source) objects it is given
// and reuses them while the same objects (by address) come back, so keep those alive and unchanged between calls.
std::unique_ptr<Executor> make_executor(Backend backend, int threads);

}  // namespace icl::execute
