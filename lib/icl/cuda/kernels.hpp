// The GPU-only part of the cuda backend: the CUDA runtime calls, device memory and the kernel launch (kernels.cu,
// compiled by nvcc). The arithmetic the kernel runs is execute/portable/ (the same source the CPU's portable path
// compiles); this header is plain C++ so that g++ compiles the rest of the backend (cuda_executor.cpp) without
// the CUDA headers. Built only where CMake finds nvcc (ICL_HAVE_CUDA).
#pragma once
#include "icl/execute/portable/plan.hpp"

#include <cstdint>
#include <string>

namespace icl::cuda {

// How many CUDA devices this process can use; 0 with the runtime's reason in *why when there are none (no
// driver, no device, a driver older than the runtime).
int device_count(std::string* why);
// The name of device 0 (for reports and the GPU check).
std::string device_name();

// How the kernels below split the work: one thread per prompt (thread: every step of a prompt on its thread, the
// prompts' scratch interleaved in global memory) or one block per prompt (the block's threads split each step's
// entries, portable::Block, each prompt's scratch contiguous): block keeps a prompt's scratch in the block's shared
// memory where it fits in 48 KB (else in global memory), block-global always in global memory. The same bits in all
// three (execute/portable/schedule.hpp). automatic, the default, takes per call the one measured fastest on an H200
// (bench/gpu/RESULTS.md, 27 November 2026): thread for losses alone (2 to 18 times block's speed on dense LSA stacks
// at d = 4, n = 200 and d = 8, n = 1600), block for a loss with its gradient (4.7 times thread's on the training step
// of a 12-layer bilinear stack at batch 4000, even with thread on a 3-layer LSA form's).
enum class Schedule { automatic, thread, block, block_global };
// "auto", "thread", "block" or "block-global" (null or empty: auto); another value throws std::invalid_argument
// naming it.
Schedule parse_schedule(const char* value);
// The schedule a call runs under: s itself, or for automatic, block where the call computes gradients, else thread.
Schedule resolve_schedule(Schedule s, bool gradient);
// The schedule in force: the environment variable ICL_CUDA_SCHEDULE (parse_schedule), read once, at the first
// call, unless set_schedule has chosen one (tests/gpu/cuda_equality.cpp runs its checks under both).
Schedule schedule();
void set_schedule(Schedule s);
const char* schedule_name(Schedule s);

// out[i] = portable::prompt_loss of prompt first + i of the stream `key`, i < count, computed on device 0 (one
// thread or one block per prompt: schedule(); in launches of at most a few GiB of scratch, in device memory kept for
// the next calls), copied back in prompt order. Throws std::runtime_error with the CUDA error's text when a call fails.
void prompt_losses(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t count,
                   double* out);

// A minibatch's chunk sums on device 0, as execute::portable_minibatch_chunks computes them on the CPU: chunks of
// `chunk` prompts of the stream `key` (prompts 0..count-1), chunk c's loss in loss[c] and, when dW is not null, its
// gradient with respect to the layers' P and Q at dW[c * plan.grad_size()], each summed over the chunk's prompts in
// prompt order from 0. One thread (or one block: schedule()) per prompt writes its own gradient
// (portable::prompt_loss_grad into zeroed memory: 0 + g = g exactly), then one thread per (chunk, entry) adds them in
// prompt order: the CPU's sums, bit for bit. Throws std::runtime_error with the CUDA error's text when a call fails.
void minibatch_chunks(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count, std::uint64_t chunk,
                      double* loss, double* dW);

}  // namespace icl::cuda
