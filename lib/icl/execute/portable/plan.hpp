// A network and a prompt source in the terms of the portable code (portable/gaussian_prompt.hpp,
// portable/stack.hpp): the arrays the descriptors point to, owned here. Host-only (std::vector), and free of
// Eigen, so that the cuda backend's .cu file includes it without the library's heavy headers (nvcc's compile time).
// Made by execute::plan_portable (execute/portable_path.hpp).
#pragma once
#include "icl/execute/portable/gaussian_prompt.hpp"
#include "icl/execute/portable/stack.hpp"
#include "icl/execute/portable/philox.hpp"

#include <vector>

namespace icl::portable {

struct Plan {
  GaussianPromptDesc prompt;  // points into the vectors below
  StackDesc net;
  // prompt
  std::vector<double> chol, fixed_w, coef;
  std::vector<int> term_begin;
  std::vector<unsigned char> exps;
  // network
  std::vector<double> weights, scale;
  std::vector<long long> offset;
  std::vector<int> kind, masked;
  long long weight_count = 0;  // the stack's weights (weights also holds a sentinel)
  // the ziggurat's tables, x | f | xs | sxs (257 + 257 + 257 + 512), PromptRng::ziggurat()'s values
  std::vector<double> zig;

  Plan() = default;
  Plan(const Plan&) = delete;  // the descriptors point into this object's vectors
  Plan& operator=(const Plan&) = delete;

  ZigguratView ziggurat() const { return ziggurat_view(zig.data()); }
  ICL_HD static ZigguratView ziggurat_view(const double* z) { return {z, z + 257, z + 514, z + 771}; }
  // Doubles of scratch per prompt: w (M), Z (D N), the layers' G, T and a column.
  long long scratch_per_prompt() const {
    return static_cast<long long>(prompt.M) + static_cast<long long>(prompt.rows) * prompt.cols +
           stack_scratch_size(prompt.rows);
  }
  // Doubles of scratch per prompt for the gradient: w (M), Z (D N), stack_loss_grad's tape and adjoint.
  long long grad_scratch_per_prompt() const {
    return static_cast<long long>(prompt.M) + static_cast<long long>(prompt.rows) * prompt.cols +
           stack_grad_scratch_size(net.layers, prompt.rows, prompt.cols);
  }
  // Doubles of one prompt's (or one sum's) gradient: every layer's weights, in their layout.
  long long grad_size() const { return weight_count; }
};

// Prompt i's loss: its stream, the prompt, the stack. `scratch` holds scratch_per_prompt() doubles at stride s
// (element e at scratch[e * s]). Host and device run this same function.
ICL_HD inline double prompt_loss(const GaussianPromptDesc& pd, const StackDesc& nd, ZigguratView zig, StreamKey key,
                                 std::uint64_t i, double* scratch, long long s) {
  PromptStream rng(key, i, zig);
  const Strided w{scratch, s};
  const Strided Z{scratch + static_cast<long long>(pd.M) * s, s};
  const Strided work{scratch + (static_cast<long long>(pd.M) + static_cast<long long>(pd.rows) * pd.cols) * s, s};
  const double yq = draw_gaussian_prompt(pd, rng, w, Z);
  return stack_loss(nd, Z, yq, work);
}

// Prompt i's loss, as prompt_loss, with its gradient with respect to the layers' weights added into dW
// (grad_size() doubles at stride dW.s); `scratch` holds grad_scratch_per_prompt() doubles at stride s.
ICL_HD inline double prompt_loss_grad(const GaussianPromptDesc& pd, const StackDesc& nd, ZigguratView zig,
                                      StreamKey key, std::uint64_t i, double* scratch, long long s, Strided dW) {
  PromptStream rng(key, i, zig);
  const Strided w{scratch, s};
  const Strided Z{scratch + static_cast<long long>(pd.M) * s, s};
  const Strided work{scratch + (static_cast<long long>(pd.M) + static_cast<long long>(pd.rows) * pd.cols) * s, s};
  const double yq = draw_gaussian_prompt(pd, rng, w, Z);
  return stack_loss_grad(nd, Z, yq, work, dW);
}

}  // namespace icl::portable
