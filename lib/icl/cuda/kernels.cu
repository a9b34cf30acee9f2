// The cuda backend's kernels: one thread per prompt runs portable::prompt_loss, or portable::prompt_loss_grad and
// then one thread per (chunk, entry) adds the prompts' gradients in prompt order (execute/portable/plan.hpp): the
// arithmetic g++ compiles for the CPU's portable path, built with -fmad=false (CMakeLists.txt) so that nvcc forms
// no fused multiply-add the host code does not. Includes only the portable headers and the CUDA runtime (no Eigen:
// nvcc's compile time is part of every CI build).
#include "icl/cuda/kernels.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
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
__global__ void prompt_loss_kernel(portable::GaussianPromptDesc pd, portable::StackDesc nd, const double* zig,
                                   portable::StreamKey key, std::uint64_t first, std::uint64_t count, double* scratch,
                                   long long stride, double* out) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  out[t] = portable::prompt_loss(pd, nd, portable::Plan::ziggurat_view(zig), key, first + t, scratch + t, stride);
}

// Thread t computes prompt first + t's loss and gradient: its gradient (grad entries) at g[e * stride + t],
// zeroed first, its scratch interleaved as above.
__global__ void prompt_grad_kernel(portable::GaussianPromptDesc pd, portable::StackDesc nd, const double* zig,
                                   portable::StreamKey key, std::uint64_t first, std::uint64_t count, double* scratch,
                                   long long stride, long long grad, double* g, double* out) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  for (long long e = 0; e < grad; ++e) g[e * stride + static_cast<long long>(t)] = 0.0;
  out[t] = portable::prompt_loss_grad(pd, nd, portable::Plan::ziggurat_view(zig), key, first + t, scratch + t, stride,
                                      {g + t, stride});
}

// Thread (c, e) of a launch of `count` prompts (count a multiple of chunk but for the run's last launch): entry e of
// chunk c summed over its prompts in prompt order (e == grad: the loss).
__global__ void chunk_sum_kernel(std::uint64_t count, std::uint64_t chunk, long long stride, long long grad,
                                 const double* g, const double* losses, double* loss_out, double* dW_out) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t chunks = (count + chunk - 1) / chunk, per = static_cast<std::uint64_t>(grad) + 1;
  if (t >= chunks * per) return;
  const std::uint64_t c = t / per, e = t % per, end = c * chunk + chunk < count ? c * chunk + chunk : count;
  double sum = 0;
  if (e == static_cast<std::uint64_t>(grad)) {
    for (std::uint64_t i = c * chunk; i < end; ++i) sum += losses[i];
    loss_out[c] = sum;
  } else {
    for (std::uint64_t i = c * chunk; i < end; ++i) sum += g[static_cast<long long>(e) * stride + static_cast<long long>(i)];
    dW_out[c * static_cast<std::uint64_t>(grad) + e] = sum;
  }
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

namespace {

// A plan's arrays on the device, and its descriptors pointing to them.
struct DevicePlan {
  DeviceArray<double> chol, fixed_w, coef, weights, scale, zig;
  DeviceArray<long long> offset;
  DeviceArray<int> term_begin, kind, masked;
  DeviceArray<unsigned char> exps;
  portable::GaussianPromptDesc pd;
  portable::StackDesc nd;
  explicit DevicePlan(const portable::Plan& plan)
      : chol(plan.chol), fixed_w(plan.fixed_w), coef(plan.coef), weights(plan.weights), scale(plan.scale),
        zig(plan.zig), offset(plan.offset), term_begin(plan.term_begin), kind(plan.kind), masked(plan.masked),
        exps(plan.exps), pd(plan.prompt),
        nd(plan.net) {
    pd.chol = plan.prompt.chol ? chol.p : nullptr;
    pd.fixed_w = plan.prompt.fixed_w ? fixed_w.p : nullptr;
    pd.coef = coef.p;
    pd.term_begin = term_begin.p;
    pd.exps = exps.p;
    nd.weights = weights.p;
    nd.offset = offset.p;
    nd.kind = kind.p;
    nd.masked = masked.p;
    nd.scale = scale.p;
  }
};

}  // namespace

void prompt_losses(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t count,
                   double* out) {
  if (count == 0) return;
  const DevicePlan dp(plan);
  const portable::GaussianPromptDesc& pd = dp.pd;
  const portable::StackDesc& nd = dp.nd;
  const DeviceArray<double>& zig = dp.zig;
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

void minibatch_chunks(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count, std::uint64_t chunk,
                      double* loss, double* dW) {
  if (count == 0) return;
  const DevicePlan dp(plan);
  constexpr int kBlock = 128;
  const long long grad = dW ? plan.grad_size() : 0;
  const auto per = static_cast<std::uint64_t>((dW ? plan.grad_scratch_per_prompt() : plan.scratch_per_prompt()) + grad);
  // Launches of at most 2 GiB of scratch and gradients, a multiple of the block size and of the chunk of prompts.
  const std::uint64_t unit = std::lcm<std::uint64_t>(kBlock, chunk);
  std::uint64_t batch = std::max<std::uint64_t>(unit, ((std::uint64_t{1} << 28) / per) / unit * unit);
  batch = std::min(batch, (count + unit - 1) / unit * unit);
  DeviceArray<double> scratch(static_cast<std::size_t>(batch * per));
  DeviceArray<double> losses(static_cast<std::size_t>(batch));
  const std::uint64_t max_chunks = batch / chunk;
  DeviceArray<double> chunk_loss(static_cast<std::size_t>(max_chunks)),
      chunk_dW(static_cast<std::size_t>(max_chunks * static_cast<std::uint64_t>(grad)));
  double* g = scratch.p + (per - static_cast<std::uint64_t>(grad)) * batch;  // the gradients after the scratch
  for (std::uint64_t b = 0; b < count; b += batch) {
    const std::uint64_t m = std::min(batch, count - b), chunks = (m + chunk - 1) / chunk;
    const auto blocks = static_cast<unsigned>((m + kBlock - 1) / kBlock);
    if (dW)
      prompt_grad_kernel<<<blocks, kBlock>>>(dp.pd, dp.nd, dp.zig.p, key, b, m, scratch.p, static_cast<long long>(batch),
                                             grad, g, losses.p);
    else
      prompt_loss_kernel<<<blocks, kBlock>>>(dp.pd, dp.nd, dp.zig.p, key, b, m, scratch.p, static_cast<long long>(batch),
                                             losses.p);
    check(cudaGetLastError(), "kernel launch");
    const std::uint64_t threads = chunks * (static_cast<std::uint64_t>(grad) + 1);
    chunk_sum_kernel<<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock>>>(
        m, chunk, static_cast<long long>(batch), grad, g, losses.p, chunk_loss.p, chunk_dW.p);
    check(cudaGetLastError(), "kernel launch (chunk sums)");
    const std::uint64_t c0 = b / chunk;
    check(cudaMemcpy(loss + c0, chunk_loss.p, chunks * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (loss)");
    if (dW)
      check(cudaMemcpy(dW + c0 * static_cast<std::uint64_t>(grad), chunk_dW.p,
                       chunks * static_cast<std::uint64_t>(grad) * sizeof(double), cudaMemcpyDeviceToHost),
            "cudaMemcpy (gradients)");
  }
}

}  // namespace icl::cuda
