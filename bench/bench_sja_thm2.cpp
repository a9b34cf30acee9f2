// Google Benchmark: the Monte Carlo estimator of sja.thm2 (App. C block, d = 4, n = 200): prompts per
// second at 1 and 2 threads. bench/compare_numpy.sh runs it beside bench/numpy_sja_thm2.py.
#include "constructions/sja_appC.hpp"
#include "icl/icl_loss.hpp"
#include "icl/montecarlo.hpp"

#include <benchmark/benchmark.h>

static void BM_sja_thm2_estimator(benchmark::State& state) {
  const int d = 4, n = 200, threads = static_cast<int>(state.range(0));
  const auto block = icl::sja::appC_block(d);
  const auto task = icl::PolynomialTask::quadratic(d);
  const auto inputs = icl::InputDistribution::standard(d);
  const auto shape = icl::sja_shape(d, icl::sja::kernel_width(d), n);
  const std::uint64_t prompts = 16384;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    icl::MonteCarlo mc(1, threads);
    mc.extend_to(prompts, [&] { return icl::PromptLossWorker(block, task, inputs, shape, seed, 7); });
    benchmark::DoNotOptimize(mc.total().mean[0]);
    ++seed;
  }
  state.counters["prompts_per_s"] =
      benchmark::Counter(static_cast<double>(prompts) * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_sja_thm2_estimator)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
