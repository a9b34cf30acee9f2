// The portable code's softmax attention and unstructured prompts (execute/portable/softmax.hpp,
// unstructured_prompt.hpp: what the cuda and portable backends run for xlssc's one-layer search), against the CPU
// engine:
//   - portable_exp (the softmax's exp, the same bits on host and device) against std::exp, in ulps;
//   - prompt i of icl::unstructured_prompts (symmetric theta0 or Gaussian theta): theta's draws and the inputs bit
//     for bit, the labels to rounding (the CPU forms theta^T X with Eigen);
//   - per-prompt losses of softmax stacks (softmax and linear phi, causal or not, 1 and 2 layers, after an LSA
//     layer; on unstructured and on Gaussian-task prompts) against the CPU executor's losses() to 1e-12;
//   - each prompt's gradient against its central finite difference (every weight);
//   - the training minibatch (learn::softmax_stack) against the CPU executor's minibatch() to 1e-11;
//   - the portable backend (thread pool) against the portable path, bit for bit.
// (float32 on xlssc's one-layer softmax is measured with the other models in test_portable.cpp.)
// Each comparison can fail: another seed gives other numbers. (Compiled with -ffp-contract=off: CMakeLists.txt.)
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/portable_path.hpp"
#include "icl/learn/forms.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"
#include "tests/support/portable_checks.hpp"
#include "tests/support/random_stack.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace icl::execute {
namespace test_portable_softmax {  // named: a unity build compiles several test files as one unit
namespace {

using Act = layers::SoftmaxAttention::Activation;
using test::random_softmax_stack;

// Distance in units in the last place between two finite doubles of one sign.
std::int64_t ulps(double a, double b) {
  const auto ia = std::bit_cast<std::int64_t>(a), ib = std::bit_cast<std::int64_t>(b);
  return ia > ib ? ia - ib : ib - ia;
}

TEST_CASE("portable softmax: portable_exp is within 1 ulp of std::exp over the softmax's range, and exact at the edges") {
  PromptRng rng(3, 1, 0);
  std::int64_t worst = 0;
  int equal = 0, total = 0;
  const auto check_at = [&](double x) {
    const double mine = portable::portable_exp(x), ref = std::exp(x);
    CAPTURE(x);
    REQUIRE(std::isfinite(mine));
    const std::int64_t u = ulps(mine, ref);
    worst = std::max(worst, u);
    equal += u == 0;
    ++total;
    CHECK(u <= 1);
  };
  for (int k = 0; k < 200000; ++k) check_at(-40.0 * rng.uniform());          // where softmax weights live
  for (int k = 0; k < 50000; ++k) check_at(-745.0 * rng.uniform());          // down to the subnormals
  for (int k = 0; k < 20000; ++k) check_at(709.0 * rng.uniform());           // and above 0
  for (double x : {0.0, -0.0, -1e-300, 1e-300, -0.5 * std::log(2.0), 0.5 * std::log(2.0), -708.39, -708.4, -744.4})
    check_at(x);
  MESSAGE(total << " arguments: portable_exp vs std::exp at most " << worst << " ulp apart, " << equal
                << " equal bit for bit");
  CHECK(portable::portable_exp(0.0) == 1.0);
  CHECK(portable::portable_exp(-std::numeric_limits<double>::infinity()) == 0.0);
  CHECK(portable::portable_exp(-800.0) == 0.0);
  CHECK(std::isnan(portable::portable_exp(std::numeric_limits<double>::quiet_NaN())));
  CHECK(std::isinf(portable::portable_exp(800.0)));
}

struct UnstructuredCase {
  std::string name;
  icl::PromptSource source;
};

std::vector<UnstructuredCase> unstructured_cases() {
  Eigen::VectorXd t2(2), t5(5);
  t2 << 0.8, -0.3;
  t5 << 0.5, -1.0, 0.25, 0.0, 2.0;
  return {{"d = 2, D = 3, symmetric theta0", icl::unstructured_prompts(2, 3, t2)},
          {"d = 5, D = 10, symmetric theta0", icl::unstructured_prompts(5, 10, t5)},
          {"d = 3, D = 7, Gaussian theta", icl::unstructured_prompts(3, 7)}};
}

TEST_CASE("portable softmax: prompt i of unstructured prompts is the CPU drawer's: inputs bit for bit, labels to rounding") {
  int labels = 0, label_bits = 0;
  double worst = 0;
  for (const auto& uc : unstructured_cases()) {
    const auto plan = plan_portable(Network{}, uc.source, icl::LossSpec{-1.0, 1.0}, "test");
    const auto drawer = uc.source.make_drawer();
    const int d = uc.source.rows - 1, N = uc.source.cols;
    for (std::uint64_t seed : {1u, 2u})
      for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{1} << 33}) {
        CAPTURE(uc.name);
        CAPTURE(seed);
        CAPTURE(i);
        Eigen::MatrixXd ref(uc.source.rows, N), mine;
        const double yref = drawer(seed, 7, i, ref);
        const double ymine = portable_prompt(*plan, seed, 7, i, mine);
        REQUIRE(mine.rows() == ref.rows());
        REQUIRE(mine.cols() == ref.cols());
        for (int j = 0; j < N; ++j)
          for (int a = 0; a <= d; ++a) {
            const bool label = a == d && j % 2 == 1;
            if (!label) {
              CHECK(std::bit_cast<std::uint64_t>(mine(a, j)) == std::bit_cast<std::uint64_t>(ref(a, j)));
              continue;
            }
            const double scale = std::max(1.0, std::fabs(ref(a, j)));
            worst = std::max(worst, std::fabs(mine(a, j) - ref(a, j)) / scale);
            CHECK(std::fabs(mine(a, j) - ref(a, j)) <= 1e-15 * scale);
            label_bits += mine(a, j) == ref(a, j);
            ++labels;
          }
        CHECK(std::fabs(ymine - yref) <= 1e-15 * std::max(1.0, std::fabs(yref)));
        CHECK(ref.col(0).head(d).norm() > 0);
        // Can fail: another purpose draws another prompt.
        Eigen::MatrixXd other;
        portable_prompt(*plan, seed, 8, i, other);
        CHECK(other != ref);
      }
  }
  MESSAGE(labels << " context labels: portable vs CPU drawer at most " << worst << " apart (relative, absolute below 1), "
                 << label_bits << " equal bit for bit");
}

// The networks compared: one softmax layer (xlssc's), linear phi, two layers causal or not, an LSA layer first.
struct NetCase {
  std::string name;
  int layers;
  Act act;
  bool causal, lsa;
};
std::vector<NetCase> net_cases() {
  return {{"1 softmax, causal", 1, Act::softmax, true, false},
          {"1 linear phi, causal", 1, Act::linear, true, false},
          {"2 softmax, causal", 2, Act::softmax, true, false},
          {"2 softmax, not causal", 2, Act::softmax, false, false},
          {"2 linear phi, not causal", 2, Act::linear, false, false},
          {"lsa then 1 softmax", 1, Act::softmax, true, true},
          {"lsa then 2 softmax, not causal", 2, Act::softmax, false, true}};
}

// The prompt sources: unstructured (xlssc) and a Gaussian task's (acds embedding).
std::vector<UnstructuredCase> all_sources() {
  auto s = unstructured_cases();
  s.push_back({"acds, d = 3, n = 6",
               icl::gaussian_prompts(
                   GaussianIclModel::from_task(PolynomialTask::linear(3), Eigen::MatrixXd::Identity(3, 3)),
                   acds_shape(3, 6))});
  return s;
}

double weight_sd(const NetCase& nc, int D) { return (nc.act == Act::linear ? 0.3 : 0.8) / std::sqrt(D); }

TEST_CASE("portable softmax: per-prompt losses of softmax stacks are the CPU executor's to 1e-12") {
  const auto cpu = make_executor(Backend::cpu, 2);
  const icl::LossSpec loss{-1.0, 1.0};
  double worst = 0;
  int bitwise = 0, total = 0;
  const std::uint64_t count = 150;
  for (const auto& sc : all_sources())
    for (const auto& nc : net_cases()) {
      CAPTURE(sc.name);
      CAPTURE(nc.name);
      const int D = sc.source.rows;
      const Network net = random_softmax_stack(D, nc.layers, nc.act, nc.causal, 23, weight_sd(nc, D), nc.lsa);
      std::vector<double> ref, mine;
      cpu->losses(net, sc.source, loss, 5, 6, count, ref);
      const auto plan = plan_portable(net, sc.source, loss, "test");
      portable_losses(*plan, 5, 6, count, mine);
      REQUIRE(mine.size() == ref.size());
      for (std::size_t i = 0; i < ref.size(); ++i) {
        const double err = std::fabs(mine[i] - ref[i]) / std::max(std::fabs(ref[i]), 1.0);
        worst = std::max(worst, err);
        bitwise += mine[i] == ref[i];
        ++total;
        CAPTURE(i);
        CAPTURE(ref[i]);
        REQUIRE(err <= 1e-12);
      }
      std::vector<double> other;
      portable_losses(*plan, 6, 6, count, other);
      CHECK(other != ref);
    }
  MESSAGE(total << " per-prompt losses of softmax stacks: max difference portable vs CPU executor (relative, absolute "
                   "below 1) "
                << worst << ", " << bitwise << " equal bit for bit");
  CHECK(total == 4 * 7 * 150);
}

TEST_CASE("portable softmax: the gradient of one prompt's loss is its central finite difference (every weight)") {
  const icl::LossSpec loss{-1.0, 1.0};
  for (const auto& sc : all_sources())
    for (const auto& nc : net_cases()) {
      CAPTURE(sc.name);
      CAPTURE(nc.name);
      const int D = sc.source.rows;
      const Network net = random_softmax_stack(D, nc.layers, nc.act, nc.causal, 41, weight_sd(nc, D), nc.lsa);
      const auto plan = plan_portable(net, sc.source, loss, "test");
      for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{11}}) {
        const test::GradientCheck g = test::check_prompt_gradient(*plan, portable_stream_key(9, 4), i);
        CHECK(g.same_loss);
        CAPTURE(i);
        CAPTURE(g.scale);
        CAPTURE(g.worst);
        CHECK(g.scale > 0);
        CHECK(g.worst <= 1e-6 * std::max(1.0, g.scale));
      }
    }
}

TEST_CASE("portable softmax: the minibatch's loss and gradient (learn::softmax_stack) are the CPU executor's to 1e-11") {
  const icl::LossSpec loss{-1.0, 1.0};
  double worst_loss = 0, worst_grad = 0;
  int compared = 0;
  for (const auto& sc : unstructured_cases())
    for (const auto& nc : net_cases()) {
      if (nc.lsa) continue;  // softmax_stack: softmax layers only
      CAPTURE(sc.name);
      CAPTURE(nc.name);
      const int d = sc.source.rows - 1;
      const icl::Parameterisation params = learn::softmax_stack(d, nc.layers, nc.act, nc.causal);
      Eigen::VectorXd theta(params.size());
      PromptRng rng(78, 5, static_cast<std::uint64_t>(params.size()));
      for (Eigen::Index k = 0; k < theta.size(); ++k) theta[k] = weight_sd(nc, d + 1) * rng.normal();
      const auto plan = plan_portable(params.network(theta), sc.source, loss, "test");
      const test::MinibatchComparison c = test::compare_minibatch(*plan, params, theta, sc.source, loss, 150);
      worst_loss = std::max(worst_loss, c.rel_loss);
      worst_grad = std::max(worst_grad, c.rel_grad);
      ++compared;
      CHECK(c.rel_loss <= 1e-12);
      CHECK(c.rel_grad <= 1e-11);
      CHECK(c.ref_norm > 0);
      CHECK(c.loss_alone_same);  // the loss without the gradient
      // Can fail: another purpose draws other prompts, with another gradient.
      CHECK(c.other_diff > 1e-6 * c.ref_norm);
    }
  MESSAGE(compared << " minibatches of softmax stacks: max relative difference portable vs CPU executor: loss "
                   << worst_loss << ", gradient (max norm) " << worst_grad);
  CHECK(compared == 3 * 5);
}

TEST_CASE("portable softmax: the portable backend's losses() and minibatch() are the portable path's bit for bit at 1, 2 and 3 threads") {
  const icl::LossSpec loss{-1.0, 1.0};
  const icl::PromptSource source = icl::unstructured_prompts(5, 30, Eigen::VectorXd::Constant(5, 0.5));
  const icl::Parameterisation params = learn::softmax_stack(5, 1, Act::softmax, true);  // xlssc.onelayer's search
  Eigen::VectorXd theta(params.size());
  PromptRng rng(5, 5, 5);
  for (Eigen::Index k = 0; k < theta.size(); ++k) theta[k] = 0.3 * rng.normal();
  const Network net = params.network(theta);
  const auto plan = plan_portable(net, source, loss, "test");
  std::vector<double> ref;
  portable_losses(*plan, 21, 22, 700, ref);  // two full loss chunks and a short one
  Eigen::VectorXd gref;
  const double lref = portable_minibatch(*plan, params, 12, 13, 150, &gref);
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    const auto ex = make_executor(Backend::portable, threads);
    std::vector<double> got;
    ex->losses(net, source, loss, 21, 22, 700, got);
    CHECK(got == ref);
    Eigen::VectorXd g;
    CHECK(ex->minibatch(params, theta, source, loss, 12, 13, 150, &g) == lref);
    CHECK(g == gref);
  }
  // Can fail: another seed.
  std::vector<double> other;
  make_executor(Backend::portable, 2)->losses(net, source, loss, 23, 22, 700, other);
  CHECK(other != ref);
}

}  // namespace
}  // namespace test_portable_softmax
}  // namespace icl::execute
