// ctest `cuda_equality` (built where the cuda backend is; skipped, exit 77, where no GPU is present): the cuda
// backend's per-prompt losses against the portable path on the CPU (the same source, execute/portable/), the same
// seeds and streams, for 1-, 2- and 3-layer dense LSA stacks on sja- and acds-shaped prompts; and the training
// minibatch's chunk sums (loss and gradient) and minibatch() of full LSA stacks, acds form (8) and sja's bilinear
// stacks.
//
// Then softmax attention on unstructured prompts (xlssc.onelayer's search network and a two-layer softmax stack):
// losses and minibatch().
//
// Each in float64 and in float32 (portable::Precision: the kernel in float against the portable path in float), and
// each under the kernels' three schedules (cuda::Schedule, ICL_CUDA_SCHEDULE: one thread per prompt; one block per
// prompt, its scratch in shared memory where it fits or always in global memory); then the schedules against each
// other on the GPU, where no exp or log can differ: bit for bit. Each reference is computed once on the CPU and
// compared with every schedule's numbers.
//
// Expected: equal bit for bit. The one source of a difference the design admits: a prompt whose ziggurat draws take
// the wedge or tail path calls exp or log, glibc's on the CPU and CUDA's on the GPU, which can differ in the last
// bit; such a prompt's loss then differs by rounding. So: fail on any difference above 1e-12 relative (1e-5 in
// float32, whose rounding is 6e-8), or on more than 1% of the prompts differing at all; print the counts either way.
//
// `icl-cuda-equality --time` also times losses() of sja.thm2-sized LSA stacks (d = 4, n = 200 and d = 8, n = 1600,
// 1 and 3 layers) and minibatch() of acds form (8) (d = 5, n = 20, batch 4000) and of sja.fig1's 12-layer bilinear
// model on the cuda backend against the cpu backend on one thread, the LSA losses and the bilinear step in float32
// too, every timing under the three schedules; `--time-only` times without the equality check (bench/gpu/check.sh
// runs the two apart, so that a failure of one leaves the other's numbers).
//
// `--rehearse` (no GPU needed): the portable path on the host stands in for the device, so that the whole program
// runs, and its host side is timed, on a machine without a GPU (bench/gpu/check.sh's rehearsal, with fewer prompts
// in the timings). A rehearsal compares the portable path with itself: it checks this program's logic and time,
// never the GPU, and it says so where it starts and where it ends.
#include "constructions/acds_forms.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/cuda/cuda_executor.hpp"
#include "icl/cuda/kernels.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/portable_path.hpp"
#include "icl/learn/forms.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/tasks.hpp"
#include "tests/support/random_stack.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace icl;

// How many of `got` differ from `ref`, and the largest relative difference (added into *d: several arrays may count
// into one tally).
struct Differences {
  std::size_t count = 0;
  double worst = 0;
};
// Values are the same where they are equal or both NaN (a prompt that overflows in float overflows alike on both
// sides: 3 of the 20,000 losses of the 3-layer acds case in float32 are infinite). A value that is not finite on one
// side only differs by an infinite amount.
void count_differences(const std::vector<double>& ref, const std::vector<double>& got, Differences& d) {
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (got[i] == ref[i] || (std::isnan(got[i]) && std::isnan(ref[i]))) continue;
    ++d.count;
    d.worst = std::isfinite(got[i]) && std::isfinite(ref[i])
                  ? std::max(d.worst, std::fabs(got[i] - ref[i]) / std::max(std::fabs(ref[i]), 1e-300))
                  : INFINITY;
  }
}

// The mean wall time of one call of f over `repeats` calls, in seconds.
template <class F>
double seconds_per_call(int repeats, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / repeats;
}

// Every schedule of the kernels (kernels.hpp).
constexpr cuda::Schedule kSchedules[] = {cuda::Schedule::thread, cuda::Schedule::block, cuda::Schedule::block_global};

// Masked dense LSA layers, N(0, 0.36 / rows) weights.
Network stack(int rows, int layers, std::uint64_t seed) {
  return test::random_lsa_stack(rows, layers, true, 0.0, seed, 0.6 / std::sqrt(static_cast<double>(rows)));
}

// The device under test: the cuda backend (its executor, and the kernels' entry points with a plan), or under
// --rehearse the portable path on the host in its place (the same calls, the same output layout).
struct Device {
  bool rehearse = false;
  std::unique_ptr<execute::Executor> executor;

  void schedule(cuda::Schedule s) const {
    if (!rehearse) cuda::set_schedule(s);
  }
  // Prompts first .. first + count - 1's losses into out.
  void losses(const portable::Plan& plan, portable::StreamKey key, std::uint64_t first, std::uint64_t count,
              double* out) const {
    if (!rehearse) return cuda::prompt_losses(plan, key, first, count, out);
    execute::PromptScratch scratch(plan, false);
    execute::portable_loss_range(plan, key, first, first + count, scratch, out);
  }
  // The minibatch's chunk sums (Executor::kBatchChunk prompts a chunk): loss[c], and dW[c * grad + e] where dW is
  // not null.
  void chunks(const portable::Plan& plan, portable::StreamKey key, std::uint64_t count, double* loss,
              double* dW) const {
    constexpr std::uint64_t chunk = execute::Executor::kBatchChunk;
    if (!rehearse) return cuda::minibatch_chunks(plan, key, count, chunk, loss, dW);
    const auto G = static_cast<std::uint64_t>(plan.grad_size()), chunks = (count + chunk - 1) / chunk;
    if (dW) std::fill(dW, dW + chunks * G, 0.0);  // portable_minibatch_chunk adds into its chunk's entries
    execute::PromptScratch scratch(plan, dW != nullptr);
    for (std::uint64_t c = 0; c < chunks; ++c)
      loss[c] = execute::portable_minibatch_chunk(plan, key, c, count, scratch, dW ? dW + c * G : nullptr);
  }
};

}  // namespace

namespace {

const char* schedule_words(cuda::Schedule s) {
  return s == cuda::Schedule::thread  ? "one thread per prompt"
         : s == cuda::Schedule::block ? "one block per prompt, its scratch in shared memory where it fits in 48 KB"
                                      : "one block per prompt, its scratch in global memory";
}

const char* precision_name(portable::Precision p) { return p == portable::Precision::f32 ? "float32" : "float64"; }

// The equality check: every case's reference computed once on the CPU, then every schedule's numbers against it.
// True when every comparison passed.
bool check_equality(const Device& dev) {
  execute::Executor& gpu = *dev.executor;
  struct Case {
    const char* name;
    icl::PromptSource source;
  };
  const std::vector<Case> cases = {
      {"sja d=4 n=200", icl::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(4),
                                                                            Eigen::MatrixXd::Identity(4, 4)),
                                                sja_shape(4, 5, 200))},
      {"acds d=5 n=20 cov3", icl::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(5),
                                                                                 test_covariance(5, 3)),
                                                     acds_shape(5, 20))}};
  for (const cuda::Schedule schedule : kSchedules)
    std::printf("schedule %-12s %s\n", cuda::schedule_name(schedule), schedule_words(schedule));
  bool ok = true;
  std::printf("\nper-prompt losses, the portable path on the CPU against each schedule:\n");
  for (const auto& c : cases)
    for (int layers : {1, 2, 3})
      for (std::uint64_t seed : {1ull, 77ull}) {
        const Network net = stack(c.source.rows, layers, seed + 5);
        const std::uint64_t count = 20000;
        for (const auto precision : {portable::Precision::f64, portable::Precision::f32}) {
          const bool f32 = precision == portable::Precision::f32;
          std::vector<double> ref, got;
          const auto plan = execute::plan_portable(net, c.source, icl::LossSpec::sja(), "test", precision);
          execute::portable_losses(*plan, seed, 1234, count, ref);
          for (const cuda::Schedule schedule : kSchedules) {
            dev.schedule(schedule);
            execute::set_default_precision(precision);  // what the executor plans in (--precision)
            gpu.losses(net, c.source, icl::LossSpec::sja(), seed, 1234, count, got);
            execute::set_default_precision(portable::Precision::f64);
            Differences diff;
            count_differences(ref, got, diff);
            // float's rounding is 2^-24: a prompt whose draw called exp or log differently can differ by about that.
            const bool pass = diff.worst <= (f32 ? 1e-5 : 1e-12) && diff.count * 100 <= ref.size();
            ok = ok && pass;
            std::printf("%-20s %s layers %d seed %3llu, %-12s: %zu of %zu losses differ (max relative %.3g) %s\n",
                        c.name, precision_name(precision), layers, static_cast<unsigned long long>(seed),
                        cuda::schedule_name(schedule), diff.count, ref.size(), diff.worst, pass ? "ok" : "FAIL");
          }
        }
      }
  // The training minibatch: the chunk sums of the loss and of the layers' P and Q gradients (kernels.hpp
  // minibatch_chunks) against the portable path's, for full LSA stacks, acds form (8) (P frozen) and sja's bilinear
  // stacks, then the executors' minibatch() (the pullback to theta on the host): expected bit for bit, with the same
  // allowance as above for prompts whose ziggurat draws called exp or log.
  std::printf("\nminibatches (chunk sums, and minibatch() pulled back to theta):\n");
  for (const auto& c : cases)
    for (int layers : {1, 3}) {
      // Each form with the sd of its weights: 0.5 / sqrt(rows), half that for sja's bilinear stacks, whose 3 blocks
      // at 0.5 overflow float (a prediction of degree 2^3 in the prompt: 527 of the chunk sums NaN in the rehearsal).
      std::vector<std::pair<icl::Parameterisation, double>> forms = {{learn::full_lsa(c.source.rows, layers), 0.5}};
      const int d = c.source.gaussian_task->d;
      if (c.source.rows == d + 1)
        forms.emplace_back(learn::acds_form8(d, layers), 0.5);
      else  // sja's bilinear stack (dense form), `layers` blocks of bilinear + LSA
        forms.emplace_back(learn::sja_bilinear(d, c.source.rows - 1, layers, learn::BilinearForm::dense), 0.25);
      for (const auto& [params, sd] : forms) {
        Eigen::VectorXd theta(params.size());
        PromptRng rng(31, 7, static_cast<std::uint64_t>(layers));
        for (Eigen::Index k = 0; k < theta.size(); ++k) theta[k] = sd / std::sqrt(c.source.rows) * rng.normal();
        const std::uint64_t count = 4000;
        for (const auto precision : {portable::Precision::f64, portable::Precision::f32}) {
          const bool f32 = precision == portable::Precision::f32;
          const auto plan =
              execute::plan_portable(params.network(theta), c.source, icl::LossSpec::sja(), "test", precision);
          std::vector<double> ref_loss, ref_dW;
          execute::portable_minibatch_chunks(*plan, 5, 99, count, ref_loss, &ref_dW);
          Eigen::VectorXd g_ref;
          const double l_ref = execute::portable_minibatch(*plan, params, 5, 99, count, &g_ref);
          for (const cuda::Schedule schedule : kSchedules) {
            dev.schedule(schedule);
            std::vector<double> got_loss(ref_loss.size(), 0.0), got_dW(ref_dW.size(), 0.0);
            dev.chunks(*plan, execute::portable_stream_key(5, 99), count, got_loss.data(), got_dW.data());
            Differences diff;
            count_differences(ref_dW, got_dW, diff);
            count_differences(ref_loss, got_loss, diff);
            // minibatch(): the executor in this precision, the pullback on the host.
            Eigen::VectorXd g_gpu;
            execute::set_default_precision(precision);
            const double l_gpu = gpu.minibatch(params, theta, c.source, icl::LossSpec::sja(), 5, 99, count, &g_gpu);
            execute::set_default_precision(portable::Precision::f64);
            const double rel = std::max(std::fabs(l_gpu - l_ref) / std::fabs(l_ref),
                                        (g_gpu - g_ref).lpNorm<Eigen::Infinity>() / g_ref.lpNorm<Eigen::Infinity>());
            const double tol = f32 ? 1e-5 : 1e-12;
            const bool pass = diff.worst <= tol && rel <= tol && diff.count * 100 <= ref_dW.size() + ref_loss.size();
            ok = ok && pass;
            std::printf("%-20s %s minibatch, %d layers, %zu parameters, %-12s: %zu of %zu chunk sums differ (max "
                        "relative %.3g); minibatch() max relative %.3g %s\n",
                        c.name, precision_name(precision), layers, static_cast<std::size_t>(params.size()),
                        cuda::schedule_name(schedule), diff.count, ref_dW.size() + ref_loss.size(), diff.worst, rel,
                        pass ? "ok" : "FAIL");
          }
        }
      }
    }
  // Softmax attention on unstructured prompts (execute/portable/softmax.hpp): xlssc.onelayer's search network (one
  // causal softmax layer, d = 5, D = 30, theta = +-theta0) and two causal softmax layers (d = 3, D = 7, Gaussian
  // theta): per-prompt losses and minibatch(), expected bit for bit as above (the softmax's exp is portable_exp, the
  // same arithmetic on both sides).
  std::printf("\nsoftmax attention on unstructured prompts (losses and minibatch()):\n");
  {
    struct SoftCase {
      const char* name;
      icl::PromptSource source;
      int layers;
    };
    const std::vector<SoftCase> soft = {
        {"xlssc d=5 D=30", icl::unstructured_prompts(5, 30, Eigen::VectorXd::Constant(5, 1.0 / std::sqrt(5.0))), 1},
        {"softmax x2 d=3 D=7", icl::unstructured_prompts(3, 7), 2}};
    const icl::LossSpec sq{-1.0, 1.0};
    for (const auto& c : soft) {
      const int d = c.source.rows - 1;
      const icl::Parameterisation params =
          learn::softmax_stack(d, c.layers, layers::SoftmaxAttention::Activation::softmax, true);
      Eigen::VectorXd theta(params.size());
      PromptRng rng(41, 7, static_cast<std::uint64_t>(c.layers));
      for (Eigen::Index k = 0; k < theta.size(); ++k) theta[k] = 0.8 / std::sqrt(d + 1.0) * rng.normal();
      const Network net = params.network(theta);
      for (const auto precision : {portable::Precision::f64, portable::Precision::f32}) {
        const bool f32 = precision == portable::Precision::f32;
        const auto plan = execute::plan_portable(net, c.source, sq, "test", precision);
        std::vector<double> ref;
        execute::portable_losses(*plan, 3, 1234, 20000, ref);
        Eigen::VectorXd g_ref;
        const double l_ref = execute::portable_minibatch(*plan, params, 5, 99, 4000, &g_ref);
        for (const cuda::Schedule schedule : kSchedules) {
          dev.schedule(schedule);
          std::vector<double> got;
          Eigen::VectorXd g_gpu;
          execute::set_default_precision(precision);
          gpu.losses(net, c.source, sq, 3, 1234, 20000, got);
          const double l_gpu = gpu.minibatch(params, theta, c.source, sq, 5, 99, 4000, &g_gpu);
          execute::set_default_precision(portable::Precision::f64);
          Differences diff;
          count_differences(ref, got, diff);
          const double rel = std::max(std::fabs(l_gpu - l_ref) / std::fabs(l_ref),
                                      (g_gpu - g_ref).lpNorm<Eigen::Infinity>() / g_ref.lpNorm<Eigen::Infinity>());
          const double tol = f32 ? 1e-5 : 1e-12;
          const bool pass = diff.worst <= tol && rel <= tol && diff.count * 100 <= ref.size();
          ok = ok && pass;
          std::printf("%-20s %s, %-12s: %zu of %zu losses differ (max relative %.3g); minibatch() max relative %.3g "
                      "%s\n",
                      c.name, precision_name(precision), cuda::schedule_name(schedule), diff.count, ref.size(),
                      diff.worst, rel, pass ? "ok" : "FAIL");
        }
      }
    }
  }
  // The check can fail: a different seed on the device is different numbers.
  {
    dev.schedule(cuda::Schedule::thread);
    const Network net = stack(cases[0].source.rows, 2, 6);
    std::vector<double> a, b;
    gpu.losses(net, cases[0].source, icl::LossSpec::sja(), 1, 1234, 1000, a);
    gpu.losses(net, cases[0].source, icl::LossSpec::sja(), 2, 1234, 1000, b);
    const bool pass = a != b;
    ok = ok && pass;
    std::printf("\nseeds 1 and 2 on the device: %s\n", pass ? "different losses, ok" : "the same losses, FAIL");
  }
  // The schedules against each other: the same kernels' arithmetic on the same device, so every loss and chunk sum
  // bit for bit (the exp and log of the draw are CUDA's in all). The 3-layer stack's losses fit in shared memory
  // under block, the bilinear stack's gradient scratch does not (it runs in global memory there too).
  {
    const Network net = stack(cases[0].source.rows, 3, 8);
    // dbar = 5: the sja case's prompts have rows = dbar + 1 = 6.
    const icl::Parameterisation params = learn::sja_bilinear(4, 5, 2, learn::BilinearForm::dense);
    const Eigen::VectorXd theta = Eigen::VectorXd::Constant(params.size(), 0.05);
    for (const auto precision : {portable::Precision::f64, portable::Precision::f32}) {
      const auto plan = execute::plan_portable(net, cases[0].source, icl::LossSpec::sja(), "test", precision);
      const auto bplan =
          execute::plan_portable(params.network(theta), cases[0].source, icl::LossSpec::sja(), "test", precision);
      const std::uint64_t count = 5000, chunk = execute::Executor::kBatchChunk, chunks = (count + chunk - 1) / chunk;
      const portable::StreamKey key = execute::portable_stream_key(2, 5);
      constexpr int kS = static_cast<int>(std::size(kSchedules));
      std::vector<double> losses[kS], chunk_loss[kS], chunk_dW[kS];
      for (int s = 0; s < kS; ++s) {
        dev.schedule(kSchedules[s]);
        losses[s].assign(count, 0.0);
        dev.losses(*plan, key, 0, count, losses[s].data());
        chunk_loss[s].assign(chunks, 0.0);
        chunk_dW[s].assign(chunks * static_cast<std::uint64_t>(bplan->grad_size()), 0.0);
        dev.chunks(*bplan, key, count, chunk_loss[s].data(), chunk_dW[s].data());
      }
      // The thread schedule's calls again, after the other schedules' calls have used the workspace (device memory
      // kept between calls, kernels.cu): the same bits.
      {
        dev.schedule(kSchedules[0]);
        std::vector<double> again(count, 0.0), again_loss(chunks, 0.0), again_dW(chunk_dW[0].size(), 0.0);
        dev.losses(*plan, key, 0, count, again.data());
        dev.chunks(*bplan, key, count, again_loss.data(), again_dW.data());
        const bool pass = again == losses[0] && again_loss == chunk_loss[0] && again_dW == chunk_dW[0];
        ok = ok && pass;
        std::printf("the same calls again, the workspace reused, %s: %s\n", precision_name(precision),
                    pass ? "equal bit for bit, ok" : "differ, FAIL");
      }
      for (int s = 1; s < kS; ++s) {
        const bool pass = losses[0] == losses[s] && chunk_loss[0] == chunk_loss[s] && chunk_dW[0] == chunk_dW[s];
        ok = ok && pass;
        std::printf("thread vs %s schedule, %s: %llu losses (scratch %lld bytes a prompt), %zu chunk sums of an sja "
                    "bilinear stack (%lld bytes): %s\n",
                    cuda::schedule_name(kSchedules[s]), precision_name(precision),
                    static_cast<unsigned long long>(count), plan->scratch_bytes(false),
                    chunk_loss[0].size() + chunk_dW[0].size(), bplan->scratch_bytes(true),
                    pass ? "equal bit for bit, ok" : "differ, FAIL");
      }
    }
  }
  dev.schedule(cuda::Schedule::automatic);  // the default again
  return ok;
}

// The timings: losses() per prompt and minibatch() per step, the device under every schedule against the cpu
// backend on one thread. A rehearsal times its stand-in on fewer prompts (`scale` of the device's counts).
void time_calls(const Device& dev) {
  execute::Executor& gpu = *dev.executor;
  const std::uint64_t scale = dev.rehearse ? 100 : 1;
  const int step_repeats = dev.rehearse ? 1 : 20, big_step_repeats = dev.rehearse ? 1 : 5;
  const auto cpu = execute::make_executor(execute::Backend::cpu, 1);
  std::printf("\nlosses() per prompt, cuda vs cpu on one thread:\n");
  for (const auto& [d, n] : {std::pair{4, 200}, std::pair{8, 1600}})
    for (int layers : {1, 3}) {
      const auto source = icl::gaussian_prompts(
          GaussianIclModel::from_task(PolynomialTask::linear(d), Eigen::MatrixXd::Identity(d, d)), sja_shape(d, d + 1, n));
      const Network net = stack(source.rows, layers, 3);
      std::vector<double> out;
      const std::uint64_t cpu_count = d == 4 ? 20000 : 1000, gpu_count = (d == 4 ? 1000000 : 100000) / scale;
      const auto run = [&](execute::Executor& ex, std::uint64_t count) {
        return seconds_per_call(1, [&] { ex.losses(net, source, icl::LossSpec::sja(), 1, 2, count, out); }) /
               static_cast<double>(count);
      };
      const double cpu_s = run(*cpu, cpu_count);
      std::printf("  d=%d n=%d layers=%d: cpu 1 thread %.3g us\n", d, n, layers, cpu_s * 1e6);
      for (const cuda::Schedule schedule : kSchedules) {
        dev.schedule(schedule);
        run(gpu, 1000 / scale);  // warm-up (context, first launch, the workspace)
        const double gpu_s = run(gpu, gpu_count);
        execute::set_default_precision(portable::Precision::f32);
        const double gpu32_s = run(gpu, gpu_count);
        execute::set_default_precision(portable::Precision::f64);
        std::printf("    cuda, schedule %-12s %.3g us (ratio %.0fx), cuda float32 %.3g us (ratio %.0fx)\n",
                    cuda::schedule_name(schedule), gpu_s * 1e6, cpu_s / gpu_s, gpu32_s * 1e6, cpu_s / gpu32_s);
      }
      dev.schedule(cuda::Schedule::automatic);
    }
  std::printf("\nminibatch() (loss and gradient) of acds form (8), 3 layers, d = 5, n = 20, batch 4000, cuda vs cpu "
              "on one thread:\n");
  const auto source = icl::gaussian_prompts(
      GaussianIclModel::from_task(PolynomialTask::linear(5), Eigen::MatrixXd::Identity(5, 5)), acds_shape(5, 20));
  const icl::Parameterisation params = learn::acds_form8(5, 3);
  const Eigen::VectorXd theta = Eigen::VectorXd::Constant(params.size(), 0.05);
  Eigen::VectorXd g;
  // One minibatch() of `p` at `th` on `ex`, batch 4000.
  const auto step = [&g](execute::Executor& ex, const icl::Parameterisation& p, const Eigen::VectorXd& th,
                         const icl::PromptSource& src, icl::LossSpec loss) {
    return [&, loss] { ex.minibatch(p, th, src, loss, 1, 2, 4000, &g); };
  };
  const double cpu_s = seconds_per_call(3, step(*cpu, params, theta, source, icl::LossSpec::acds()));
  std::printf("  cpu 1 thread %.3g ms\n", cpu_s * 1e3);
  for (const cuda::Schedule schedule : kSchedules) {
    dev.schedule(schedule);
    const auto gpu_step = step(gpu, params, theta, source, icl::LossSpec::acds());
    gpu_step();  // warm-up
    const double gpu_s = seconds_per_call(step_repeats, gpu_step);
    execute::set_default_precision(portable::Precision::f32);
    gpu_step();
    const double gpu32_s = seconds_per_call(step_repeats, gpu_step);
    execute::set_default_precision(portable::Precision::f64);
    std::printf("  cuda, schedule %-12s %.3g ms (ratio %.0fx), cuda float32 %.3g ms (ratio %.0fx)\n",
                cuda::schedule_name(schedule), gpu_s * 1e3, cpu_s / gpu_s, gpu32_s * 1e3, cpu_s / gpu32_s);
  }
  // sja.fig1's 12-layer bilinear model (6 blocks of bilinear + LSA, d = 4, dbar = 12, n = 200), batch 4000.
  const auto sja_source = icl::gaussian_prompts(
      GaussianIclModel::from_task(PolynomialTask::quadratic(4), Eigen::MatrixXd::Identity(4, 4)), sja_shape(4, 12, 200));
  const icl::Parameterisation sja = learn::sja_bilinear(4, 12, 6, learn::BilinearForm::dense);
  const Eigen::VectorXd th = Eigen::VectorXd::Constant(sja.size(), 0.01);
  const double cpu_b = seconds_per_call(1, step(*cpu, sja, th, sja_source, icl::LossSpec::sja()));
  std::printf("minibatch() of sja.fig1's 12-layer bilinear model (d = 4, dbar = 12, n = 200), batch 4000:\n"
              "  cpu 1 thread %.3g s\n", cpu_b);
  for (const cuda::Schedule schedule : kSchedules) {
    dev.schedule(schedule);
    const auto gpu_step = step(gpu, sja, th, sja_source, icl::LossSpec::sja());
    gpu_step();  // warm-up
    const double gpu_b = seconds_per_call(big_step_repeats, gpu_step);
    // The same step in float32 (--precision float32).
    execute::set_default_precision(portable::Precision::f32);
    gpu_step();
    const double gpu32_b = seconds_per_call(big_step_repeats, gpu_step);
    execute::set_default_precision(portable::Precision::f64);
    std::printf("  cuda, schedule %-12s %.3g ms (ratio %.0fx), cuda float32 %.3g ms (ratio %.0fx)\n",
                cuda::schedule_name(schedule), gpu_b * 1e3, cpu_b / gpu_b, gpu32_b * 1e3, cpu_b / gpu32_b);
  }
  dev.schedule(cuda::Schedule::automatic);
}

}  // namespace

int main(int argc, char** argv) {
  bool check = true, timing = false, rehearse = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--time")
      timing = true;
    else if (a == "--time-only")
      timing = true, check = false;
    else if (a == "--rehearse")
      rehearse = true;
    else {
      std::fprintf(stderr, "icl-cuda-equality: unknown option '%s' (expected --time, --time-only, --rehearse)\n",
                   argv[i]);
      return 2;
    }
  }
  // ICL_CUDA_SCHEDULE's values (no GPU needed): unset, empty or auto, thread, block, block-global; anything else
  // refused in one line; auto resolves to thread for losses and block for gradients, the others to themselves.
  {
    using cuda::Schedule;
    bool parsed = cuda::parse_schedule(nullptr) == Schedule::automatic &&
                  cuda::parse_schedule("") == Schedule::automatic && cuda::parse_schedule("auto") == Schedule::automatic &&
                  cuda::resolve_schedule(Schedule::automatic, false) == Schedule::thread &&
                  cuda::resolve_schedule(Schedule::automatic, true) == Schedule::block &&
                  cuda::parse_schedule("thread") == Schedule::thread &&
                  cuda::parse_schedule("block") == Schedule::block &&
                  cuda::parse_schedule("block-global") == Schedule::block_global;
    for (const Schedule s : kSchedules)
      parsed = parsed && cuda::resolve_schedule(s, false) == s && cuda::resolve_schedule(s, true) == s;
    try {
      cuda::parse_schedule("blocks");
      parsed = false;
    } catch (const std::invalid_argument& e) {
      std::printf("ICL_CUDA_SCHEDULE=blocks refused: %s\n", e.what());
    }
    if (!parsed) {
      std::printf("FAIL: ICL_CUDA_SCHEDULE's values are not parsed as documented\n");
      return 1;
    }
  }
  Device dev;
  dev.rehearse = rehearse;
  if (rehearse) {
    std::printf("REHEARSAL (--rehearse): the portable path on the host stands in for the GPU; this compares the "
                "portable path with itself and times it, it checks no GPU\n");
  } else {
    std::string why;
    if (!cuda::gpu_available(&why)) {
      std::printf("skipped: no CUDA GPU usable here (%s)\n", why.c_str());
      return 77;
    }
    std::printf("GPU: %s\n", cuda::device_name().c_str());
  }
  dev.executor = execute::make_executor(rehearse ? execute::Backend::portable : execute::Backend::cuda, 1);
  bool ok = true;
  try {
    if (check) ok = check_equality(dev);
    if (timing) time_calls(dev);
  } catch (const std::exception& e) {  // a CUDA error (kernels.cu's check) names the call that failed
    std::printf("FAIL: %s\n", e.what());
    ok = false;
  }
  if (check) std::printf("\n%s%s\n", ok ? "PASSED" : "FAILED", rehearse ? " (a rehearsal: no GPU was checked)" : "");
  return ok ? 0 : 1;
}
