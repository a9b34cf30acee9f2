// The plan's image (execute/portable/plan_image.hpp): the cuda backend copies a plan to the device as one block of
// bytes and runs the kernels on descriptors rebased into that copy. No GPU is needed to test the packing and the
// rebasing: here the block is copied to other host memory and the portable arithmetic runs on the view of it.
//   - every pointer of the view lies inside the copy, aligned for its type; null exactly where the plan's is null;
//   - losses and gradients (float64 and float32) through the view equal the plan's own bit for bit, for Gaussian
//     tasks (Cholesky factor, fixed w, polynomial terms), unstructured prompts (theta0 or Gaussian theta), LSA,
//     bilinear and softmax stacks;
//   - they still do after the plan's reals are overwritten with NaN, which changes the plan's own numbers: the view
//     reads only the copy;
//   - a descriptor pointing outside the plan's arrays is refused (std::logic_error).
#include "icl/execute/portable/plan_image.hpp"
#include "icl/execute/portable_path.hpp"
#include "icl/learn/forms.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/tasks.hpp"
#include "tests/support/random_stack.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace icl::execute {
namespace test_plan_image {  // named: a unity build compiles several test files as one unit
namespace {

using Act = layers::SoftmaxAttention::Activation;

struct Case {
  std::string name;
  icl::Network net;
  icl::PromptSource source;
};

std::vector<Case> cases() {
  std::vector<Case> v;
  Eigen::MatrixXd A(3, 3);
  A << 1.0, 0.2, -0.4, 0.0, 0.7, 0.3, 0.5, -0.1, 1.2;
  const Eigen::MatrixXd sigma = A * A.transpose() + 0.5 * Eigen::MatrixXd::Identity(3, 3);
  auto quad = GaussianIclModel::from_task(PolynomialTask::quadratic(3), sigma);
  quad.noise_sd = 0.25;
  const icl::PromptSource sja_quad = icl::gaussian_prompts(quad, sja_shape(3, 10, 12));
  auto fixed = GaussianIclModel::from_task(PolynomialTask::linear(2), Eigen::MatrixXd::Identity(2, 2));
  fixed.random_w = false;
  fixed.fixed_w = Eigen::Vector2d(0.75, -1.25);
  const icl::PromptSource acds_fixed = icl::gaussian_prompts(fixed, acds_shape(2, 9));
  Eigen::VectorXd t4(4);
  t4 << 0.5, -1.0, 0.25, 2.0;
  const icl::PromptSource un = icl::unstructured_prompts(4, 6, t4), un_gauss = icl::unstructured_prompts(3, 5);
  v.push_back({"sja quadratic, covariance, noise: 2 LSA layers, a bilinear one",
               test::random_lsa_stack(sja_quad.rows, 2, true, 0.0, 41, 0.4, true), sja_quad});
  v.push_back({"acds fixed w: 3 unmasked LSA layers", test::random_lsa_stack(acds_fixed.rows, 3, false, 0.05, 42, 0.4),
               acds_fixed});
  v.push_back({"unstructured theta0: causal softmax after LSA, 2 layers",
               test::random_softmax_stack(un.rows, 2, Act::softmax, true, 43, 0.4, true), un});
  v.push_back({"unstructured Gaussian theta: linear phi", test::random_softmax_stack(un_gauss.rows, 1, Act::linear,
                                                                                    false, 44, 0.4, false),
               un_gauss});
  return v;
}

// Losses and gradients of prompts 0..5 of stream (7, 13): every number's bits, through descriptors (pd, net).
template <typename S>
std::vector<std::uint64_t> numbers(const portable::Plan& plan, const portable::PromptDesc& pd,
                                   const portable::StackDescT<S>& net, const double* zig) {
  const portable::StreamKey key = portable_stream_key(7, 13);
  std::vector<double> d(static_cast<std::size_t>(plan.grad_scratch_per_prompt()) + 1);
  std::vector<S> f(static_cast<std::size_t>(plan.grad_scratch32_per_prompt()) + 1);
  std::vector<std::uint64_t> out;
  auto push = [&](auto x) {
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof x);
    out.push_back(b);
  };
  for (std::uint64_t i = 0; i < 6; ++i) {
    push(portable::prompt_loss(pd, net, portable::Plan::ziggurat_view(zig), key, i, d.data(), f.data(), 1));
    std::vector<S> g(static_cast<std::size_t>(plan.grad_size()), S(0));
    push(portable::prompt_loss_grad(pd, net, portable::Plan::ziggurat_view(zig), key, i, d.data(), f.data(), 1,
                                    portable::StridedT<S>{g.data(), 1}));
    for (S x : g) push(x);
  }
  return out;
}

std::vector<std::uint64_t> plan_numbers(const portable::Plan& plan, const portable::PromptDesc& pd,
                                        const portable::StackDesc& net, const portable::StackDescT<float>& net32,
                                        const double* zig) {
  return plan.precision == portable::Precision::f64 ? numbers<double>(plan, pd, net, zig)
                                                    : numbers<float>(plan, pd, net32, zig);
}

// p null exactly when `was` is; else inside [base, base + size), aligned for T.
template <typename T>
bool placed(const T* p, const T* was, const unsigned char* base, std::size_t size) {
  if (!p || !was) return !p && !was;
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(base);
  return a >= b && a - b <= size && a % alignof(T) == 0;
}

// The plan's reals overwritten with NaN, but the ziggurat's tables (NaN there would make its rejection loop run for
// ever). Its integers (layer kinds, offsets, terms) are left: other values there would run the plan's own
// descriptors past the scratch it sizes. `placed` checks those pointers and the tables'.
void poison(portable::Plan& p) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto* v : {&p.chol, &p.fixed_w, &p.coef, &p.theta0, &p.weights, &p.scale}) std::fill(v->begin(), v->end(), nan);
  std::fill(p.weights32.begin(), p.weights32.end(), std::numeric_limits<float>::quiet_NaN());
}

TEST_CASE("plan image: the descriptors rebased into a copy give the plan's losses and gradients, bit for bit") {
  int compared = 0;
  for (const auto& k : cases())
    for (const auto precision : {portable::Precision::f64, portable::Precision::f32}) {
      CAPTURE(k.name);
      CAPTURE(precision == portable::Precision::f32);
      const auto plan = plan_portable(k.net, k.source, icl::LossSpec::sja(), "test", precision);
      const auto want = plan_numbers(*plan, plan->prompt, plan->net, plan->net32, plan->zig.data());
      const portable::PlanImage image(*plan);
      REQUIRE(image.size() > 0);
      // The copy, away from the image's own bytes (as the device's copy is), at a 256-byte boundary.
      std::vector<unsigned char> memory(image.size() + 2 * portable::PlanImage::kAlign);
      auto* base = memory.data() + (portable::PlanImage::kAlign -
                                    reinterpret_cast<std::uintptr_t>(memory.data()) % portable::PlanImage::kAlign);
      std::memcpy(base, image.bytes(), image.size());
      const portable::PlanView v = image.view(base);
      const std::size_t n = image.size();
      const auto& pg = plan->prompt.gaussian;
      CHECK(placed(v.prompt.gaussian.chol, pg.chol, base, n));
      CHECK(placed(v.prompt.gaussian.fixed_w, pg.fixed_w, base, n));
      CHECK(placed(v.prompt.gaussian.term_begin, pg.term_begin, base, n));
      CHECK(placed(v.prompt.gaussian.coef, pg.coef, base, n));
      CHECK(placed(v.prompt.gaussian.exps, pg.exps, base, n));
      CHECK(placed(v.prompt.unstructured.theta0, plan->prompt.unstructured.theta0, base, n));
      CHECK(placed(v.net.weights, plan->net.weights, base, n));
      CHECK(placed(v.net.offset, plan->net.offset, base, n));
      CHECK(placed(v.net.kind, plan->net.kind, base, n));
      CHECK(placed(v.net.masked, plan->net.masked, base, n));
      CHECK(placed(v.net.act, plan->net.act, base, n));
      CHECK(placed(v.net.scale, plan->net.scale, base, n));
      CHECK(placed(v.net32.weights, plan->net32.weights, base, n));
      CHECK(v.net32.offset == v.net.offset);
      CHECK(placed(v.zig, plan->zig.data(), base, n));
      // The scalars come across unchanged.
      CHECK(v.prompt.kind == plan->prompt.kind);
      CHECK(v.prompt.extra == plan->prompt.extra);
      CHECK(v.net.layers == plan->net.layers);
      CHECK(v.net.loss_factor == plan->net.loss_factor);

      CHECK(plan_numbers(*plan, v.prompt, v.net, v.net32, v.zig) == want);
      poison(*plan);
      CHECK(plan_numbers(*plan, plan->prompt, plan->net, plan->net32, plan->zig.data()) != want);  // (poisoned)
      CHECK(plan_numbers(*plan, v.prompt, v.net, v.net32, v.zig) == want);
      ++compared;
    }
  CHECK(compared == 8);
}

TEST_CASE("plan image: a descriptor pointing outside the plan's arrays is refused") {
  const auto k = cases().front();
  const auto plan = plan_portable(k.net, k.source, icl::LossSpec::sja(), "test");
  const double elsewhere[4] = {1, 2, 3, 4};
  plan->net.scale = elsewhere;
  const portable::PlanImage image(*plan);
  CHECK_THROWS_AS(image.view(image.bytes()), std::logic_error);
  // A pointer inside an array, not at its start, moves with it: it reads the same value in the image.
  plan->scale.back() = 0.125;
  plan->net.scale = plan->scale.data() + (plan->scale.size() - 1);
  const portable::PlanImage moved(*plan);
  CHECK(*moved.view(moved.bytes()).net.scale == 0.125);
}

}  // namespace
}  // namespace test_plan_image
}  // namespace icl::execute
