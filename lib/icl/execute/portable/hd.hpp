// ICL_HD marks the per-prompt arithmetic that g++ (the CPU's portable path) and nvcc (the cuda backend's kernels)
// both compile from the same source: `__host__ __device__` under nvcc, nothing under a host compiler. The files of
// this folder are plain loops over plain arrays in a fixed order (no Eigen, no std::function, no allocation), built
// with floating-point contraction off on both sides (-ffp-contract=off for g++, -fmad=false for nvcc; CMakeLists.txt),
// so that the same prompt gives the same bits on either side. The only library calls are exp and log on the
// ziggurat's rare paths (icl_exp, icl_log below): glibc's on the host, CUDA's on the device (see docs/engine.md).
#pragma once

#if defined(__CUDACC__)
#define ICL_HD __host__ __device__
#else
#define ICL_HD
#endif

#include <cmath>
#include <type_traits>

namespace icl::portable {

// exp and log: the host's libm on the CPU (what PromptRng calls: the same bits as the CPU prompt source), CUDA's
// on the device (both within about 1 ulp of the exact value; they can differ from glibc's in the last bit).
ICL_HD inline double icl_exp(double x) {
#if defined(__CUDA_ARCH__)
  return ::exp(x);
#else
  return std::exp(x);
#endif
}
ICL_HD inline double icl_log(double x) {
#if defined(__CUDA_ARCH__)
  return ::log(x);
#else
  return std::log(x);
#endif
}

// A strided view of doubles (or floats: the network's arithmetic in float32, plan.hpp): element e at p[e * s]. The
// host runs one prompt at a time (s = 1); the kernel interleaves the scratch of the prompts of a launch (element e of
// thread t at e * threads + t), so that the threads of a warp read neighbouring addresses. The arithmetic does not
// depend on the stride.
template <typename T>
struct StridedT {
  T* p;
  long long s;
  ICL_HD T& operator[](long long e) const { return p[e * s]; }
};
using Strided = StridedT<double>;

// T itself, in a context where a template argument is not deduced (so that a call may pass nullptr for an unused
// float array while S is deduced from the network's descriptor).
template <typename T>
struct NoDeduce {
  using type = T;
};

}  // namespace icl::portable
