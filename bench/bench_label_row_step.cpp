// Google Benchmark: one Adam step of the acds linear-attention forms at the authors' protocol, the cpu executor's
// layers' path (icl::forward / icl::backward on every prompt, as before the label-row path) against its
// label-row path (execute/label_row.hpp), side by side in one run:
//   form (8), L = 3, d = 5, n = 20, minibatch 20000;  form (11), L = 3, d = 5, n = 10, minibatch 20000;
// prompts of Sec. 4.3's task (Sigma = U^T diag(1, 1, 0.25, 0.0625, 1) U, w ~ N(0, Sigma^-1)), Adam with per-matrix
// clipping, through learn::train (the trainer, its BatchObjective and the executor, as a claim runs them).
// Each iteration trains `steps` steps and the counter step_ms is the wall time per step:
//   resample 100: the minibatch is redrawn every 100 steps (the paper's protocol): an iteration of 100 steps holds one
//                 draw, so its step_ms is the step with the draw amortised;
//   resample 1:   a new minibatch every step (the draw paid every step).
// The layers' path redraws every step either way; it runs 3 steps per iteration.
//
// Arguments: form (8 or 11), path (0: layers, 1: label-row), resample_every, threads.
//   bench-label-row-step --benchmark_filter='form:8/' --benchmark_repetitions=3
#include "constructions/acds_forms.hpp"
#include "icl/execute/label_row.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

namespace {

void BM_adam_step(benchmark::State& state) {
  using namespace icl;
  const int form = static_cast<int>(state.range(0));
  const bool label_row = state.range(1) != 0;
  const int resample = static_cast<int>(state.range(2)), threads = static_cast<int>(state.range(3));
  const int d = 5, L = 3, n = form == 8 ? 20 : 10;
  const icl::Parameterisation params = form == 8 ? learn::acds_form8(d, L) : learn::acds_form11(d, L);
  const Eigen::MatrixXd sigma = acds_paper_sigma(random_orthogonal(d, 1, 2));
  const icl::PromptSource source = icl::gaussian_prompts(inverse_weight_model(sigma), acds_shape(d, n));
  learn::TrainConfig cfg;
  cfg.optimizer = "adam";
  cfg.learning_rate = 1e-3;
  cfg.batch = 20000;
  cfg.clip = 0.01;
  cfg.threads = threads;
  cfg.progress = false;
  cfg.curve_points = 1;
  cfg.resample_every = resample;
  cfg.steps = label_row ? (resample == 1 ? 10 : resample) : 3;
  execute::set_label_row_enabled(label_row);
  Eigen::VectorXd theta = icl::normal_theta(params, 0.1, 1, 1);
  double loss = 0;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    cfg.seed = seed++;  // fresh minibatches every iteration
    const learn::TrainResult r = learn::train(params, theta, source, icl::LossSpec::acds(), cfg);
    // (Not benchmark::DoNotOptimize(loss): with GCC 12 its "+m,r" constraint on a double read back garbage here.)
    loss = r.final_train_loss;
    if (!r.ok()) state.SkipWithError("the training run did not finish");
  }
  execute::set_label_row_enabled(true);
  state.counters["step_ms"] = benchmark::Counter(1e-3 * cfg.steps, benchmark::Counter::kIsIterationInvariantRate |
                                                                        benchmark::Counter::kInvert);
  state.counters["us_per_prompt"] = benchmark::Counter(1e-6 * cfg.steps * static_cast<double>(cfg.batch),
                                                       benchmark::Counter::kIsIterationInvariantRate |
                                                           benchmark::Counter::kInvert);
  state.counters["final_loss"] = loss;
  state.SetLabel(fmt::format("form ({}) L={} n={} batch {}: {}, resample every {}, {} thread{}", form, L, n, cfg.batch,
                             label_row ? "label-row" : "layers", resample, threads, threads > 1 ? "s" : ""));
}

void args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"form", "label_row", "resample", "threads"});
  for (int form : {8, 11})
    for (int threads : {1, 2}) {
      b->Args({form, 0, 100, threads});
      b->Args({form, 1, 100, threads});
      b->Args({form, 1, 1, threads});
    }
}

}  // namespace

BENCHMARK(BM_adam_step)->Apply(args)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

BENCHMARK_MAIN();
