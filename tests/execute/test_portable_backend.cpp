// The portable backend (execute/planned_executor.hpp: the cuda backend's host code with the kernels' per-prompt
// arithmetic on the CPU's thread pool):
//   - losses() are portable_losses' and minibatch() is portable_minibatch's (loss, and gradient when asked), bit for
//     bit, at 1, 2 and 3 threads, for full LSA stacks, sja's bilinear stacks (dense and sparse forms) and acds form
//     (8), at counts that are not multiples of the chunk (and a single prompt); a second call on the same executor
//     gives the same bits;
//   - they are the cpu executor's within the bounds tests/execute/test_portable.cpp states for the portable path
//     (losses 1e-12 relative, absolute below 1; minibatch loss 1e-12, gradient 1e-11 relative, max norm);
//   - another seed gives other numbers (each comparison can fail);
//   - networks or prompt sources the portable code does not run are refused with Unsupported naming them, and the
//     trainer's objective on this backend refuses them alike.
#include "constructions/acds_forms.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/planned_executor.hpp"
#include "icl/execute/portable_path.hpp"
#include "icl/layers/layer_norm.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"
#include "tests/support/random_stack.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace icl::execute {
namespace test_portable_backend {  // named: a unity build compiles several test files as one unit
namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (std::bit_cast<std::uint64_t>(a[k]) != std::bit_cast<std::uint64_t>(b[k])) return false;
  return true;
}
bool same_bits(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return same_bits(std::vector<double>(a.data(), a.data() + a.size()), std::vector<double>(b.data(), b.data() + b.size()));
}
bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

struct Source {
  const char* name;
  icl::PromptSource source;
  icl::LossSpec loss;
  int d;
  Embedding embedding;
};

std::vector<Source> sources() {
  std::vector<Source> v;
  const auto sja = GaussianIclModel::from_task(PolynomialTask::linear(3), Eigen::MatrixXd::Identity(3, 3));
  v.push_back({"sja, d = 3, dbar = 5, n = 20", icl::gaussian_prompts(sja, sja_shape(3, 5, 20)), icl::LossSpec::sja(),
               3, Embedding::sja});
  const auto acds = GaussianIclModel::from_task(PolynomialTask::linear(4), test_covariance(4, 3));
  v.push_back({"acds, d = 4, n = 30, ill-conditioned", icl::gaussian_prompts(acds, acds_shape(4, 30)),
               icl::LossSpec::acds(), 4, Embedding::acds});
  return v;
}

// A stack of `layers` masked dense LSA layers, with bilinear layers between them when `bilinear` (scale set, as sja's
// bilinear stacks).
Network random_stack(int rows, int layers, bool bilinear, std::uint64_t seed) {
  return test::random_lsa_stack(rows, layers, true, bilinear ? 0.05 : 0.0, seed, 0.6 / std::sqrt(rows), bilinear);
}

TEST_CASE("portable backend: losses() are portable_losses' bit for bit at 1, 2 and 3 threads, and the cpu executor's to 1e-12") {
  const auto cpu = make_executor(Backend::cpu, 2);
  int compared = 0, bitwise_cpu = 0, total_cpu = 0;
  double worst_cpu = 0;
  for (const auto& s : sources()) {
    for (int layers : {1, 3})
      for (bool bilinear : {false, true}) {
        if (bilinear && s.embedding != Embedding::sja) continue;
        CAPTURE(s.name);
        CAPTURE(layers);
        CAPTURE(bilinear);
        const Network net = random_stack(s.source.rows, layers, bilinear, 40 + static_cast<std::uint64_t>(layers));
        const auto plan = plan_portable(net, s.source, s.loss, "test");
        for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{700}}) {  // 700: two full loss chunks and a short one
          CAPTURE(count);
          std::vector<double> ref;
          portable_losses(*plan, 21, 22, count, ref);
          for (int threads : {1, 2, 3}) {
            CAPTURE(threads);
            const auto ex = make_executor(Backend::portable, threads);
            std::vector<double> got;
            ex->losses(net, s.source, s.loss, 21, 22, count, got);
            CHECK(same_bits(got, ref));
            ex->losses(net, s.source, s.loss, 21, 22, count, got);  // the same executor again
            CHECK(same_bits(got, ref));
            CHECK(ex->last_ranks() == 1);
            ++compared;
          }
          // Can fail: another seed draws other prompts.
          std::vector<double> other;
          make_executor(Backend::portable, 2)->losses(net, s.source, s.loss, 23, 22, count, other);
          CHECK(!same_bits(other, ref));
          // The cpu executor, within test_portable.cpp's bound.
          std::vector<double> mine;
          cpu->losses(net, s.source, s.loss, 21, 22, count, mine);
          REQUIRE(mine.size() == ref.size());
          for (std::size_t i = 0; i < ref.size(); ++i) {
            const double err = std::fabs(mine[i] - ref[i]) / std::max(std::fabs(mine[i]), 1.0);
            worst_cpu = std::max(worst_cpu, err);
            bitwise_cpu += mine[i] == ref[i];
            ++total_cpu;
            CHECK(err <= 1e-12);
          }
        }
      }
  }
  std::vector<double> none;
  make_executor(Backend::portable, 2)->losses(random_stack(sources()[0].source.rows, 1, false, 1), sources()[0].source,
                                              sources()[0].loss, 1, 2, 0, none);
  CHECK(none.empty());
  MESSAGE(compared << " loss runs equal to portable_losses bit for bit; against the cpu executor " << total_cpu
                   << " losses, largest difference " << worst_cpu << " (relative, absolute below 1), " << bitwise_cpu
                   << " equal bit for bit");
  CHECK(compared == (4 + 2) * 2 * 3);  // sja: 1 and 3 layers with and without bilinear; acds: 1 and 3 layers
}

TEST_CASE("portable backend: minibatch() is portable_minibatch's bit for bit at 1, 2 and 3 threads (LSA, acds form (8), sja bilinear), and the cpu executor's to 1e-11") {
  const auto cpu = make_executor(Backend::cpu, 2);
  int compared = 0;
  double worst_loss = 0, worst_grad = 0;
  for (const auto& s : sources()) {
    const int D = s.source.rows;
    std::vector<icl::Parameterisation> forms;
    forms.push_back(learn::full_lsa(D, 1, true));
    forms.push_back(learn::full_lsa(D, 3, false));
    if (s.embedding == Embedding::acds) forms.push_back(learn::acds_form8(s.d, 3));
    if (s.embedding == Embedding::sja) {
      forms.push_back(learn::sja_bilinear(s.d, D - 1, 2, learn::BilinearForm::dense));
      forms.push_back(learn::sja_bilinear(s.d, D - 1, 2, learn::BilinearForm::sparse));
    }
    for (const auto& params : forms) {
      CAPTURE(s.name);
      CAPTURE(params.base().size());
      const Eigen::VectorXd theta = icl::normal_theta(params, 0.4 / std::sqrt(D), 77, 5);
      const auto plan = plan_portable(params.network(theta), s.source, s.loss, "test");
      for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{197}}) {  // 197: three full chunks and a short one
        CAPTURE(count);
        Eigen::VectorXd ref;
        const double lref = portable_minibatch(*plan, params, 12, 13, count, &ref);
        const double lref_alone = portable_minibatch(*plan, params, 12, 13, count, nullptr);
        for (int threads : {1, 2, 3}) {
          CAPTURE(threads);
          const auto ex = make_executor(Backend::portable, threads);
          for (int repeat = 0; repeat < 2; ++repeat) {
            Eigen::VectorXd got;
            CHECK(same_bits(ex->minibatch(params, theta, s.source, s.loss, 12, 13, count, &got), lref));
            CHECK(same_bits(got, ref));
            CHECK(same_bits(ex->minibatch(params, theta, s.source, s.loss, 12, 13, count, nullptr), lref_alone));
          }
          ++compared;
        }
        CHECK(ref.lpNorm<Eigen::Infinity>() > 0);
        // Can fail: another purpose draws other prompts.
        Eigen::VectorXd other;
        make_executor(Backend::portable, 2)->minibatch(params, theta, s.source, s.loss, 12, 14, count, &other);
        CHECK(!same_bits(other, ref));
        // The cpu executor, within test_portable.cpp's bounds.
        Eigen::VectorXd mine;
        const double lmine = cpu->minibatch(params, theta, s.source, s.loss, 12, 13, count, &mine);
        const double rel_loss = std::fabs(lmine - lref) / std::fabs(lmine);
        const double rel_grad = (mine - ref).lpNorm<Eigen::Infinity>() / mine.lpNorm<Eigen::Infinity>();
        worst_loss = std::max(worst_loss, rel_loss);
        worst_grad = std::max(worst_grad, rel_grad);
        CHECK(rel_loss <= 1e-12);
        CHECK(rel_grad <= 1e-11);
      }
    }
  }
  MESSAGE(compared << " minibatches equal to portable_minibatch bit for bit (loss, gradient, loss alone); against the "
                      "cpu executor: loss within " << worst_loss << ", gradient within " << worst_grad
                   << " (relative, max norm)");
  CHECK(compared == (4 + 3) * 2 * 3);
  const Source s0 = sources()[0];
  const icl::Parameterisation one = learn::full_lsa(s0.source.rows, 1, true);
  CHECK_THROWS_WITH_AS(make_executor(Backend::portable, 1)
                           ->minibatch(one, Eigen::VectorXd::Zero(one.size()), s0.source, s0.loss, 1, 2, 0, nullptr),
                       "Executor::minibatch: empty batch", std::invalid_argument);
}

TEST_CASE("portable backend: the trainer's objective on it is portable_minibatch's mean") {
  const Source s = sources()[0];
  const icl::Parameterisation params = learn::sja_bilinear(s.d, s.source.rows - 1, 2, learn::BilinearForm::dense);
  const Eigen::VectorXd theta = icl::normal_theta(params, 0.2, 3, 4);
  const Backend saved = default_backend();
  set_default_backend(Backend::portable);
  learn::BatchObjective obj(params, s.source, s.loss, 2);
  Eigen::VectorXd g;
  const double mean = obj.evaluate(theta, 5, 6, 130, &g);
  set_default_backend(saved);
  const auto plan = plan_portable(params.network(theta), s.source, s.loss, "test");
  Eigen::VectorXd ref;
  const double total = portable_minibatch(*plan, params, 5, 6, 130, &ref);
  CHECK(same_bits(mean, total * (1.0 / 130)));
  CHECK(same_bits(g, Eigen::VectorXd(ref * (1.0 / 130))));
  CHECK(obj.ranks() == 1);
}

TEST_CASE("portable backend: what the portable code does not run is refused with Unsupported naming it") {
  const Source s = sources()[1];
  Network net;
  net.rows = s.source.rows;
  net.add_lsa().add(std::make_unique<layers::LayerNorm>(net.rows));
  const auto ex = make_executor(Backend::portable, 2);
  std::vector<double> out;
  CHECK_THROWS_WITH_AS(ex->losses(net, s.source, s.loss, 1, 2, 10, out),
                       "the portable backend does not support layer 1 (a layer_norm layer); it runs stacks of dense "
                       "lsa, bilinear and softmax attention layers only",
                       Unsupported);
  Network lsa;
  lsa.rows = 3;
  lsa.add_lsa();
  icl::PromptSource own_drawer = icl::unstructured_prompts(2, 4);  // a source of one's own drawer
  own_drawer.unstructured = nullptr;
  CHECK_THROWS_WITH_AS(ex->losses(lsa, own_drawer, icl::LossSpec::acds(), 1, 2, 10, out),
                       "the portable backend draws only the prompts of a Gaussian task (icl::gaussian_prompts) and "
                       "unstructured prompts (icl::unstructured_prompts)",
                       Unsupported);
  const icl::Parameterisation full = learn::full_lsa(3, 1, true);
  CHECK_THROWS_AS(ex->minibatch(full, Eigen::VectorXd::Zero(full.size()), own_drawer, icl::LossSpec::acds(), 1, 2,
                                10, nullptr),
                  Unsupported);
}

}  // namespace
}  // namespace test_portable_backend
}  // namespace icl::execute
