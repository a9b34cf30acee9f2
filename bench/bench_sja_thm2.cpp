// Google Benchmark: the Monte Carlo estimator of sja.thm2 (App. C block, d = 4, n = 200): prompts per
// second at 1 and 2 threads, with the estimate it produced (it must not depend on the thread count).
// bench/compare_numpy.sh runs it beside bench/numpy_sja_thm2.py.
#include "constructions/sja_appC.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/prompt_loss.hpp"

#include <benchmark/benchmark.h>

#include <cmath>

static void BM_sja_thm2_estimator(benchmark::State& state) {
  const int d = 4, n = 200, threads = static_cast<int>(state.range(0));
  const auto block = icl::sja::appC_block(d);
  const auto task = icl::PolynomialTask::quadratic(d);
  const auto inputs = icl::InputDistribution::standard(d);
  const auto shape = icl::sja_shape(d, icl::sja::kernel_width(d), n);
  const std::uint64_t prompts = 16384;
  std::uint64_t seed = 1;
  icl::Accumulator all(1);  // every prompt of every iteration: the estimate beside the speed
  for (auto _ : state) {
    icl::MonteCarlo mc(1, threads);
    mc.extend_to(prompts, [&] { return icl::PromptLossWorker(block, task, inputs, shape, seed, 7); });
    const icl::Accumulator t = mc.total();
    benchmark::DoNotOptimize(t.mean[0]);
    all.merge(t);
    ++seed;
  }
  state.counters["prompts_per_s"] =
      benchmark::Counter(static_cast<double>(prompts) * state.iterations(), benchmark::Counter::kIsRate);
  // Monte Carlo estimate of the loss (exact: d (d^3 + 18 d^2 + 95 d + 142) / (4 n) = 4.37 here).
  state.counters["estimate_mean"] = all.mean[0];
  state.counters["estimate_stderr"] = std::sqrt(all.variance(0) / static_cast<double>(all.count));
  state.counters["samples"] = static_cast<double>(all.count);
}
BENCHMARK(BM_sja_thm2_estimator)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The two halves of one prompt, single-threaded, to see where the time goes: drawing the prompt
// (Philox + ziggurat normals for w and the n+1 inputs, the target values, the embedding), and the
// forward pass of the App. C block on it as the estimator runs it (Transformer::predict: the bilinear
// layer on the whole prompt, the attention's Gram row over the keys, its update on the query column
// alone; the kernels skip the weights' zero rows, columns and terms; the time includes restoring the
// prompt, a 16 x 201 copy). BM_sja_thm2_forward_full: the whole forward pass, every column updated.
static void BM_sja_thm2_draw_prompt(benchmark::State& state) {
  const int d = 4, n = 200;
  const auto task = icl::PolynomialTask::quadratic(d);
  const auto inputs = icl::InputDistribution::standard(d);
  const auto shape = icl::sja_shape(d, icl::sja::kernel_width(d), n);
  Eigen::MatrixXd X(d, shape.cols()), Z(shape.rows(), shape.cols());
  Eigen::VectorXd w(task.num_coefficients());
  Eigen::RowVectorXd y(shape.cols());
  std::uint64_t i = 0;
  for (auto _ : state) {
    icl::PromptRng rng(1, 7, i++);
    rng.fill_normal(w);
    inputs.sample(rng, X);
    task.evaluate(X, w, y);
    icl::embed(shape, X, y, Z);
    benchmark::DoNotOptimize(Z.data());
    benchmark::ClobberMemory();
  }
  state.counters["prompts_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_sja_thm2_draw_prompt)->Unit(benchmark::kMicrosecond);

static void BM_sja_thm2_forward(benchmark::State& state) {
  const int d = 4, n = 200;
  const auto block = icl::sja::appC_block(d);
  const auto task = icl::PolynomialTask::quadratic(d);
  const auto inputs = icl::InputDistribution::standard(d);
  const auto shape = icl::sja_shape(d, icl::sja::kernel_width(d), n);
  Eigen::MatrixXd X(d, shape.cols()), Z0(shape.rows(), shape.cols()), Z;
  Eigen::VectorXd w(task.num_coefficients());
  Eigen::RowVectorXd y(shape.cols());
  icl::PromptRng rng(1, 7, 0);
  rng.fill_normal(w);
  inputs.sample(rng, X);
  task.evaluate(X, w, y);
  icl::embed(shape, X, y, Z0);
  icl::ForwardWorkspace ws;
  ws.reserve(shape.rows(), shape.cols());
  for (auto _ : state) {
    Z = Z0;
    benchmark::DoNotOptimize(block.predict(Z, ws));
    benchmark::ClobberMemory();
  }
  state.counters["prompts_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_sja_thm2_forward)->Unit(benchmark::kMicrosecond);

static void BM_sja_thm2_forward_full(benchmark::State& state) {
  const int d = 4, n = 200;
  const auto block = icl::sja::appC_block(d);
  const auto shape = icl::sja_shape(d, icl::sja::kernel_width(d), n);
  Eigen::MatrixXd Z0 = Eigen::MatrixXd::Zero(shape.rows(), shape.cols()), Z;
  icl::PromptRng rng(1, 7, 0);
  Eigen::MatrixXd X(d, shape.cols());
  rng.fill_normal(X);
  Z0.row(0).setOnes();
  Z0.middleRows(1, d) = X;
  Z0.row(shape.dbar).head(n) = X.row(0).head(n);
  icl::ForwardWorkspace ws;
  ws.reserve(shape.rows(), shape.cols());
  for (auto _ : state) {
    Z = Z0;
    block.forward(Z, ws);
    benchmark::DoNotOptimize(Z.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_sja_thm2_forward_full)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
