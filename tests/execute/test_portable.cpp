// The portable per-prompt arithmetic (execute/portable/: what the cuda backend's kernel runs), compiled by g++ for
// the CPU, against the CPU engine, so that every build tests the GPU's arithmetic without a GPU:
//   - the stream (Philox4x32-10 words, uniforms, ziggurat normals including the wedge and tail paths) is
//     PromptRng's, bit for bit;
//   - prompt i of a Gaussian task (isotropic or not, linear or quadratic basis, fixed w, noise; sja, acds and zfb
//     embeddings) is icl::gaussian_prompts' prompt i, bit for bit, for several seeds, purposes and indices
//     (beyond 2^32 too);
//   - the per-prompt loss of 1-, 2- and 3-layer dense LSA stacks (masked or not, scale 1/n or set; with bilinear
//     layers between them where the scale is set) is the CPU executor's losses() to 1e-12 relative (absolute below
//     1): not bit for bit, because Eigen's products (the CPU engine) sum in blocks and SIMD packets and the portable
//     code in plain index order;
//   - each prompt's gradient with respect to every weight is its loss's central finite difference, and the training
//     minibatch (chunk sums, pullback) is the CPU executor's minibatch() to 1e-11 for full LSA stacks, acds form (8)
//     and sja's bilinear stacks (dense and sparse forms);
//   - float32 (portable::Precision::f32) against float64 on the sizes the GPU check times: per-prompt losses, their
//     mean against its Monte Carlo standard error, and the minibatch gradient, within bounds set from the measurement;
//   - a stream of another seed or purpose gives other numbers (each comparison can fail);
//   - what the portable code does not run is refused in one line naming it.
// (This file is compiled with -ffp-contract=off, as the library's portable path: CMakeLists.txt.)
#include "constructions/acds_forms.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/portable_path.hpp"
#include "icl/layers/layer_norm.hpp"
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
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace icl::execute {
namespace test_portable {  // named: a unity build compiles several test files as one unit
namespace {

const std::uint64_t kIndices[] = {0,           1,           2,
                                  255,         256,         1000,
                                  65537,       (1ull << 32) - 1, 1ull << 32,
                                  (1ull << 32) + 5, (1ull << 40) + 3, (1ull << 63) + 1};

bool same_bits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index k = 0; k < a.size(); ++k)
    if (std::bit_cast<std::uint64_t>(a.data()[k]) != std::bit_cast<std::uint64_t>(b.data()[k])) return false;
  return true;
}

TEST_CASE("portable: uniforms and ziggurat normals are PromptRng's, bit for bit, rare paths included") {
  const auto& t = PromptRng::ziggurat();
  std::vector<double> zig;
  zig.insert(zig.end(), t.x, t.x + 257);
  zig.insert(zig.end(), t.f, t.f + 257);
  zig.insert(zig.end(), t.xs, t.xs + 257);
  zig.insert(zig.end(), t.sxs, t.sxs + 512);
  const portable::ZigguratView view = portable::Plan::ziggurat_view(zig.data());
  int beyond_tail_edge = 0, draws = 0;
  for (std::uint64_t seed : {1ull, 42ull, 0xFFFFFFFFFFFFFFFFull})
    for (std::uint64_t i : kIndices) {
      PromptRng cpu(seed, 7, i);
      portable::PromptStream mine(portable_stream_key(seed, 7), i, view);
      for (int k = 0; k < 4000; ++k) {
        const double a = cpu.normal(), b = mine.normal();
        REQUIRE(std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b));
        beyond_tail_edge += std::fabs(a) > t.x[1];
        ++draws;
      }
      REQUIRE(cpu.uniform() == mine.uniform());
    }
  MESSAGE(draws << " normals equal bit for bit, " << beyond_tail_edge << " of them from the tail beyond "
                << t.x[1]);
  CHECK(beyond_tail_edge > 0);  // the tail's log path was exercised
  // Another purpose: another stream.
  PromptRng cpu(1, 7, 0);
  portable::PromptStream other(portable_stream_key(1, 8), 0, view);
  CHECK(cpu.normal() != other.normal());
}

struct TaskCase {
  const char* name;
  GaussianIclModel task;
  PromptShape shape;
};

std::vector<TaskCase> task_cases() {
  std::vector<TaskCase> v;
  v.push_back({"linear, isotropic, sja embedding", GaussianIclModel::from_task(PolynomialTask::linear(3),
                                                                                Eigen::MatrixXd::Identity(3, 3)),
               sja_shape(3, 5, 20)});
  v.push_back({"linear, ill-conditioned covariance, acds embedding",
               GaussianIclModel::from_task(PolynomialTask::linear(4), test_covariance(4, 3)), acds_shape(4, 30)});
  auto quad = GaussianIclModel::from_task(PolynomialTask::quadratic(2), test_covariance(2, 2));
  quad.noise_sd = 0.5;
  v.push_back({"quadratic, rotated covariance, noise, zfb embedding", quad, zfb_shape(2, 12)});
  auto fixed = GaussianIclModel::from_task(PolynomialTask::linear(2), Eigen::MatrixXd::Identity(2, 2));
  fixed.random_w = false;
  fixed.fixed_w = Eigen::Vector2d(0.75, -1.25);
  v.push_back({"linear, fixed w, sja embedding", fixed, sja_shape(2, 4, 9)});
  return v;
}

TEST_CASE("portable: prompt i of a Gaussian task is icl::gaussian_prompts' prompt i, bit for bit") {
  for (const auto& tc : task_cases()) {
    CAPTURE(tc.name);
    const icl::PromptSource source = icl::gaussian_prompts(tc.task, tc.shape);
    Network net;
    net.rows = source.rows;
    const auto plan = plan_portable(net, source, icl::LossSpec::sja(), "test");
    icl::PromptDrawer draw = source.make_drawer();
    Eigen::MatrixXd Zc(source.rows, source.cols), Zp;
    int compared = 0;
    for (std::uint64_t seed : {3ull, 20260101ull})
      for (std::uint64_t purpose : {std::uint64_t{0}, std::uint64_t{11}, stable_hash("sja.thm2")})
        for (std::uint64_t i : kIndices) {
          CAPTURE(seed);
          CAPTURE(purpose);
          CAPTURE(i);
          const double yc = draw(seed, purpose, i, Zc);
          const double yp = portable_prompt(*plan, seed, purpose, i, Zp);
          REQUIRE(std::bit_cast<std::uint64_t>(yc) == std::bit_cast<std::uint64_t>(yp));
          REQUIRE(same_bits(Zc, Zp));
          ++compared;
        }
    CHECK(compared == 72);
    // The comparison can fail: another seed, purpose or index is another prompt.
    const double yc = draw(3, 11, 5, Zc);
    CHECK(portable_prompt(*plan, 4, 11, 5, Zp) != yc);
    CHECK(!same_bits(Zc, Zp));
    CHECK(portable_prompt(*plan, 3, 12, 5, Zp) != yc);
    CHECK(portable_prompt(*plan, 3, 11, 6, Zp) != yc);
    CHECK(portable_prompt(*plan, 3, 11, 5, Zp) == yc);
  }
}

using test::random_lsa_stack;

TEST_CASE("portable: per-prompt losses of 1-, 2- and 3-layer LSA stacks (with bilinear layers) are the CPU executor's to 1e-12") {
  const auto cpu = make_executor(Backend::cpu, 2);
  double worst = 0;
  int bitwise = 0, total = 0;
  const std::uint64_t count = 300;  // more than one loss chunk
  for (const auto& tc : task_cases()) {
    const icl::PromptSource source = icl::gaussian_prompts(tc.task, tc.shape);
    const int D = source.rows;
    for (int layers : {1, 2, 3})
      for (bool masked : {true, false})
        for (double scale : {0.0, 0.05}) {
          CAPTURE(tc.name);
          CAPTURE(layers);
          CAPTURE(masked);
          CAPTURE(scale);
          const Network net = random_lsa_stack(D, layers, masked, scale, 17 + layers, 0.6 / std::sqrt(D), scale != 0);
          const icl::LossSpec loss = tc.shape.embedding == Embedding::zfb ? icl::LossSpec::zfb() : icl::LossSpec::sja();
          std::vector<double> ref, mine;
          cpu->losses(net, source, loss, 5, 6, count, ref);
          const auto plan = plan_portable(net, source, loss, "test");
          portable_losses(*plan, 5, 6, count, mine);
          REQUIRE(mine.size() == ref.size());
          for (std::size_t i = 0; i < ref.size(); ++i) {
            // Relative to the loss, or absolute below 1: a small loss is (yhat + y_q)^2 of nearly cancelling terms
            // (seen: 2.8e-12 relative at a loss of 0.107 behind three bilinear layers).
            const double err = std::fabs(mine[i] - ref[i]) / std::max(std::fabs(ref[i]), 1.0);
            worst = std::max(worst, err);
            bitwise += mine[i] == ref[i];
            ++total;
            CAPTURE(i);
            CAPTURE(ref[i]);
            CAPTURE(mine[i]);
            REQUIRE(err <= 1e-12);
          }
          // Can fail: another seed gives other losses.
          std::vector<double> other;
          portable_losses(*plan, 6, 6, count, other);
          CHECK(other != ref);
        }
  }
  MESSAGE(total << " per-prompt losses: max difference portable vs CPU executor (relative, absolute below 1) " << worst << ", "
                << bitwise << " equal bit for bit");
  CHECK(total == 4 * 3 * 2 * 2 * 300);
}

TEST_CASE("portable: the gradient of one prompt's loss is its central finite difference (every weight of LSA and bilinear layers)") {
  for (const auto& tc : task_cases()) {
    const icl::PromptSource source = icl::gaussian_prompts(tc.task, tc.shape);
    const int D = source.rows;
    for (int layers : {1, 2, 3})
      for (bool masked : {true, false})
        for (bool bilinear : {false, true}) {
        CAPTURE(tc.name);
        CAPTURE(layers);
        CAPTURE(masked);
        CAPTURE(bilinear);
        const Network net = random_lsa_stack(D, layers, masked, masked ? 0.0 : 0.05, 31 + layers, 0.5 / std::sqrt(D),
                                             bilinear);
        const auto plan = plan_portable(net, source, icl::LossSpec::sja(), "test");
        for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{7}}) {
          const test::GradientCheck g = test::check_prompt_gradient(*plan, portable_stream_key(9, 4), i);
          CHECK(g.same_loss);
          CAPTURE(i);
          CAPTURE(g.scale);
          CHECK(g.scale > 0);
          CHECK(g.worst <= 1e-6 * std::max(1.0, g.scale));
        }
      }
  }
}

TEST_CASE("portable: the minibatch's loss and gradient are the CPU executor's to 1e-11 (full LSA, acds form (8), sja bilinear)") {
  double worst_loss = 0, worst_grad = 0;
  int compared = 0;
  for (const auto& tc : task_cases()) {
    const icl::PromptSource source = icl::gaussian_prompts(tc.task, tc.shape);
    const int D = source.rows;
    const icl::LossSpec loss = tc.shape.embedding == Embedding::zfb ? icl::LossSpec::zfb() : icl::LossSpec::sja();
    std::vector<icl::Parameterisation> forms;
    for (int layers : {1, 3}) forms.push_back(learn::full_lsa(D, layers, layers == 1));
    if (tc.shape.embedding == Embedding::acds) forms.push_back(learn::acds_form8(tc.task.d, 3));
    if (tc.shape.embedding == Embedding::sja) {  // sja's bilinear stacks (D = dbar + 1; sparse form (12) needs dbar >= d + 2)
      forms.push_back(learn::sja_bilinear(tc.task.d, D - 1, 2, learn::BilinearForm::dense));
      forms.push_back(learn::sja_bilinear(tc.task.d, D - 1, 2, learn::BilinearForm::sparse));
    }
    for (const auto& params : forms) {
      CAPTURE(tc.name);
      CAPTURE(params.base().size());
      Eigen::VectorXd theta(params.size());
      PromptRng rng(77, 5, static_cast<std::uint64_t>(params.size()));
      for (Eigen::Index k = 0; k < theta.size(); ++k) theta[k] = 0.4 / std::sqrt(D) * rng.normal();
      const Network net = params.network(theta);
      const auto plan = plan_portable(net, source, loss, "test");
      const test::MinibatchComparison c = test::compare_minibatch(*plan, params, theta, source, loss, 150);
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
  }
  MESSAGE(compared << " minibatches: max relative difference portable vs CPU executor: loss " << worst_loss
                   << ", gradient (max norm) " << worst_grad);
  CHECK(compared == 4 * 2 + 1 + 2 * 2);
}

// float32 (portable::Precision::f32: the same prompt, drawn in double, rounded to float with the weights; every layer,
// the loss and each prompt's gradient in float; sums over prompts in double), measured against float64 on the sizes
// the GPU check times: the sja.thm2 estimator's LSA stacks (d = 4, n = 200), sja.fig1-sized bilinear stacks
// (d = 3, dbar = 12, n = 200), acds form (8) (d = 5, n = 20) and xlssc.onelayer's softmax layer (d = 5, D = 30).
struct F32Error {
  double median = 0, max = 0;   // per-prompt relative error of the loss
  double mean_rel = 0;          // relative error of the mean loss over the prompts
  double mc_rel_se = 0;         // the Monte Carlo relative standard error of that mean (the float64 losses' spread)
  double grad_rel = 0;          // minibatch gradient, max norm, relative
  std::size_t bitwise = 0, count = 0;
};

F32Error f32_error(const icl::Parameterisation& params, const Eigen::VectorXd& theta,
                   const icl::PromptSource& source, icl::LossSpec loss, std::uint64_t count) {
  const Network net = params.network(theta);
  const auto p64 = plan_portable(net, source, loss, "test", portable::Precision::f64);
  const auto p32 = plan_portable(net, source, loss, "test", portable::Precision::f32);
  std::vector<double> l64, l32, again;
  portable_losses(*p64, 3, 8, count, l64);
  portable_losses(*p32, 3, 8, count, l32);
  portable_losses(*p32, 3, 8, count, again);
  CHECK(again == l32);  // float is as deterministic as double
  F32Error e;
  e.count = count;
  std::vector<double> rel(count);
  double m64 = 0, m32 = 0, sq = 0;
  for (std::size_t i = 0; i < count; ++i) {
    rel[i] = std::fabs(l32[i] - l64[i]) / l64[i];
    e.bitwise += l32[i] == l64[i];
    m64 += l64[i];
    m32 += l32[i];
    sq += l64[i] * l64[i];
  }
  std::sort(rel.begin(), rel.end());
  e.median = rel[count / 2];
  e.max = rel.back();
  m64 /= static_cast<double>(count);
  m32 /= static_cast<double>(count);
  e.mean_rel = std::fabs(m32 - m64) / m64;
  e.mc_rel_se = std::sqrt((sq / static_cast<double>(count) - m64 * m64) / static_cast<double>(count)) / m64;
  Eigen::VectorXd g64, g32;
  portable_minibatch(*p64, params, 5, 9, 4000, &g64);
  portable_minibatch(*p32, params, 5, 9, 4000, &g32);
  e.grad_rel = (g32 - g64).lpNorm<Eigen::Infinity>() / g64.lpNorm<Eigen::Infinity>();
  return e;
}

TEST_CASE("portable: float32 against float64, measured (losses, their mean, the minibatch gradient)") {
  struct Model {
    const char* name;
    icl::Parameterisation params;
    icl::PromptSource source;
    icl::LossSpec loss;
    double sd;
  };
  const auto iso = [](int d) { return Eigen::MatrixXd::Identity(d, d); };
  std::vector<Model> models;
  for (int layers : {1, 3})
    models.push_back({layers == 1 ? "sja.thm2 LSA, 1 layer, d=4 n=200" : "sja.thm2 LSA, 3 layers, d=4 n=200",
                      learn::full_lsa(6, layers),
                      icl::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(4), iso(4)),
                                              sja_shape(4, 5, 200)),
                      icl::LossSpec::sja(), 0.4 / std::sqrt(6.0)});
  models.push_back({"sja.fig1 bilinear, 6 blocks, d=3 dbar=12 n=200",
                    learn::sja_bilinear(3, 12, 6, learn::BilinearForm::dense),
                    icl::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::quadratic(3), iso(3)),
                                            sja_shape(3, 12, 200)),
                    icl::LossSpec::sja(), 0.02});
  models.push_back({"acds form (8), 3 layers, d=5 n=20", learn::acds_form8(5, 3),
                    icl::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(5), test_covariance(5, 3)),
                                            acds_shape(5, 20)),
                    icl::LossSpec::acds(), 0.3});
  models.push_back({"xlssc.onelayer softmax, d=5 D=30", learn::softmax_stack(5, 1, layers::SoftmaxAttention::Activation::softmax, true),
                    icl::unstructured_prompts(5, 30, Eigen::VectorXd::Constant(5, 1.0 / std::sqrt(5.0))),
                    icl::LossSpec{-1.0, 1.0}, 0.8 / std::sqrt(6.0)});
  for (const auto& m : models) {
    const std::string name = m.name;
    CAPTURE(name);
    Eigen::VectorXd theta(m.params.size());
    PromptRng rng(41, 2, static_cast<std::uint64_t>(m.params.size()));
    for (Eigen::Index k = 0; k < theta.size(); ++k) theta[k] = m.sd * rng.normal();
    const std::uint64_t count = 2000;
    const F32Error e = f32_error(m.params, theta, m.source, m.loss, count);
    MESSAGE(name << ": per-prompt loss relative error median " << e.median << ", max " << e.max << " ("
                   << e.bitwise << " of " << e.count << " equal to float64); mean over " << e.count
                   << " prompts relative error " << e.mean_rel << " (Monte Carlo relative standard error "
                   << e.mc_rel_se << "); minibatch gradient (4000 prompts) relative error " << e.grad_rel);
    // The float path runs in float: most losses differ from float64's in their low bits.
    CHECK(e.bitwise * 10 < e.count);
    // Bounds from the measurement (docs/engine.md; measured: median at most 5.3e-7, max 9.6e-4 (xlssc's softmax;
    // 4.8e-4 for the others), mean at most 3.3e-6 of the Monte Carlo standard error, gradient 1.0e-6), with a margin
    // of 5x to 10x: float's rounding (2^-24 = 6e-8) grown by a layer's sums and, for the largest, by the cancellation
    // in yhat - y of a small loss.
    CHECK(e.median <= 1e-5);
    CHECK(e.max <= 5e-3);
    CHECK(e.mean_rel <= 1e-4 * e.mc_rel_se);  // far below the Monte Carlo error of the same prompts
    CHECK(e.grad_rel <= 1e-5);
  }
}

TEST_CASE("portable: what it does not run is refused in one line naming it") {
  const icl::PromptSource source = icl::gaussian_prompts(
      GaussianIclModel::from_task(PolynomialTask::linear(2), Eigen::MatrixXd::Identity(2, 2)), acds_shape(2, 5));
  Network net;
  net.rows = source.rows;
  net.add_lsa().add(std::make_unique<layers::LayerNorm>(net.rows));
  CHECK_THROWS_WITH_AS(plan_portable(net, source, icl::LossSpec::acds(), "cuda backend"),
                       "the cuda backend does not support layer 1 (a layer_norm layer); it runs stacks of dense "
                       "lsa, bilinear and softmax attention layers only",
                       std::invalid_argument);
  Network lsa;
  lsa.rows = 3;
  lsa.add_lsa();
  icl::PromptSource own_drawer = icl::unstructured_prompts(2, 4);  // a source of one's own drawer
  own_drawer.unstructured = nullptr;
  CHECK_THROWS_WITH_AS(plan_portable(lsa, own_drawer, icl::LossSpec::acds(), "cuda backend"),
                       "the cuda backend draws only the prompts of a Gaussian task (icl::gaussian_prompts) and "
                       "unstructured prompts (icl::unstructured_prompts)",
                       std::invalid_argument);
}

}  // namespace
}  // namespace test_portable
}  // namespace icl::execute
