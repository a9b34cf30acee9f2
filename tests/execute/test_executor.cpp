// The executor (execute/executor.hpp), cpu backend: per-prompt losses are the forward pass's, in prompt order, bit
// for bit at any thread count; a minibatch's sums are the fixed-chunk sums in chunk order, the same at any thread
// count and equal to the trainer's objective; a backend not built here is refused with one line naming the built ones.
#include "constructions/acds_forms.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/label_row.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/tasks.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace icl::execute {
namespace test_executor {  // named: a unity build compiles several test files as one unit
namespace {

struct Setup {
  icl::Parameterisation params = learn::acds_form11(2, 2);
  icl::PromptSource source;
  Eigen::VectorXd theta;
  Setup() {
    source = icl::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(2), Eigen::MatrixXd::Identity(2, 2)),
                                     acds_shape(2, 9));
    theta = icl::normal_theta(params, 0.3, 5, 6);
  }
};

TEST_CASE("executor: per-prompt losses are the forward pass's, in prompt order, at any thread count") {
  Setup s;
  const icl::Network net = s.params.network(s.theta);
  const icl::LossSpec loss = icl::LossSpec::acds();
  const std::uint64_t count = 700;  // not a multiple of the chunk
  std::vector<double> serial(count);
  {
    icl::PromptDrawer draw = s.source.make_drawer();
    icl::Tape tape;
    Eigen::MatrixXd Z(s.source.rows, s.source.cols);
    for (std::uint64_t i = 0; i < count; ++i) {
      const double yq = draw(3, 4, i, Z);
      serial[i] = loss(icl::forward(net, Z, tape), yq);
    }
  }
  for (int threads : {1, 2, 5}) {
    std::vector<double> out;
    make_executor(Backend::cpu, threads)->losses(net, s.source, loss, 3, 4, count, out);
    REQUIRE(out.size() == count);
    for (std::uint64_t i = 0; i < count; ++i) REQUIRE(out[i] == serial[i]);
  }
}

TEST_CASE("executor: a minibatch's loss and gradient are the chunk sums in chunk order, the same at any thread count") {
  // The layers' path (icl::forward / icl::backward per prompt): acds form (11) is a label-row stack, which the cpu
  // executor runs on its own kernels unless told not to; tests/execute/test_label_row.cpp checks that path's chunk
  // sums the same way.
  struct LayersPath {
    bool before = label_row_enabled();
    LayersPath() { set_label_row_enabled(false); }
    ~LayersPath() { set_label_row_enabled(before); }
  } layers_path;
  Setup s;
  const icl::LossSpec loss = icl::LossSpec::acds();
  const std::uint64_t count = 300;
  // By hand: chunk sums of Executor::kBatchChunk prompts, added in chunk order.
  const icl::Network net = s.params.network(s.theta);
  icl::PromptDrawer draw = s.source.make_drawer();
  icl::Tape tape;
  icl::WeightGrads g = s.params.make_grads();
  Eigen::MatrixXd Z(s.source.rows, s.source.cols);
  double total = 0;
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(s.params.size());
  for (std::uint64_t c0 = 0; c0 < count; c0 += Executor::kBatchChunk) {
    double sum = 0;
    g.zero();
    for (std::uint64_t i = c0; i < std::min(count, c0 + Executor::kBatchChunk); ++i) {
      const double yq = draw(7, 8, i, Z);
      const double yhat = icl::forward(net, Z, tape);
      sum += loss(yhat, yq);
      icl::backward(net, tape, loss.derivative(yhat, yq), g);
    }
    Eigen::VectorXd gc = Eigen::VectorXd::Zero(s.params.size());
    s.params.pullback(g, gc);
    total += sum;
    grad += gc;
  }
  for (int threads : {1, 3}) {
    auto ex = make_executor(Backend::cpu, threads);
    Eigen::VectorXd got;
    for (int repeat = 0; repeat < 2; ++repeat) {  // the second call reuses the prepared per-thread state
      CHECK(ex->minibatch(s.params, s.theta, s.source, loss, 7, 8, count, &got) == total);
      CHECK(got == grad);
    }
    CHECK(ex->minibatch(s.params, s.theta, s.source, loss, 7, 8, count, nullptr) == total);
  }
  learn::BatchObjective obj(s.params, s.source, loss, 2);
  Eigen::VectorXd mean_grad;
  CHECK(obj.evaluate(s.theta, 7, 8, count, &mean_grad) == total * (1.0 / static_cast<double>(count)));
  CHECK(mean_grad == grad * (1.0 / static_cast<double>(count)));
}

TEST_CASE("executor: backends by name; one not built here, or cuda without a GPU, is refused in one line") {
  CHECK(backend_from_name("cpu") == Backend::cpu);
  CHECK(backend_from_name("portable") == Backend::portable);
  CHECK(std::string(to_string(Backend::cpu)) == "cpu");
  CHECK(std::string(to_string(Backend::cuda)) == "cuda");
  CHECK(std::string(to_string(Backend::portable)) == "portable");
  CHECK(make_executor(Backend::portable, 3)->backend() == Backend::portable);
  CHECK(make_executor(Backend::portable, 3)->threads() == 3);
  CHECK(make_executor(Backend::portable, 0)->threads() == 1);
  const std::vector<std::string> built = built_backends();
  const bool cuda = std::find(built.begin(), built.end(), "cuda") != built.end();
  CHECK_THROWS_WITH_AS(backend_from_name("Portable"), doctest::Contains("unknown backend 'Portable' (built: cpu, portable"),
                       std::invalid_argument);
  if (!cuda) {
    CHECK(built == std::vector<std::string>{"cpu", "portable"});
    CHECK_THROWS_WITH_AS(backend_from_name("cuda"),
                         "backend 'cuda' is not built in this binary (built: cpu, portable; the CUDA backend is built "
                         "where CMake finds nvcc)",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(backend_from_name("tpu"), "unknown backend 'tpu' (built: cpu, portable)", std::invalid_argument);
  } else {  // built with nvcc (CMakeLists.txt): usable where a GPU is, bad input where none is
    CHECK(built == std::vector<std::string>{"cpu", "portable", "cuda"});
    CHECK_THROWS_WITH_AS(backend_from_name("tpu"), "unknown backend 'tpu' (built: cpu, portable, cuda)",
                         std::invalid_argument);
    try {
      const Backend b = backend_from_name("cuda");  // (outside CHECK, which would catch the exception itself)
      CHECK(b == Backend::cuda);
      MESSAGE("a CUDA GPU is present: --backend cuda is accepted");
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      CHECK(m.rfind("backend 'cuda' is built but no CUDA GPU is usable here (", 0) == 0);
      CHECK(m.find('\n') == std::string::npos);
      MESSAGE("no CUDA GPU here: " << m);
    }
  }
  CHECK(default_backend() == Backend::cpu);
}

}  // namespace
}  // namespace test_executor
}  // namespace icl::execute
