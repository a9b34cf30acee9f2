// One prompt's gradient from the portable code (portable::prompt_loss_grad) against the central finite differences
// of its loss (portable::prompt_loss), every weight of the plan's stack: for the tests of the portable layers
// (tests/execute/test_portable.cpp, test_portable_softmax.cpp).
#pragma once
#include "icl/execute/portable/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace icl::test {

struct GradientCheck {
  bool same_loss = false;  // prompt_loss_grad's loss has prompt_loss's bits (the same steps)
  double scale = 0;        // the largest |finite difference|
  double worst = 0;        // the largest |finite difference - gradient|
};

// Prompt i of the stream `key` in float64; the plan's weights are moved by +-h (1e-5 relative, absolute below 1)
// one at a time and restored.
inline GradientCheck check_prompt_gradient(portable::Plan& plan, portable::StreamKey key, std::uint64_t i) {
  std::vector<double> scratch(static_cast<std::size_t>(plan.grad_scratch_per_prompt()));
  std::vector<double> plain(static_cast<std::size_t>(plan.scratch_per_prompt()));
  const auto loss = [&] {
    return portable::prompt_loss(plan.prompt, plan.net, plan.ziggurat(), key, i, plain.data(), nullptr, 1);
  };
  std::vector<double> dW(static_cast<std::size_t>(plan.grad_size()), 0.0);
  GradientCheck c;
  c.same_loss = portable::prompt_loss_grad(plan.prompt, plan.net, plan.ziggurat(), key, i, scratch.data(), nullptr,
                                           1, {dW.data(), 1}) == loss();
  for (std::size_t k = 0; k < dW.size(); ++k) {
    double& wk = plan.weights[k];  // what plan.net.weights points to
    const double saved = wk, h = 1e-5 * std::max(1.0, std::fabs(saved));
    wk = saved + h;
    const double up = loss();
    wk = saved - h;
    const double down = loss();
    wk = saved;
    const double fd = (up - down) / (2 * h);
    c.scale = std::max(c.scale, std::fabs(fd));
    c.worst = std::max(c.worst, std::fabs(fd - dW[k]));
  }
  return c;
}

}  // namespace icl::test
