// The cuda backend's kernels: one thread per prompt (schedule thread) or one block per prompt (schedule block,
// portable::Block: the block's threads split each step's entries) runs portable::prompt_loss, or
// portable::prompt_loss_grad and then one thread per (chunk, entry) adds the prompts' gradients in prompt order
// (execute/portable/plan.hpp): the arithmetic g++ compiles for the CPU's portable path, built with -fmad=false
// (CMakeLists.txt) so that nvcc forms no fused multiply-add the host code does not. Both schedules compute every
// entry as the same sum in the same order, so they give the same bits. Includes only the portable headers and the
// CUDA runtime (no Eigen: nvcc's compile time is part of every CI build). Device memory: a call takes a workspace
// from a pool kept for the process (grown when a call needs more), and copies the plan into it in one cudaMemcpy
// (portable/plan_image.hpp); no allocation and one upload per call once the workspace is large enough.
#include "icl/cuda/kernels.hpp"
#include "icl/execute/portable/plan_image.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace icl::cuda {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}

// Device memory kept from call to call: grown (freed and allocated anew, the old contents not kept) when a call
// needs more, never shrunk. cudaMalloc and cudaFree take from tens of microseconds to milliseconds, and cudaFree
// waits for the device: a training step on the GPU is one call, so per-call allocations would be paid every step.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(p_); }
  // At least n elements of T (at least one byte), 256-byte aligned (cudaMalloc's alignment).
  template <class T>
  T* get(std::size_t n) {
    const std::size_t bytes = std::max<std::size_t>(n * sizeof(T), 1);
    if (bytes > capacity_) {
      cudaFree(p_);
      p_ = nullptr;
      capacity_ = 0;
      check(cudaMalloc(&p_, bytes), "cudaMalloc");
      capacity_ = bytes;
    }
    return static_cast<T*>(p_);
  }

private:
  void* p_ = nullptr;
  std::size_t capacity_ = 0;
};

// What one call uses on the device: the plan's image (portable/plan_image.hpp), the prompts' scratch, their
// gradients and losses, the chunk sums.
struct Workspace {
  DeviceBuffer plan, scratch, scratch32, g, losses, chunk_loss, chunk_dW;
};

// The workspaces of the calls in progress and of the calls done, which the next calls take again: as many as calls
// have run at once (a training run's host threads may each call), each as large as the largest call it served
// (at most a few GiB: launch_prompts). Never freed: the pool lives until the process ends, whose exit releases the
// device memory (freeing it in a static destructor could run after the CUDA runtime has been torn down).
class WorkspacePool {
public:
  static WorkspacePool& instance() {
    static WorkspacePool* pool = new WorkspacePool;
    return *pool;
  }
  // A workspace for one call, back to the pool when the lease ends (also when the call throws).
  class Lease {
  public:
    explicit Lease(WorkspacePool& pool) : pool_(pool), w_(pool.take()) {}
    ~Lease() { pool_.give(std::move(w_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Workspace& operator*() const { return *w_; }
    Workspace* operator->() const { return w_.get(); }

  private:
    WorkspacePool& pool_;
    std::unique_ptr<Workspace> w_;
  };

private:
  std::unique_ptr<Workspace> take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) return std::make_unique<Workspace>();
    auto w = std::move(free_.back());
    free_.pop_back();
    return w;
  }
  void give(std::unique_ptr<Workspace> w) {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(w));
  }
  std::mutex mutex_;
  std::vector<std::unique_ptr<Workspace>> free_;
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

// The block schedules: block b of the launch computes prompt first + b with kBlockThreads threads (portable::Block).
// Its scratch is contiguous, stride 1: in shared memory (`shared`: schedule block where the prompt's scratch fits in
// kSharedScratch bytes; the doubles, then the floats) or else at scratch + b * per (and scratch32 + b * per32) in
// global memory. The same sums in the same order either way, so the same bits. The grid is exactly the launch's
// prompts: every thread of a block must reach every step's __syncthreads.
constexpr int kBlockThreads = 128;
// The dynamic shared memory a block may use without opting in (cudaFuncSetAttribute): four such blocks fit an
// H200 SM's 228 KB.
constexpr std::uint64_t kSharedScratch = 48 * 1024;

template <typename S>
__device__ inline void block_scratch(bool shared, double* scratch, S* scratch32, long long per, long long per32,
                                     double*& s, S*& s32) {
  extern __shared__ double block_shared[];
  const long long b = blockIdx.x;
  if (shared) {
    s = block_shared;
    s32 = per32 ? reinterpret_cast<S*>(block_shared + per) : nullptr;
  } else {
    s = scratch + b * per;
    s32 = scratch32 ? scratch32 + b * per32 : nullptr;
  }
}

template <typename S>
__global__ void __launch_bounds__(kBlockThreads)
    prompt_loss_block_kernel(portable::PromptDesc pd, portable::StackDescT<S> nd, const double* zig,
                             portable::StreamKey key, std::uint64_t first, bool shared, double* scratch, S* scratch32,
                             long long per, long long per32, double* out) {
  const long long b = blockIdx.x;
  double* s = nullptr;
  S* s32 = nullptr;
  block_scratch(shared, scratch, scratch32, per, per32, s, s32);
  const double loss = portable::prompt_loss<portable::Block>(pd, nd, portable::Plan::ziggurat_view(zig), key,
                                                             first + b, s, s32, 1);
  if (threadIdx.x == 0) out[b] = loss;
}

// Block b computes prompt first + b's loss and gradient; its gradient keeps the thread schedule's layout (grad
// entries at g[e * stride + b], zeroed first) so that chunk_sum_kernel adds either.
template <typename S>
__global__ void __launch_bounds__(kBlockThreads)
    prompt_grad_block_kernel(portable::PromptDesc pd, portable::StackDescT<S> nd, const double* zig,
                             portable::StreamKey key, std::uint64_t first, bool shared, double* scratch, S* scratch32,
                             long long per, long long per32, long long stride, long long grad, S* g, double* out) {
  const long long b = blockIdx.x;
  double* s = nullptr;
  S* s32 = nullptr;
  block_scratch(shared, scratch, scratch32, per, per32, s, s32);
  portable::Block::each(grad, [&](long long e) { g[e * stride + b] = S(0); });
  const double loss = portable::prompt_loss_grad<portable::Block>(
      pd, nd, portable::Plan::ziggurat_view(zig), key, first + b, s, s32, 1, portable::StridedT<S>{g + b, stride});
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
  if (v.empty() || v == "auto") return Schedule::automatic;
  if (v == "thread") return Schedule::thread;
  if (v == "block") return Schedule::block;
  if (v == "block-global") return Schedule::block_global;
  throw std::invalid_argument("ICL_CUDA_SCHEDULE=" + v +
                              ": expected auto (the default: thread for losses, block for gradients), thread (one "
                              "thread per prompt), block (one block per prompt, its scratch in shared memory where it "
                              "fits) or block-global (its scratch in global memory)");
}

Schedule schedule() { return static_cast<Schedule>(schedule_state().load()); }

void set_schedule(Schedule s) { schedule_state().store(static_cast<int>(s)); }

const char* schedule_name(Schedule s) {
  return s == Schedule::automatic ? "auto"
         : s == Schedule::block  ? "block"
         : s == Schedule::block_global ? "block-global"
                                       : "thread";
}

Schedule resolve_schedule(Schedule s, bool gradient) {
  if (s != Schedule::automatic) return s;
  return gradient ? Schedule::block : Schedule::thread;
}

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

// The plan on the device: its image (portable/plan_image.hpp) copied in one cudaMemcpy into the workspace, and its
// descriptors pointing there.
portable::PlanView upload(const portable::Plan& plan, Workspace& w) {
  const portable::PlanImage image(plan);
  unsigned char* base = w.plan.get<unsigned char>(image.size());
  check(cudaMemcpy(base, image.bytes(), image.size(), cudaMemcpyHostToDevice), "cudaMemcpy (plan)");
  return image.view(base);
}

// Launches of at most 2 GiB of scratch (and gradients), a multiple of `unit` prompts, none longer than the run.
std::uint64_t launch_prompts(std::uint64_t bytes_per_prompt, std::uint64_t unit, std::uint64_t count) {
  const std::uint64_t batch = std::max<std::uint64_t>(unit, ((std::uint64_t{1} << 31) / bytes_per_prompt) / unit * unit);
  return std::min(batch, (count + unit - 1) / unit * unit);
}

// Where a launch's prompts keep their scratch (`grad`: the loss with its gradient): in shared memory, shared_bytes
// a block, under schedule block where a prompt's fits in kSharedScratch; else in the workspace's global arrays,
// `batch` prompts' worth (scratch32 null where the plan has no floats).
template <typename S>
struct LaunchScratch {
  std::size_t shared_bytes = 0;
  double* scratch = nullptr;
  S* scratch32 = nullptr;
  bool shared() const { return shared_bytes > 0; }
};

template <typename S>
LaunchScratch<S> launch_scratch(const portable::Plan& plan, bool grad, Schedule sch, Workspace& w,
                                std::uint64_t batch) {
  const auto bytes = static_cast<std::uint64_t>(plan.scratch_bytes(grad));
  if (sch == Schedule::block && bytes <= kSharedScratch) return {static_cast<std::size_t>(bytes), nullptr, nullptr};
  const auto per = static_cast<std::uint64_t>(grad ? plan.grad_scratch_per_prompt() : plan.scratch_per_prompt()),
             per32 = static_cast<std::uint64_t>(grad ? plan.grad_scratch32_per_prompt() : plan.scratch32_per_prompt());
  return {0, w.scratch.get<double>(static_cast<std::size_t>(batch * per)),
          per32 ? w.scratch32.get<S>(static_cast<std::size_t>(batch * per32)) : nullptr};
}

template <typename S>
void prompt_losses_in(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t count,
                      double* out) {
  const WorkspacePool::Lease w(WorkspacePool::instance());
  const portable::PlanView dp = upload(plan, *w);
  constexpr int kBlock = 128;
  const auto per = static_cast<std::uint64_t>(plan.scratch_per_prompt()),
             per32 = static_cast<std::uint64_t>(plan.scratch32_per_prompt());
  const std::uint64_t batch = launch_prompts(per * sizeof(double) + per32 * sizeof(S), kBlock, count);
  const Schedule sch = resolve_schedule(schedule(), false);
  const bool by_block = sch != Schedule::thread;
  const LaunchScratch<S> ls = launch_scratch<S>(plan, false, sch, *w, batch);
  double* const losses = w->losses.get<double>(static_cast<std::size_t>(batch));
  for (std::uint64_t b = 0; b < count; b += batch) {
    const std::uint64_t m = std::min(batch, count - b);
    const auto blocks = static_cast<unsigned>((m + kBlock - 1) / kBlock);
    if (by_block)
      prompt_loss_block_kernel<S><<<static_cast<unsigned>(m), kBlockThreads, ls.shared_bytes>>>(
          dp.prompt, dp.network<S>(), dp.zig, key, first + b, ls.shared(), ls.scratch, ls.scratch32,
          static_cast<long long>(per), static_cast<long long>(per32), losses);
    else
      prompt_loss_kernel<S><<<blocks, kBlock>>>(dp.prompt, dp.network<S>(), dp.zig, key, first + b, m, ls.scratch,
                                                ls.scratch32, static_cast<long long>(batch), losses);
    check(cudaGetLastError(), "kernel launch");
    check(cudaMemcpy(out + b, losses, m * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (losses)");
  }
}

template <typename S>
void minibatch_chunks_in(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count,
                         std::uint64_t chunk, double* loss, double* dW) {
  const WorkspacePool::Lease w(WorkspacePool::instance());
  const portable::PlanView dp = upload(plan, *w);
  constexpr int kBlock = 128;
  const long long grad = dW ? plan.grad_size() : 0;
  const auto per = static_cast<std::uint64_t>(dW ? plan.grad_scratch_per_prompt() : plan.scratch_per_prompt()),
             per32 = static_cast<std::uint64_t>(dW ? plan.grad_scratch32_per_prompt() : plan.scratch32_per_prompt()),
             G = static_cast<std::uint64_t>(grad);
  // A multiple of the block size and of the chunk of prompts.
  const std::uint64_t batch =
      launch_prompts(per * sizeof(double) + (per32 + G) * sizeof(S), std::lcm<std::uint64_t>(kBlock, chunk), count);
  const Schedule sch = resolve_schedule(schedule(), dW != nullptr);
  const bool by_block = sch != Schedule::thread;
  const LaunchScratch<S> ls = launch_scratch<S>(plan, dW != nullptr, sch, *w, batch);
  S* const g = w->g.get<S>(static_cast<std::size_t>(batch * G));
  double* const losses = w->losses.get<double>(static_cast<std::size_t>(batch));
  const std::uint64_t max_chunks = batch / chunk;
  double* const chunk_loss = w->chunk_loss.get<double>(static_cast<std::size_t>(max_chunks));
  double* const chunk_dW = w->chunk_dW.get<double>(static_cast<std::size_t>(max_chunks * G));
  for (std::uint64_t b = 0; b < count; b += batch) {
    const std::uint64_t m = std::min(batch, count - b), chunks = (m + chunk - 1) / chunk;
    const auto blocks = static_cast<unsigned>((m + kBlock - 1) / kBlock);
    const auto P = static_cast<long long>(per), P32 = static_cast<long long>(per32);
    if (by_block && dW)
      prompt_grad_block_kernel<S><<<static_cast<unsigned>(m), kBlockThreads, ls.shared_bytes>>>(
          dp.prompt, dp.network<S>(), dp.zig, key, b, ls.shared(), ls.scratch, ls.scratch32, P, P32,
          static_cast<long long>(batch), grad, g, losses);
    else if (by_block)
      prompt_loss_block_kernel<S><<<static_cast<unsigned>(m), kBlockThreads, ls.shared_bytes>>>(
          dp.prompt, dp.network<S>(), dp.zig, key, b, ls.shared(), ls.scratch, ls.scratch32, P, P32, losses);
    else if (dW)
      prompt_grad_kernel<S><<<blocks, kBlock>>>(dp.prompt, dp.network<S>(), dp.zig, key, b, m, ls.scratch,
                                                ls.scratch32, static_cast<long long>(batch), grad, g, losses);
    else
      prompt_loss_kernel<S><<<blocks, kBlock>>>(dp.prompt, dp.network<S>(), dp.zig, key, b, m, ls.scratch,
                                                ls.scratch32, static_cast<long long>(batch), losses);
    check(cudaGetLastError(), "kernel launch");
    const std::uint64_t threads = chunks * (G + 1);
    chunk_sum_kernel<S><<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock>>>(
        m, chunk, static_cast<long long>(batch), grad, g, losses, chunk_loss, chunk_dW);
    check(cudaGetLastError(), "kernel launch (chunk sums)");
    const std::uint64_t c0 = b / chunk;
    check(cudaMemcpy(loss + c0, chunk_loss, chunks * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy (loss)");
    if (dW)
      check(cudaMemcpy(dW + c0 * G, chunk_dW, chunks * G * sizeof(double), cudaMemcpyDeviceToHost),
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
