// A network and a prompt source in the terms of the portable code (portable/prompt.hpp, portable/stack.hpp): the arrays the descriptors point to, owned here. Host-only (std::vector), and free of
// Eigen, so that the cuda backend's .cu file includes it without the library's heavy headers (nvcc's compile time).
// Made by execute::plan_portable (execute/portable_path.hpp).
#pragma once
#include "icl/execute/portable/prompt.hpp"
#include "icl/execute/portable/stack.hpp"
#include "icl/execute/portable/philox.hpp"
#include "icl/execute/precision.hpp"

#include <vector>

namespace icl::portable {

// The scalar type of the network's arithmetic (execute/precision.hpp). f64: everything in double (the default; the
// CPU engine's numbers to rounding). f32: the prompt is drawn in double exactly as in f64 (the same prompt), then Z,
// y_q and the weights are rounded to float and every layer, the loss and the per-prompt gradient run in float;
// per-prompt losses come back as doubles and sums over prompts (chunk sums) are formed in double, in prompt order.
using execute::Precision;

struct Plan {
  PromptDesc prompt;  // points into the vectors below
  StackDesc net;
  StackDescT<float> net32;    // the same network with the float copy of the weights (Precision::f32)
  Precision precision = Precision::f64;
  // prompt
  std::vector<double> chol, fixed_w, coef, theta0;
  std::vector<int> term_begin;
  std::vector<unsigned char> exps;
  // network
  std::vector<double> weights, scale;
  std::vector<float> weights32;  // weights rounded to float
  std::vector<long long> offset;
  std::vector<int> kind, masked, act;
  long long weight_count = 0;  // the stack's weights (weights also holds a sentinel)
  // the ziggurat's tables, x | f | xs | sxs (257 + 257 + 257 + 512), PromptRng::ziggurat()'s values
  std::vector<double> zig;

  Plan() = default;
  Plan(const Plan&) = delete;  // the descriptors point into this object's vectors
  Plan& operator=(const Plan&) = delete;

  ZigguratView ziggurat() const { return ziggurat_view(zig.data()); }
  ICL_HD static ZigguratView ziggurat_view(const double* z) { return {z, z + 257, z + 514, z + 771}; }
  // A prompt's scratch is two arrays: doubles (the draw: its extra (w or theta), Z (D N) and a slot for y_q; in f64
  // also the network's work) and, in
  // f32, floats (Z rounded, then the network's work). Sizes per prompt, in elements:
  // the loss,
  long long scratch_per_prompt() const { return draw_scratch() + (precision == Precision::f64 ? loss_work() : 0); }
  long long scratch32_per_prompt() const {
    return precision == Precision::f32 ? static_cast<long long>(prompt.rows) * prompt.cols + loss_work() : 0;
  }
  // the loss with its gradient (stack_loss_grad's tape and adjoint).
  long long grad_scratch_per_prompt() const { return draw_scratch() + (precision == Precision::f64 ? grad_work() : 0); }
  long long grad_scratch32_per_prompt() const {
    return precision == Precision::f32 ? static_cast<long long>(prompt.rows) * prompt.cols + grad_work() : 0;
  }
  // A prompt's scratch in bytes, both arrays (the floats exist in f32 only): the loss, or the loss with its gradient.
  long long scratch_bytes(bool grad) const {
    return (grad ? grad_scratch_per_prompt() : scratch_per_prompt()) * static_cast<long long>(sizeof(double)) +
           (grad ? grad_scratch32_per_prompt() : scratch32_per_prompt()) * static_cast<long long>(sizeof(float));
  }
  // Entries of one prompt's (or one sum's) gradient: every layer's weights, in their layout.
  long long grad_size() const { return weight_count; }

private:
  long long draw_scratch() const {
    return static_cast<long long>(prompt.extra) + static_cast<long long>(prompt.rows) * prompt.cols + 1;
  }
  long long loss_work() const { return stack_scratch_size(net); }
  long long grad_work() const { return stack_grad_scratch_size(net); }
};

// Prompt i of stream `key` drawn into the double scratch (its extra, then Z at element prompt.extra, then y_q),
// returning y_q; the network's input Z in the scalar type S: the drawn Z itself (double), or rounded into the first
// D N floats of `scratch32`. Scratch arrays at stride s (element e at [e * s]). The draw is one serial step (single):
// y_q reaches every thread of a block through its slot.
template <typename X = Serial, typename S>
ICL_HD inline double draw_network_input(const PromptDesc& pd, ZigguratView zig, StreamKey key,
                                        std::uint64_t i, double* scratch, typename NoDeduce<S>::type* scratch32, long long s,
                                        StridedT<S>& Z) {
  const long long DN = static_cast<long long>(pd.rows) * pd.cols;
  const Strided extra{scratch, s};
  const Strided Zd{scratch + static_cast<long long>(pd.extra) * s, s};
  const Strided yq{scratch + (static_cast<long long>(pd.extra) + DN) * s, s};
  X::single([&] {
    PromptStream rng(key, i, zig);
    yq[0] = draw_prompt(pd, rng, extra, Zd);
  });
  if constexpr (std::is_same_v<S, double>) {
    Z = Zd;
  } else {
    Z = StridedT<S>{scratch32, s};
    const StridedT<S> Zf = Z;
    X::each(DN, [&](long long e) { Zf[e] = static_cast<S>(Zd[e]); });
  }
  return yq[0];
}

// The network's work area after Z: in the double scratch after w, Z and y_q (double), after Z in scratch32 (float).
template <typename S>
ICL_HD inline StridedT<S> network_work(const PromptDesc& pd, double* scratch,
                                         typename NoDeduce<S>::type* scratch32, long long s) {
  const long long DN = static_cast<long long>(pd.rows) * pd.cols;
  if constexpr (std::is_same_v<S, double>)
    return StridedT<S>{scratch + (static_cast<long long>(pd.extra) + DN + 1) * s, s};
  else
    return StridedT<S>{scratch32 + DN * s, s};
}

// Prompt i's loss: its stream, the prompt, the stack in the scalar type S (nd: plan.net or plan.net32). `scratch`
// holds scratch_per_prompt() doubles and, for float, `scratch32` scratch32_per_prompt() floats (unused for double),
// both at stride s. Host and device run this same function, in the schedule X (schedule.hpp: Serial unless named;
// under Block every thread of the block returns the loss).
template <typename X = Serial, typename S>
ICL_HD inline double prompt_loss(const PromptDesc& pd, const StackDescT<S>& nd, ZigguratView zig,
                                 StreamKey key, std::uint64_t i, double* scratch,
                                 typename NoDeduce<S>::type* scratch32, long long s) {
  StridedT<S> Z{nullptr, s};
  const double yq = draw_network_input<X>(pd, zig, key, i, scratch, scratch32, s, Z);
  return static_cast<double>(stack_loss<X>(nd, Z, static_cast<S>(yq), network_work<S>(pd, scratch, scratch32, s)));
}

// Prompt i's loss, as prompt_loss, with its gradient with respect to the layers' weights added into dW (grad_size()
// entries of S at stride dW.s); the scratch holds grad_scratch_per_prompt() doubles and grad_scratch32_per_prompt()
// floats.
template <typename X = Serial, typename S>
ICL_HD inline double prompt_loss_grad(const PromptDesc& pd, const StackDescT<S>& nd, ZigguratView zig,
                                      StreamKey key, std::uint64_t i, double* scratch,
                                      typename NoDeduce<S>::type* scratch32, long long s, StridedT<S> dW) {
  StridedT<S> Z{nullptr, s};
  const double yq = draw_network_input<X>(pd, zig, key, i, scratch, scratch32, s, Z);
  return static_cast<double>(
      stack_loss_grad<X>(nd, Z, static_cast<S>(yq), network_work<S>(pd, scratch, scratch32, s), dW));
}

}  // namespace icl::portable
