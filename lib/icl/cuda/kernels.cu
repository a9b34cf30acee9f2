// The cuda backend's kernel: one thread per prompt runs portable::prompt_loss (execute/portable/plan.hpp), the
// arithmetic g++ compiles for the CPU's portable path, built with -fmad=false (CMakeLists.txt) so that nvcc forms
// no fused multiply-add the host code does not. Includes only the portable headers and the CUDA runtime (no Eigen:
// nvcc's compile time is part of every CI build).
#include "icl/cuda/kernels.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace icl::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

// Device memory freed on scope exit (also when a later call throws).
template <class T>
struct DeviceArray {
  T* p = nullptr;
  explicit DeviceArray(std::size_t n) { check(cudaMalloc(&p, std::max<std::size_t>(n, 1) * sizeof(T)), "cudaMalloc"); }
  DeviceArray(const std::vector<T>& v) : DeviceArray(v.size()) {
    if (!v.empty()) check(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

// Thread t of the launch computes prompt first + t; its scratch is interleaved with the other threads' (element e
// at scratch[e * stride + t], stride = the launch's thread count), so a warp's loads are contiguous.
__global__ void prompt_loss_kernel(portable::GaussianPromptDesc pd, portable::LsaStackDesc nd, const double* zig,
                                   portable::StreamKey key, std::uint64_t first, std::uint64_t count, double* scratch,
                                   long long stride, double* out) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  out[t] = portable::prompt_loss(pd, nd, portable::Plan::ziggurat_view(zig), key, first + t, scratch + t, stride);
}

}  // namespace

int device_count(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = cudaGetErrorString(e);
    return 0;
  }
  if (n == 0 && why) *why = "no CUDA device";
  return n;
}

std::string device_name() {
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  return p.name;
}

void prompt_losses(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t count,
                   double* out) {
  if (count == 0) return;
  // The descriptors' arrays on the device.
  const DeviceArray<double> chol(plan.chol), fixed_w(plan.fixed_w), coef(plan.coef), weights(plan.weights),
      scale(plan.scale), zig(plan.zig);
  const DeviceArray<int> term_begin(plan.term_begin), masked(plan.masked);
  const DeviceArray<unsigned char> exps(plan.exps);
  portable::GaussianPromptDesc pd = plan.prompt;
  pd.chol = plan.prompt.chol ? chol.p : nullptr;
  pd.fixed_w = plan.prompt.fixed_w ? fixed_w.p : nullptr;
  pd.coef = coef.p;
  pd.term_begin = term_begin.p;
  pd.exps = exps.p;
  portable::LsaStackDesc nd = plan.net;
  nd.weights = weights.p;
  nd.masked = masked.p;
  nd.scale = scale.p;
  // Launches of at most 2 GiB of scratch (a multiple of the block size of prompts).
  constexpr int kBlock = 128;
  const auto per = static_cast<std::uint64_t>(plan.scratch_per_prompt());
  std::uint64_t batch = std::max<std::uint64_t>(kBlock, ((std::uint64_t{1} << 28) / per) / kBlock * kBlock);
  batch = std::min(batch, (count + kBlock - 1) / kBlock * kBlock);
  DeviceArray<double> scratch(static_cast<std::size_t>(batch * per));
  DeviceArray<double> losses(static_cast<std::size_t>(batch));
  for (std::uint64_t b = 0; b < count; b += batch) {
    const std::uint64_t m = std::min(batch, count - b);
    const auto blocks = static_cast<unsigned>((m + kBlock - 1) / kBlock);
    prompt_loss_kernel<<<blocks, kBlock>>>(pd, nd, zig.p, key, first + b, m, scratch.p, static_cast<long long>(batch),
                                           losses.p);
    check(cudaGetLastError(), "kernel launch");
    check(cudaMemcpy(out + b, losses.p, m * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (losses)");
  }
}

}  // namespace icl::cuda
