// ICL_HD marks the per-prompt arithmetic that g++ (the CPU's portable path) and nvcc (the cuda backend's kernels)
// both compile from the same source: `__host__ __device__` under nvcc, nothing under a host compiler. The files of
// this folder are plain loops over plain arrays in a fixed order (no Eigen, no std::function, no allocation), built
// with floating-point contraction off on both sides (-ffp-contract=off for g++, -fmad=false for nvcc; CMakeLists.txt),
// so that the same prompt gives the same bits on either side. sqrt, floor and ldexp are exact or correctly rounded
// on both sides; the only library calls that can differ are exp and log on the ziggurat's rare paths (icl_exp,
// icl_log below): glibc's on the host, CUDA's on the device (see docs/engine.md). The softmax's exp is portable_exp.
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

// exp(x) for the softmax's weights (portable/softmax.hpp), in plain arithmetic so that host and device give the
// same bits (glibc's exp and CUDA's can differ in the last bit): x = k ln 2 + r with |r| <= ln 2 / 2 (ln 2 split in
// two so that k ln2_hi is exact; Cody and Waite), e^r by its Taylor polynomial to r^13 / 13! in Horner's form
// (truncation below 2^-60 relative), times 2^k by ldexp (exact, or correctly rounded when subnormal). Within 2 ulp
// of the exact value over the softmax's range x <= 0 (tests/execute/test_portable.cpp measures it against
// std::exp); exp(-inf) = 0, NaN stays NaN.
ICL_HD inline double portable_exp(double x) {
  if (x != x) return x;
  if (x < -745.2) return 0.0;
  if (x > 709.78) return 1.0 / 0.0;
#if defined(__CUDA_ARCH__)
  const double k = ::floor(x * 1.4426950408889634 + 0.5);  // round(x / ln 2)
#else
  const double k = std::floor(x * 1.4426950408889634 + 0.5);
#endif
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  double p = 1.0 / 6227020800.0;  // 1/13!
  const double inv[13] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0,
                          1.0 / 5040.0,      1.0 / 720.0,      1.0 / 120.0,     1.0 / 24.0,     1.0 / 6.0,
                          0.5,               1.0,              1.0};
  for (int m = 0; m < 13; ++m) p = p * r + inv[m];
#if defined(__CUDA_ARCH__)
  return ::ldexp(p, static_cast<int>(k));
#else
  return std::ldexp(p, static_cast<int>(k));
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
