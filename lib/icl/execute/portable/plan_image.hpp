// A plan (plan.hpp) as one block of bytes, and its descriptors pointing into wherever that block lies. The cuda
// backend copies a plan to the device in one cudaMemcpy into memory it keeps from call to call (cuda/kernels.cu),
// instead of one allocation and one copy per array; a training step on the GPU makes a new plan (new weights) every
// step. Host code only (std::vector); the device never sees a Plan, only a PlanView's descriptors. The plan must
// outlive its image.
//
//   PlanImage image(plan);                              // every array of the plan, each at a 256-byte-aligned offset
//   copy image.bytes() to `base` (host or device);      // image.size() bytes
//   const PlanView v = image.view(base);                // plan's descriptors, every pointer rebased into base
#pragma once
#include "icl/execute/portable/plan.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace icl::portable {

// What a kernel reads of a plan: the prompt source, the network in double and in float, the ziggurat's tables.
struct PlanView {
  PromptDesc prompt;
  StackDesc net;
  StackDescT<float> net32;
  const double* zig = nullptr;
  template <typename S>
  const StackDescT<S>& network() const {
    if constexpr (std::is_same_v<S, double>)
      return net;
    else
      return net32;
  }
};

class PlanImage {
public:
  static constexpr std::size_t kAlign = 256;  // cudaMalloc's alignment: every array aligned for any of its types

  explicit PlanImage(const Plan& plan) : plan_(plan) {
    each_array([&](const auto& v) {
      using T = typename std::decay_t<decltype(v)>::value_type;
      const std::size_t at = (bytes_.size() + kAlign - 1) / kAlign * kAlign;
      arrays_.push_back({reinterpret_cast<std::uintptr_t>(v.data()), v.size() * sizeof(T), at});
      bytes_.resize(at + v.size() * sizeof(T));
      if (!v.empty()) std::memcpy(bytes_.data() + at, v.data(), v.size() * sizeof(T));
    });
  }

  const unsigned char* bytes() const { return bytes_.data(); }
  std::size_t size() const { return bytes_.size(); }

  // The plan's descriptors with every pointer moved from the plan's arrays to the same element of the copy of
  // bytes() at `base` (null stays null). Throws std::logic_error for a pointer into none of the plan's arrays.
  PlanView view(const unsigned char* base) const {
    PlanView v;
    v.prompt = plan_.prompt;
    GaussianPromptDesc& g = v.prompt.gaussian;
    g.chol = at(base, g.chol);
    g.fixed_w = at(base, g.fixed_w);
    g.term_begin = at(base, g.term_begin);
    g.coef = at(base, g.coef);
    g.exps = at(base, g.exps);
    v.prompt.unstructured.theta0 = at(base, v.prompt.unstructured.theta0);
    v.net = plan_.net;
    v.net.weights = at(base, v.net.weights);
    v.net.offset = at(base, v.net.offset);
    v.net.kind = at(base, v.net.kind);
    v.net.masked = at(base, v.net.masked);
    v.net.act = at(base, v.net.act);
    v.net.scale = at(base, v.net.scale);
    v.net32 = with_weights(v.net, at(base, plan_.net32.weights));
    v.zig = at(base, plan_.zig.data());
    return v;
  }

private:
  struct Array {
    std::uintptr_t begin;  // the plan's array
    std::size_t bytes;
    std::size_t at;  // its offset in the image
  };

  template <class F>
  void each_array(F&& f) const {
    const Plan& p = plan_;
    f(p.chol), f(p.fixed_w), f(p.coef), f(p.theta0), f(p.term_begin), f(p.exps), f(p.weights), f(p.scale),
        f(p.weights32), f(p.offset), f(p.kind), f(p.masked), f(p.act), f(p.zig);
  }

  template <typename T>
  const T* at(const unsigned char* base, const T* p) const {
    if (!p) return nullptr;
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (const Array& r : arrays_)
      if (a == r.begin || (a > r.begin && a - r.begin < r.bytes))  // (an empty array: its data() itself)
        return reinterpret_cast<const T*>(base + r.at + (a - r.begin));
    throw std::logic_error("PlanImage: a descriptor points outside the plan's arrays");
  }

  const Plan& plan_;
  std::vector<unsigned char> bytes_;
  std::vector<Array> arrays_;
};

}  // namespace icl::portable
