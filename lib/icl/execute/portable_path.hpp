// The portable path: the per-prompt arithmetic of execute/portable/ (what the cuda backend's kernels run) on the
// CPU, one prompt after another. It is how ./test checks the GPU's arithmetic without a GPU: the same source,
// compiled by g++ with contraction off, against the CPU prompt source and the CPU executor
// (tests/execute/test_portable.cpp).
//
// Supported: prompts of learn::gaussian_prompts (any GaussianIclModel: covariance, polynomial basis, fixed w, noise;
// any embedding) and networks made of dense LSA layers (layers::Lsa, masked or not, any scale). Anything else
// throws std::invalid_argument with one line naming what is not supported.
#pragma once
#include "icl/execute/portable/plan.hpp"
#include "icl/learn/network.hpp"
#include "icl/learn/prompts.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace icl::execute {

// The plan of (net, source, loss); `backend` names who asks, for the messages ("cuda backend").
std::unique_ptr<portable::Plan> plan_portable(const learn::Network& net, const learn::PromptSource& source,
                                              learn::LossSpec loss, const char* backend);
// (k0, k1, h) of the stream (seed, purpose), PromptRng::stream_key.
portable::StreamKey portable_stream_key(std::uint64_t seed, std::uint64_t purpose);

// Prompt i of (seed, purpose) as the portable code draws it: Z (rows x cols, column-major) and y_q.
double portable_prompt(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i,
                       Eigen::MatrixXd& Z);
// out[i] = the portable code's loss of prompt i, i < count, in prompt order (one thread).
void portable_losses(const portable::Plan& plan, std::uint64_t seed, std::uint64_t purpose, std::uint64_t count,
                     std::vector<double>& out);

}  // namespace icl::execute
