// How the entries of one step of the per-prompt arithmetic are run: the schedule policy X of lsa_stack.hpp,
// bilinear.hpp, softmax.hpp, stack.hpp and plan.hpp. Every step is X::each(n, f) over n independent output entries
// (f(e) computes entry e as one sum in index order and writes only what entry e owns; it reads nothing another
// entry of the same step writes), so the entries may run in any order, or at once, and give the same bits;
// X::single(f) runs an inherently serial step (the prompt draw, a final dot product) once. Whatever one step
// writes, the next step may read.
//   Serial: the entries in order, one after another (the CPU's portable path; one cuda thread per prompt).
//   Block (device only): the threads of a block share one prompt, thread t takes entries t, t + blockDim.x, ...,
//     then the block synchronizes. Every thread must reach every each() and single(): never call them under a
//     condition that depends on threadIdx. A value single() computes reaches the other threads through memory
//     (a slot of the scratch that the step right after it does not write).
//   Reversed, Interleaved (host tests): the entries in another order. They stand in for the entries of a step
//     running at once: an entry that reads what another entry of its step writes gives other bits under them than
//     under Serial (tests/execute/test_portable_schedule.cpp).
#pragma once
#include "icl/execute/portable/hd.hpp"

namespace icl::portable {

struct Serial {
  template <class F>
  ICL_HD static void each(long long n, F&& f) {
    for (long long e = 0; e < n; ++e) f(e);
  }
  template <class F>
  ICL_HD static void single(F&& f) {
    f();
  }
};

struct Reversed {
  template <class F>
  static void each(long long n, F&& f) {
    for (long long e = n - 1; e >= 0; --e) f(e);
  }
  template <class F>
  static void single(F&& f) {
    f();
  }
};

// Entries e = 0 mod 3 first, then 1 mod 3, then 2 mod 3 (neighbours, such as the rows of one column, apart).
struct Interleaved {
  template <class F>
  static void each(long long n, F&& f) {
    for (long long r = 0; r < 3; ++r)
      for (long long e = r; e < n; e += 3) f(e);
  }
  template <class F>
  static void single(F&& f) {
    f();
  }
};

#if defined(__CUDACC__)
// The threads of a block on one prompt (cuda/kernels.cu's block kernels). Marked __host__ __device__ like the code
// that calls it; only device code (a __global__ kernel) instantiates it, the host branch is never run.
struct Block {
  template <class F>
  ICL_HD static void each(long long n, F&& f) {
#if defined(__CUDA_ARCH__)
    for (long long e = threadIdx.x; e < n; e += blockDim.x) f(e);
    __syncthreads();
#else
    for (long long e = 0; e < n; ++e) f(e);
#endif
  }
  template <class F>
  ICL_HD static void single(F&& f) {
#if defined(__CUDA_ARCH__)
    if (threadIdx.x == 0) f();
    __syncthreads();
#else
    f();
#endif
  }
};
#endif

}  // namespace icl::portable
