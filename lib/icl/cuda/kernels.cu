// The cuda backend's kernels: one thread per prompt (schedule thread) or one block per prompt (schedule block,
// portable::Block: the block's threads split each step's entries) runs portable::prompt_loss, or
// portable::prompt_loss_grad and then one thread per (chunk, entry) adds the prompts' gradients in prompt order
// (execute/portable/plan.hpp): the arithmetic g++ compiles for the CPU's portable path, built with -fmad=false
// (CMakeLists.txt) so that nvcc forms no fused multiply-add the host code does not. Both schedules compute every
// entry as the same sum in the same order, so they give the same bits. Includes only the portable headers and the
// CUDA runtime (no Eigen: nvcc's compile time is part of every CI build).
#include "icl/cuda/kernels.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
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

// Thread t of the launch computes prompt first + t in the scalar type S (double, or float: plan.hpp); its scratch
// is interleaved with the other threads' (element e at scratch[e * stride + t], stride = the launch's thread count),
// so a warp's loads are contiguous: the doubles of the draw in `scratch`, in float the network's floats in
// `scratch32` (null in double).
template <typename S>
__global__ void prompt_loss_kernel(portable::PromptDesc pd, portable::StackDescT<S> nd, const double* zig,
                                   portable::StreamKey key, std::uint64_t first, std::uint64_t count, double* scratch,
                                   S* scratch32, long long stride, double* out) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  out[t] = portable::prompt_loss(pd, nd, portable::Plan::ziggurat_view(zig), key, first + t, scratch + t,
                                 scratch32 ? scratch32 + t : nullptr, stride);
}

// Thread t computes prompt first + t's loss and gradient: its gradient (grad entries of S) at g[e * stride + t],
// zeroed first, its scratch interleaved as above.
template <typename S>
__global__ void prompt_grad_kernel(portable::PromptDesc pd, portable::StackDescT<S> nd, const double* zig,
                                   portable::StreamKey key, std::uint64_t first, std::uint64_t count, double* scratch,
                                   S* scratch32, long long stride, long long grad, S* g, double* out) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  for (long long e = 0; e < grad; ++e) g[e * stride + static_cast<long long>(t)] = S(0);
  out[t] = portable::prompt_loss_grad(pd, nd, portable::Plan::ziggurat_view(zig), key, first + t, scratch + t,
                                      scratch32 ? scratch32 + t : nullptr, stride,
                                      portable::StridedT<S>{g + t, stride});
}

// The block schedule: block b of the launch computes prompt first + b with kBlockThreads threads (portable::Block);
// its scratch is contiguous, stride 1, at scratch + b * per (and scratch32 + b * per32). The grid is exactly the
// launch's prompts: every thread of a block must reach every step's __syncthreads.
constexpr int kBlockThreads = 128;

template <typename S>
__global__ void __launch_bounds__(kBlockThreads)
    prompt_loss_block_kernel(portable::PromptDesc pd, portable::StackDescT<S> nd, const double* zig,
                             portable::StreamKey key, std::uint64_t first, double* scratch, S* scratch32,
                             long long per, long long per32, double* out) {
  const long long b = blockIdx.x;
  const double loss =
      portable::prompt_loss<portable::Block>(pd, nd, portable::Plan::ziggurat_view(zig), key, first + b,
                                             scratch + b * per, scratch32 ? scratch32 + b * per32 : nullptr, 1);
  if (threadIdx.x == 0) out[b] = loss;
}

// Block b computes prompt first + b's loss and gradient; its gradient keeps the thread schedule's layout (grad
// entries at g[e * stride + b], zeroed first) so that chunk_sum_kernel adds either.
template <typename S>
__global__ void __launch_bounds__(kBlockThreads)
    prompt_grad_block_kernel(portable::PromptDesc pd, portable::StackDescT<S> nd, const double* zig,
                             portable::StreamKey key, std::uint64_t first, double* scratch, S* scratch32,
                             long long per, long long per32, long long stride, long long grad, S* g, double* out) {
  const long long b = blockIdx.x;
  portable::Block::each(grad, [&](long long e) { g[e * stride + b] = S(0); });
  const double loss = portable::prompt_loss_grad<portable::Block>(
      pd, nd, portable::Plan::ziggurat_view(zig), key, first + b, scratch + b * per,
      scratch32 ? scratch32 + b * per32 : nullptr, 1, portable::StridedT<S>{g + b, stride});
  if (threadIdx.x == 0) out[b] = loss;
}

// Thread (c, e) of a launch of `count` prompts (count a multiple of chunk but for the run's last launch): entry e of
// chunk c summed in double over its prompts in prompt order (e == grad: the loss).
template <typename S>
__global__ void chunk_sum_kernel(std::uint64_t count, std::uint64_t chunk, long long stride, long long grad,
                                 const S* g, const double* losses, double* loss_out, double* dW_out) {
  const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t chunks = (count + chunk - 1) / chunk, per = static_cast<std::uint64_t>(grad) + 1;
  if (t >= chunks * per) return;
  const std::uint64_t c = t / per, e = t % per, end = c * chunk + chunk < count ? c * chunk + chunk : count;
  double sum = 0;
  if (e == static_cast<std::uint64_t>(grad)) {
    for (std::uint64_t i = c * chunk; i < end; ++i) sum += losses[i];
    loss_out[c] = sum;
  } else {
    for (std::uint64_t i = c * chunk; i < end; ++i)
      sum += static_cast<double>(g[static_cast<long long>(e) * stride + static_cast<long long>(i)]);
    dW_out[c * static_cast<std::uint64_t>(grad) + e] = sum;
  }
}

// The schedule in force: ICL_CUDA_SCHEDULE's, read at the first call, unless set_schedule chose one.
std::atomic<int>& schedule_state() {
  static std::atomic<int> state{static_cast<int>(parse_schedule(std::getenv("ICL_CUDA_SCHEDULE")))};
  return state;
}

}  // namespace

Schedule parse_schedule(const char* value) {
  const std::string v = value ? value : "";
  if (v.empty() || v == "thread") return Schedule::thread;
  if (v == "block") return Schedule::block;
  throw std::invalid_argument("ICL_CUDA_SCHEDULE=" + v +
                              ": expected thread (one thread per prompt, the default) or block (one block per prompt)");
}

Schedule schedule() { return static_cast<Schedule>(schedule_state().load()); }

void set_schedule(Schedule s) { schedule_state().store(static_cast<int>(s)); }

const char* schedule_name(Schedule s) { return s == Schedule::block ? "block" : "thread"; }

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
  DeviceArray<double> chol, fixed_w, coef, theta0, weights, scale, zig;
  DeviceArray<float> weights32;
  DeviceArray<long long> offset;
  DeviceArray<int> term_begin, kind, masked, act;
  DeviceArray<unsigned char> exps;
  portable::PromptDesc pd;
  portable::StackDesc nd;
  portable::StackDescT<float> nd32;
  explicit DevicePlan(const portable::Plan& plan)
      : chol(plan.chol), fixed_w(plan.fixed_w), coef(plan.coef), theta0(plan.theta0), weights(plan.weights),
        scale(plan.scale), zig(plan.zig), weights32(plan.weights32), offset(plan.offset), term_begin(plan.term_begin),
        kind(plan.kind), masked(plan.masked), act(plan.act), exps(plan.exps), pd(plan.prompt), nd(plan.net),
        nd32(plan.net32) {
    pd.gaussian.chol = plan.prompt.gaussian.chol ? chol.p : nullptr;
    pd.gaussian.fixed_w = plan.prompt.gaussian.fixed_w ? fixed_w.p : nullptr;
    pd.gaussian.coef = coef.p;
    pd.gaussian.term_begin = term_begin.p;
    pd.gaussian.exps = exps.p;
    pd.unstructured.theta0 = plan.prompt.unstructured.theta0 ? theta0.p : nullptr;
    nd.weights = weights.p;
    nd.offset = offset.p;
    nd.kind = kind.p;
    nd.masked = masked.p;
    nd.act = act.p;
    nd.scale = scale.p;
    nd32 = portable::with_weights(nd, weights32.p);
  }
  template <typename S>
  const portable::StackDescT<S>& net() const {
    if constexpr (std::is_same_v<S, double>)
      return nd;
    else
      return nd32;
  }
};

// Launches of at most 2 GiB of scratch (and gradients), a multiple of `unit` prompts, none longer than the run.
std::uint64_t launch_prompts(std::uint64_t bytes_per_prompt, std::uint64_t unit, std::uint64_t count) {
  const std::uint64_t batch = std::max<std::uint64_t>(unit, ((std::uint64_t{1} << 31) / bytes_per_prompt) / unit * unit);
  return std::min(batch, (count + unit - 1) / unit * unit);
}

template <typename S>
void prompt_losses_in(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t count,
                      double* out) {
  const DevicePlan dp(plan);
  constexpr int kBlock = 128;
  const auto per = static_cast<std::uint64_t>(plan.scratch_per_prompt()),
             per32 = static_cast<std::uint64_t>(plan.scratch32_per_prompt());
  const std::uint64_t batch = launch_prompts(per * sizeof(double) + per32 * sizeof(S), kBlock, count);
  DeviceArray<double> scratch(static_cast<std::size_t>(batch * per));
  DeviceArray<S> scratch32(static_cast<std::size_t>(batch * per32));
  DeviceArray<double> losses(static_cast<std::size_t>(batch));
  const bool by_block = schedule() == Schedule::block;
  for (std::uint64_t b = 0; b < count; b += batch) {
    const std::uint64_t m = std::min(batch, count - b);
    const auto blocks = static_cast<unsigned>((m + kBlock - 1) / kBlock);
    if (by_block)
      prompt_loss_block_kernel<S><<<static_cast<unsigned>(m), kBlockThreads>>>(
          dp.pd, dp.net<S>(), dp.zig.p, key, first + b, scratch.p, per32 ? scratch32.p : nullptr,
          static_cast<long long>(per), static_cast<long long>(per32), losses.p);
    else
      prompt_loss_kernel<S><<<blocks, kBlock>>>(dp.pd, dp.net<S>(), dp.zig.p, key, first + b, m, scratch.p,
                                                per32 ? scratch32.p : nullptr, static_cast<long long>(batch), losses.p);
    check(cudaGetLastError(), "kernel launch");
    check(cudaMemcpy(out + b, losses.p, m * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (losses)");
  }
}

template <typename S>
void minibatch_chunks_in(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count,
                         std::uint64_t chunk, double* loss, double* dW) {
  const DevicePlan dp(plan);
  constexpr int kBlock = 128;
  const long long grad = dW ? plan.grad_size() : 0;
  const auto per = static_cast<std::uint64_t>(dW ? plan.grad_scratch_per_prompt() : plan.scratch_per_prompt()),
             per32 = static_cast<std::uint64_t>(dW ? plan.grad_scratch32_per_prompt() : plan.scratch32_per_prompt()),
             G = static_cast<std::uint64_t>(grad);
  // A multiple of the block size and of the chunk of prompts.
  const std::uint64_t batch =
      launch_prompts(per * sizeof(double) + (per32 + G) * sizeof(S), std::lcm<std::uint64_t>(kBlock, chunk), count);
  DeviceArray<double> scratch(static_cast<std::size_t>(batch * per));
  DeviceArray<S> scratch32(static_cast<std::size_t>(batch * per32)), g(static_cast<std::size_t>(batch * G));
  DeviceArray<double> losses(static_cast<std::size_t>(batch));
  const std::uint64_t max_chunks = batch / chunk;
  DeviceArray<double> chunk_loss(static_cast<std::size_t>(max_chunks)),
      chunk_dW(static_cast<std::size_t>(max_chunks * G));
  const bool by_block = schedule() == Schedule::block;
  for (std::uint64_t b = 0; b < count; b += batch) {
    const std::uint64_t m = std::min(batch, count - b), chunks = (m + chunk - 1) / chunk;
    const auto blocks = static_cast<unsigned>((m + kBlock - 1) / kBlock);
    S* const s32 = per32 ? scratch32.p : nullptr;
    const auto P = static_cast<long long>(per), P32 = static_cast<long long>(per32);
    if (by_block && dW)
      prompt_grad_block_kernel<S><<<static_cast<unsigned>(m), kBlockThreads>>>(
          dp.pd, dp.net<S>(), dp.zig.p, key, b, scratch.p, s32, P, P32, static_cast<long long>(batch), grad, g.p,
          losses.p);
    else if (by_block)
      prompt_loss_block_kernel<S><<<static_cast<unsigned>(m), kBlockThreads>>>(dp.pd, dp.net<S>(), dp.zig.p, key, b,
                                                                               scratch.p, s32, P, P32, losses.p);
    else if (dW)
      prompt_grad_kernel<S><<<blocks, kBlock>>>(dp.pd, dp.net<S>(), dp.zig.p, key, b, m, scratch.p, s32,
                                                static_cast<long long>(batch), grad, g.p, losses.p);
    else
      prompt_loss_kernel<S><<<blocks, kBlock>>>(dp.pd, dp.net<S>(), dp.zig.p, key, b, m, scratch.p, s32,
                                                static_cast<long long>(batch), losses.p);
    check(cudaGetLastError(), "kernel launch");
    const std::uint64_t threads = chunks * (G + 1);
    chunk_sum_kernel<S><<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock>>>(
        m, chunk, static_cast<long long>(batch), grad, g.p, losses.p, chunk_loss.p, chunk_dW.p);
    check(cudaGetLastError(), "kernel launch (chunk sums)");
    const std::uint64_t c0 = b / chunk;
    check(cudaMemcpy(loss + c0, chunk_loss.p, chunks * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (loss)");
    if (dW)
      check(cudaMemcpy(dW + c0 * G, chunk_dW.p, chunks * G * sizeof(double), cudaMemcpyDeviceToHost),
            "cudaMemcpy (gradients)");
  }
}

}  // namespace

void prompt_losses(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t count,
                   double* out) {
  if (count == 0) return;
  if (plan.precision == portable::Precision::f32)
    prompt_losses_in<float>(plan, key, first, count, out);
  else
    prompt_losses_in<double>(plan, key, first, count, out);
}

void minibatch_chunks(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count, std::uint64_t chunk,
                      double* loss, double* dW) {
  if (count == 0) return;
  if (plan.precision == portable::Precision::f32)
    minibatch_chunks_in<float>(plan, key, count, chunk, loss, dW);
  else
    minibatch_chunks_in<double>(plan, key, count, chunk, loss, dW);
}

}  // namespace icl::cuda
