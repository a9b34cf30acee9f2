// The cpu executor's label-row path (execute/label_row.hpp): which stacks it recognises; its minibatch loss and
// gradient against the layers' path (icl::forward / icl::backward, the same executor with the path off) to 1e-12
// relative for acds forms (8) and (11) and their families at L = 1..4, d = 5, n = 2, 10, 20 (random, non-symmetric A
// and B); bit for bit at 1 and 2 threads; its chunk sums by hand (prompt order within a chunk, chunks in order); the
// kept statistics against fresh ones; the AVX2 kernel against the baseline one; training at 1 and 2 threads.
#include "constructions/acds_forms.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/label_row.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace icl::execute {
namespace test_label_row {  // named: a unity build compiles several test files as one unit
namespace {

// Restores the process's choice (the label-row path on) however the test ends.
struct LabelRowSwitch {
  explicit LabelRowSwitch(bool on) : before(label_row_enabled()) { set_label_row_enabled(on); }
  ~LabelRowSwitch() { set_label_row_enabled(before); }
  bool before;
};

// Prompts of the linear task with a non-identity input covariance (x = L z), as the acds experiments draw them.
icl::PromptSource prompts(int d, int n, std::uint64_t seed) {
  const Eigen::MatrixXd U = random_orthogonal(d, seed, 3);
  Eigen::VectorXd ev(d);
  for (int i = 0; i < d; ++i) ev[i] = 1.0 / (1 + i);
  const Eigen::MatrixXd sigma = U.transpose() * ev.asDiagonal() * U;
  return icl::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(d), 0.5 * (sigma + sigma.transpose())),
                                 acds_shape(d, n));
}

Eigen::VectorXd random_theta(const icl::Parameterisation& p, double sd, std::uint64_t seed) {
  return icl::normal_theta(p, sd, seed, 11);
}

double rel(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }
double rel(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).lpNorm<Eigen::Infinity>() / std::max(b.lpNorm<Eigen::Infinity>(), 1e-300);
}

struct Form {
  std::string name;
  icl::Parameterisation params;
};

std::vector<Form> forms(int d, int L, const Eigen::MatrixXd& sigma_inv) {
  return {{"form (8)", learn::acds_form8(d, L)},
          {"form (11)", learn::acds_form11(d, L)},
          {"form (8), symmetric", learn::acds_form8(d, L, true)},
          {"family (8)", learn::acds_family(d, L, sigma_inv, false)},
          {"family (11)", learn::acds_family(d, L, sigma_inv, true)}};
}

TEST_CASE("label-row: acds forms are recognised; stacks with other structure are not") {
  const icl::PromptSource src = prompts(5, 10, 1);
  for (int L : {1, 2, 4}) {
    CHECK(LabelRowStack::recognise(learn::acds_form8(5, L), src));
    CHECK(LabelRowStack::recognise(learn::acds_form11(5, L), src));
    CHECK(LabelRowStack::recognise(learn::acds_form8_diagonal(5, L), src));
    CHECK(LabelRowStack::recognise(learn::acds_family(5, L, Eigen::MatrixXd::Identity(5, 5), true), src));
    CHECK_FALSE(LabelRowStack::recognise(learn::full_lsa(6, L), src));  // every entry of P and Q trained
  }
  // A group writing Q's last column, or P's last row off the diagonal: not label-row.
  {
    icl::Parameterisation p = learn::acds_form8(5, 2);
    p.add(icl::ParamGroup::full("q", 5, 1, {{1, "Q", 0, 5, 1.0}}));
    CHECK_FALSE(LabelRowStack::recognise(p, src));
  }
  {
    icl::Parameterisation p = learn::acds_form8(5, 2);
    p.add(icl::ParamGroup::full("p", 1, 5, {{0, "P", 5, 0, 1.0}}));
    CHECK_FALSE(LabelRowStack::recognise(p, src));
  }
  {  // a frozen nonzero entry outside the blocks
    icl::Parameterisation p = learn::acds_form8(5, 2);
    p.base().weight(1, "Q")(5, 2) = 0.5;
    CHECK_FALSE(LabelRowStack::recognise(p, src));
  }
  {  // unmasked attention, another number of rows, d above the kernels' range
    icl::Parameterisation p = learn::acds_form8(5, 2);
    p.base().layers[0] = layers::LayerPtr(std::make_unique<layers::Lsa>(6, false));
    CHECK_FALSE(LabelRowStack::recognise(p, src));
    CHECK_FALSE(LabelRowStack::recognise(learn::acds_form8(4, 2), src));
    CHECK_FALSE(LabelRowStack::recognise(learn::acds_form8(9, 2), prompts(9, 10, 1)));
  }
  // P(d, d) trained alone: recognised (its gradient is formed).
  {
    icl::Parameterisation p = learn::acds_form8(5, 2);
    p.add(icl::ParamGroup::full("p_1", 1, 1, {{1, "P", 5, 5, 1.0}}));
    CHECK(LabelRowStack::recognise(p, src));
  }
}

TEST_CASE("label-row: minibatch loss and gradient are the layers' to 1e-12, and the same bits at 1 and 2 threads") {
  const icl::LossSpec loss = icl::LossSpec::acds();
  double worst_loss = 0, worst_grad = 0;
  int compared = 0, bitwise = 0;
  for (int n : {2, 10, 20}) {
    const icl::PromptSource src = prompts(5, n, static_cast<std::uint64_t>(n));
    const Eigen::MatrixXd sigma_inv = src.gaussian_task->sigma.inverse();
    for (int L = 1; L <= 4; ++L)
      for (const Form& f : forms(5, L, sigma_inv)) {
        CAPTURE(f.name);
        CAPTURE(L);
        CAPTURE(n);
        REQUIRE(LabelRowStack::recognise(f.params, src));
        const Eigen::VectorXd theta = random_theta(f.params, f.name.rfind("family", 0) == 0 ? 0.5 : 0.3,
                                                   static_cast<std::uint64_t>(100 * n + L));
        for (std::uint64_t count : {std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{150}}) {
          CAPTURE(count);
          Eigen::VectorXd g_ref, g1, g2, g_again;
          double l_ref;
          {
            LabelRowSwitch off(false);
            l_ref = make_executor(Backend::cpu, 2)->minibatch(f.params, theta, src, loss, 5, 6, count, &g_ref);
          }
          auto e1 = make_executor(Backend::cpu, 1);
          const double l1 = e1->minibatch(f.params, theta, src, loss, 5, 6, count, &g1);
          const double l2 = make_executor(Backend::cpu, 2)->minibatch(f.params, theta, src, loss, 5, 6, count, &g2);
          const double l_again = e1->minibatch(f.params, theta, src, loss, 5, 6, count, &g_again);  // kept statistics
          const double l_alone = e1->minibatch(f.params, theta, src, loss, 5, 6, count, nullptr);
          CHECK(l1 == l2);
          CHECK(g1 == g2);
          CHECK(l_again == l1);
          CHECK(g_again == g1);
          CHECK(l_alone == l1);
          REQUIRE(g_ref.norm() > 0);
          CHECK(rel(l1, l_ref) <= 1e-12);
          CHECK(rel(g1, g_ref) <= 1e-12);
          worst_loss = std::max(worst_loss, rel(l1, l_ref));
          worst_grad = std::max(worst_grad, rel(g1, g_ref));
          bitwise += l1 == l_ref;
          ++compared;
          // Can fail: another stream gives another gradient.
          Eigen::VectorXd g_other;
          make_executor(Backend::cpu, 1)->minibatch(f.params, theta, src, loss, 5, 7, count, &g_other);
          CHECK(rel(g_other, g1) > 1e-6);
        }
      }
  }
  MESSAGE(compared << " minibatches against the layers' path: loss within " << worst_loss
                   << " relative (" << bitwise << " equal bit for bit), gradient (max norm) within " << worst_grad);
  CHECK(compared == 3 * 4 * 5 * 3);
}

TEST_CASE("label-row: every prompt's gradient is the layers' to 1e-12 (one-prompt minibatches)") {
  // Relative to each prompt's own gradient: no sum over prompts to hide a wrong term in a small entry.
  const icl::LossSpec loss = icl::LossSpec::zfb();  // another sign and factor than acds's
  double worst = 0;
  for (int L = 1; L <= 4; ++L)
    for (const auto& params : {learn::acds_form8(5, L), learn::acds_form11(5, L)}) {
      const icl::PromptSource src = prompts(5, 10, 7);
      const Eigen::VectorXd theta = random_theta(params, 0.4, static_cast<std::uint64_t>(L));
      auto fast = make_executor(Backend::cpu, 1);
      for (std::uint64_t i = 0; i < 12; ++i) {
        Eigen::VectorXd g, g_ref;
        const double l = fast->minibatch(params, theta, src, loss, 9, 100 + i, 1, &g);
        double l_ref;
        {
          LabelRowSwitch off(false);
          l_ref = make_executor(Backend::cpu, 1)->minibatch(params, theta, src, loss, 9, 100 + i, 1, &g_ref);
        }
        CAPTURE(L);
        CAPTURE(i);
        CHECK(rel(l, l_ref) <= 1e-12);
        CHECK(rel(g, g_ref) <= 1e-12);
        worst = std::max(worst, rel(g, g_ref));
      }
    }
  MESSAGE("one-prompt gradients within " << worst << " (max norm, relative)");
}

TEST_CASE("label-row: the executor's minibatch is the kernel's chunk sums in chunk order, prompts in order") {
  const icl::Parameterisation params = learn::acds_form11(5, 3);
  const icl::PromptSource src = prompts(5, 10, 2);
  const icl::LossSpec loss = icl::LossSpec::acds();
  const Eigen::VectorXd theta = random_theta(params, 0.3, 4);
  const std::uint64_t count = 150;
  auto lr = LabelRowStack::recognise(params, src);
  REQUIRE(lr);
  lr->load(params.network(theta));
  icl::PromptDrawer draw = src.make_drawer();
  Eigen::MatrixXd Z(src.rows, src.cols);
  LabelRowStack::Scratch scratch;
  icl::WeightGrads wg = params.make_grads();
  double total = 0;
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(params.size());
  label_row::Buffer group(static_cast<std::size_t>(lr->group_size()));
  for (std::uint64_t c0 = 0; c0 < count; c0 += Executor::kBatchChunk) {
    const std::uint64_t c1 = std::min(count, c0 + Executor::kBatchChunk);
    std::vector<double> acc(static_cast<std::size_t>(lr->grad_size()), 0.0);
    double sum = 0;
    for (std::uint64_t i = c0; i < c1; i += label_row::kLanes) {
      std::fill(group.begin(), group.end(), 0.0);
      const int lanes = static_cast<int>(std::min<std::uint64_t>(label_row::kLanes, c1 - i));
      for (int k = 0; k < lanes; ++k) {
        const double yq = draw(7, 8, i + static_cast<std::uint64_t>(k), Z);
        lr->statistics(Z, yq, group.data(), k);
      }
      lr->evaluate(group.data(), lanes, loss, &sum, acc.data(), scratch);
    }
    wg.zero();
    lr->write(acc.data(), wg);
    Eigen::VectorXd gc = Eigen::VectorXd::Zero(params.size());
    params.pullback(wg, gc);
    total += sum;
    grad += gc;
  }
  for (int threads : {1, 2, 3}) {
    auto ex = make_executor(Backend::cpu, threads);
    Eigen::VectorXd got;
    for (int repeat = 0; repeat < 2; ++repeat) {
      CHECK(ex->minibatch(params, theta, src, loss, 7, 8, count, &got) == total);
      CHECK(got == grad);
    }
  }
}

TEST_CASE("label-row: kept statistics are fresh ones bit for bit, across new weights and other streams") {
  const icl::Parameterisation params = learn::acds_form11(5, 2);
  const icl::PromptSource src = prompts(5, 20, 3);
  const icl::LossSpec loss = icl::LossSpec::acds();
  auto kept = make_executor(Backend::cpu, 2);
  // Three streams in turn (two slots): every call against a fresh executor's, with new weights each time.
  for (int step = 0; step < 9; ++step) {
    const Eigen::VectorXd theta = random_theta(params, 0.3, 50 + static_cast<std::uint64_t>(step));
    const std::uint64_t purpose = 20 + static_cast<std::uint64_t>(step % 3), count = step % 3 == 2 ? 70 : 200;
    Eigen::VectorXd a, b;
    const double la = kept->minibatch(params, theta, src, loss, 1, purpose, count, &a);
    const double lb = make_executor(Backend::cpu, 1)->minibatch(params, theta, src, loss, 1, purpose, count, &b);
    CAPTURE(step);
    CHECK(la == lb);
    CHECK(a == b);
  }
}

TEST_CASE("label-row: the AVX2 kernel gives the baseline kernel's bits") {
  if (!label_row::avx2_available()) {
    MESSAGE("no AVX2 on this CPU: only the baseline kernel runs");
    return;
  }
  const icl::LossSpec loss = icl::LossSpec::acds();
  for (int d : {1, 3, 5, 8})
    for (int L : {1, 2, 3, 4})
      for (bool form11 : {false, true}) {
        const icl::Parameterisation params = form11 ? learn::acds_form11(d, L) : learn::acds_form8(d, L);
        const icl::PromptSource src = prompts(d, 10, static_cast<std::uint64_t>(d));
        auto a = LabelRowStack::recognise(params, src), b = LabelRowStack::recognise(params, src);
        REQUIRE(a);
        a->use_avx2(false);
        b->use_avx2(true);
        const icl::Network net = params.network(random_theta(params, 0.3, static_cast<std::uint64_t>(d * 10 + L)));
        a->load(net);
        b->load(net);
        icl::PromptDrawer draw = src.make_drawer();
        Eigen::MatrixXd Z(src.rows, src.cols);
        label_row::Buffer group(static_cast<std::size_t>(a->group_size()), 0.0);
        std::vector<double> ga(static_cast<std::size_t>(a->grad_size()), 0.0), gb = ga;
        LabelRowStack::Scratch sa, sb;
        double la = 0, lb = 0;
        for (int rep = 0; rep < 5; ++rep) {
          for (int k = 0; k < label_row::kLanes; ++k) {
            const double yq = draw(2, 3, static_cast<std::uint64_t>(4 * rep + k), Z);
            a->statistics(Z, yq, group.data(), k);
          }
          a->evaluate(group.data(), label_row::kLanes, loss, &la, ga.data(), sa);
          b->evaluate(group.data(), label_row::kLanes, loss, &lb, gb.data(), sb);
        }
        CAPTURE(d);
        CAPTURE(L);
        CAPTURE(form11);
        CHECK(la == lb);
        CHECK(ga == gb);
      }
}

TEST_CASE("label-row: training is bitwise the same at 1 and 2 threads and close to the layers' path") {
  const icl::Parameterisation params = learn::acds_form11(3, 3);
  const icl::PromptSource src = prompts(3, 10, 5);
  learn::TrainConfig c;
  c.optimizer = "adam";
  c.learning_rate = 1e-2;
  c.batch = 300;
  c.steps = 12;
  c.resample_every = 5;
  c.clip = 1.0;
  c.progress = false;
  c.seed = 3;
  std::vector<learn::TrainResult> runs;
  for (int threads : {1, 2}) {
    c.threads = threads;
    runs.push_back(learn::train(params, random_theta(params, 0.2, 8), src, icl::LossSpec::acds(), c));
  }
  CHECK(runs[0].theta == runs[1].theta);
  CHECK(runs[0].curve.train_loss == runs[1].curve.train_loss);
  LabelRowSwitch off(false);
  const learn::TrainResult layers = learn::train(params, random_theta(params, 0.2, 8), src, icl::LossSpec::acds(), c);
  CHECK(rel(runs[0].theta, layers.theta) <= 1e-10);
  CHECK(rel(runs[0].final_train_loss, layers.final_train_loss) <= 1e-10);
}

}  // namespace
}  // namespace test_label_row
}  // namespace icl::execute
