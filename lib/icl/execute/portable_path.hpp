// The portable path: the per-prompt arithmetic of execute/portable/ (what the cuda backend's kernels run) on the
// CPU, one prompt after another: per-prompt losses (Monte Carlo) and the training minibatch's loss and gradient. It is how ./test checks the GPU's arithmetic without a GPU: the same source,
// compiled by g++ with contraction off, against the CPU prompt source and the CPU executor
// (tests/execute/test_portable.cpp).
//
// Supported: prompts of icl::gaussian_prompts (any GaussianIclModel: covariance, polynomial basis, fixed w, noise;
// any embedding) and of icl::unstructured_prompts (xlssc's E_2, Gaussian or symmetric theta), and networks made of
// dense LSA layers (layers::Lsa, masked or not, any scale), bilinear layers (layers::Bilinear: sja's bilinear stacks)
// and softmax attention (layers::SoftmaxAttention: softmax or linear phi, causal or not), run up to the last layer
// that writes the prediction (Network::last_effective). Anything else throws Unsupported
// (execute/executor.hpp, a std::invalid_argument) with one line naming what is not supported.
// The portable backend (execute/planned_executor.hpp) runs these functions on the thread pool, a chunk per task.
#pragma once
#include "icl/execute/portable/plan.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/loss.hpp"
#include "icl/model/parameters.hpp"
#include "icl/model/prompt_source.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace icl::execute {

// The plan of (net, source, loss) in the given precision (portable/plan.hpp); `backend` names who asks, for the
// messages ("cuda backend").
std::unique_ptr<portable::Plan> plan_portable(const icl::Network& net, const icl::PromptSource& source,
                                              icl::LossSpec loss, const char* backend,
                                              portable::Precision precision = portable::Precision::f64);
// (k0, k1, h) of the stream (seed, purpose), PromptRng::stream_key.
portable::StreamKey portable_stream_key(std::uint64_t seed, std::uint64_t purpose);

// Prompt i of (seed, purpose) as the portable code draws it: Z (rows x cols, column-major) and y_q.
double portable_prompt(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i,
                       Eigen::MatrixXd& Z);
// One thread's scratch for the portable code's prompts: the doubles (d), in float32 the floats (f) and one prompt's
// float gradient (g); sized for the loss alone or, with `grad`, for the loss and its gradient.
struct PromptScratch {
  std::vector<double> d;
  std::vector<float> f, g;
  PromptScratch(const portable::Plan& plan, bool grad);
};
// out[i - first] = the portable code's loss of prompt i of the stream `key`, first <= i < last, in prompt order
// (scratch: PromptScratch(plan, false)). One chunk of a loss run (the portable backend's task).
void portable_loss_range(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t last,
                         PromptScratch& scratch, double* out);
// out[i] = the portable code's loss of prompt i, i < count, in prompt order (one thread).
void portable_losses(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose, std::uint64_t count,
                     std::vector<double>& out);
// The trainer's minibatch (Executor::minibatch) in two halves, so that the cuda backend runs the first on the GPU
// and shares the second. The chunk sums: chunks of Executor::kBatchChunk prompts, chunk c's loss loss[c] and, when
// dW is given, its gradient with respect to the layers' P and Q at (*dW)[c * plan.grad_size()], each summed over
// the chunk's prompts in prompt order (one thread here).
void portable_minibatch_chunks(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose,
                               std::uint64_t count, std::vector<double>& loss, std::vector<double>* dW);
// Chunk c of those (prompts c * Executor::kBatchChunk up to count, of the stream `key`): returns its loss summed in
// prompt order and, when dW_c is not null, adds each prompt's gradient into dW_c (plan.grad_size() doubles, zero on
// entry for the chunk's sum), in prompt order; in float32 each prompt's float gradient is added as doubles.
// `scratch`: PromptScratch(plan, dW_c != nullptr). The one loop of a minibatch chunk: portable_minibatch_chunks (one thread) and
// the portable backend (a chunk per task of the thread pool) both call it.
double portable_minibatch_chunk(const portable::Plan& plan, portable::StreamKey key, std::uint64_t c,
                                std::uint64_t count, PromptScratch& scratch, double* dW_c);
// From the chunk sums: each chunk's gradient pulled back to theta (params.pullback), then the chunks' losses and
// gradients added in chunk order, as the CPU executor does. Returns the summed loss; *grad when given.
double minibatch_from_chunks(const portable::Plan& plan, const icl::Parameterisation& params,
                             const std::vector<double>& loss, const std::vector<double>* dW, Eigen::VectorXd* grad);
// Both: the summed loss of prompts 0..count-1 and the summed gradient with respect to theta into *grad when given,
// where plan was made from params.network(theta).
double portable_minibatch(const portable::Plan& plan, const icl::Parameterisation& params, std::uint64_t seed,
                          std::uint64_t purpose, std::uint64_t count, Eigen::VectorXd* grad);

}  // namespace icl::execute
