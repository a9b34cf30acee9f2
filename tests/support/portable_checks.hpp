// Checks of the portable code shared by the tests of its layers (tests/execute/test_portable.cpp,
// test_portable_softmax.cpp): one prompt's gradient against the central finite differences of its loss, and the
// portable minibatch against the CPU executor's.
#pragma once
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/portable/plan.hpp"
#include "icl/execute/portable_path.hpp"
#include "icl/model/parameters.hpp"
#include "icl/model/prompt_source.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
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

// The portable minibatch of plan (made from params.network(theta)) against the CPU executor's minibatch() on the
// same stream (seed 12, purpose 13, `count` prompts), and at another purpose (14), which must differ.
struct MinibatchComparison {
  double rel_loss = 0, rel_grad = 0;  // |portable - cpu| / |cpu|: the loss; the gradient in the max norm
  double ref_norm = 0;                // the CPU gradient's max norm
  bool loss_alone_same = false;       // the loss without the gradient has the same bits
  double other_diff = 0;              // max norm of (the gradient at purpose 14 - the CPU's at 13)
};

inline MinibatchComparison compare_minibatch(const portable::Plan& plan, const icl::Parameterisation& params,
                                             const Eigen::VectorXd& theta, const icl::PromptSource& source,
                                             icl::LossSpec loss, std::uint64_t count) {
  // A fresh executor: one keeps its scratch for the same params' address.
  const auto cpu = execute::make_executor(execute::Backend::cpu, 2);
  Eigen::VectorXd ref, mine, other;
  const double lref = cpu->minibatch(params, theta, source, loss, 12, 13, count, &ref);
  const double lmine = execute::portable_minibatch(plan, params, 12, 13, count, &mine);
  MinibatchComparison c;
  c.ref_norm = ref.lpNorm<Eigen::Infinity>();
  c.rel_loss = std::fabs(lmine - lref) / std::fabs(lref);
  c.rel_grad = mine.size() == ref.size() ? (mine - ref).lpNorm<Eigen::Infinity>() / c.ref_norm
                                         : std::numeric_limits<double>::infinity();
  c.loss_alone_same = execute::portable_minibatch(plan, params, 12, 13, count, nullptr) == lmine;
  execute::portable_minibatch(plan, params, 12, 14, count, &other);
  c.other_diff = (other - ref).lpNorm<Eigen::Infinity>();
  return c;
}

}  // namespace icl::test
