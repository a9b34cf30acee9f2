#include "icl/backends/backends.hpp"

#include "icl/execute/planned_executor.hpp"
#ifdef ICL_HAVE_CUDA
#include "icl/cuda/cuda_executor.hpp"
#endif

#include <stdexcept>

namespace icl::execute {

std::vector<std::string> built_backends() {
#ifdef ICL_HAVE_CUDA
  return {"cpu", "portable", "cuda"};
#else
  return {"cpu", "portable"};
#endif
}

Backend backend_from_name(std::string_view name) {
  if (name == "cpu") return Backend::cpu;
  if (name == "portable") return Backend::portable;
  std::string built;
  for (const auto& b : built_backends()) built += (built.empty() ? "" : ", ") + b;
#ifdef ICL_HAVE_CUDA
  if (name == "cuda") {
    std::string why;
    if (!cuda::gpu_available(&why))
      throw std::invalid_argument("backend 'cuda' is built but no CUDA GPU is usable here (" + why + ")");
    return Backend::cuda;
  }
#endif
  if (name == "cuda")
    throw std::invalid_argument("backend 'cuda' is not built in this binary (built: " + built +
                                "; the CUDA backend is built where CMake finds nvcc)");
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (built: " + built + ")");
}

std::unique_ptr<Executor> make_executor(Backend backend, int threads) {
  switch (backend) {
    case Backend::cpu: return make_cpu_executor(threads);
    case Backend::portable: return make_portable_executor(threads);
    case Backend::cuda:
#ifdef ICL_HAVE_CUDA
      return cuda::make_cuda_executor(threads);
#else
      throw std::invalid_argument("backend 'cuda' is not built in this binary");
#endif
  }
  throw std::invalid_argument("make_executor: unknown backend");
}

}  // namespace icl::execute
