// ctest `cuda_equality` (built where the cuda backend is; skipped, exit 77, where no GPU is present): the cuda
// backend's per-prompt losses against the portable path on the CPU (the same source, execute/portable/), the same
// seeds and streams, for 1-, 2- and 3-layer dense LSA stacks on sja- and acds-shaped prompts.
//
// Expected: equal bit for bit. The one source of a difference the design admits: a prompt whose ziggurat draws take
// the wedge or tail path calls exp or log, glibc's on the CPU and CUDA's on the GPU, which can differ in the last
// bit; such a prompt's loss then differs by rounding. So: fail on any difference above 1e-12 relative, or on more
// than 1% of the prompts differing at all; print the counts either way.
//
// `icl-cuda-equality --time` also times losses() of sja.thm2-sized LSA stacks (d = 4, n = 200 and d = 8, n = 1600,
// 1 and 3 layers) on the cuda backend against the cpu backend on one thread (bench/gpu/check.sh runs it).
#include "icl/cuda/cuda_executor.hpp"
#include "icl/cuda/kernels.hpp"
#include "icl/execute/executor.hpp"
#include "icl/execute/portable_path.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/tasks.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace icl;

Network stack(int rows, int layers, std::uint64_t seed) {
  Network net;
  net.rows = rows;
  for (int l = 0; l < layers; ++l) {
    net.add_lsa();
    PromptRng rng(seed, 99, static_cast<std::uint64_t>(l));
    for (const char* name : {"P", "Q"}) {
      rng.fill_normal(net.weight(l, name));
      net.weight(l, name) *= 0.6 / std::sqrt(static_cast<double>(rows));
    }
  }
  return net;
}

}  // namespace

int main(int argc, char** argv) {
  const bool timing = argc > 1 && std::string(argv[1]) == "--time";
  std::string why;
  if (!cuda::gpu_available(&why)) {
    std::printf("skipped: no CUDA GPU usable here (%s)\n", why.c_str());
    return 77;
  }
  std::printf("GPU: %s\n", cuda::device_name().c_str());
  struct Case {
    const char* name;
    learn::PromptSource source;
  };
  const std::vector<Case> cases = {
      {"sja d=4 n=200", learn::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(4),
                                                                            Eigen::MatrixXd::Identity(4, 4)),
                                                sja_shape(4, 5, 200))},
      {"acds d=5 n=20 cov3", learn::gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(5),
                                                                                 test_covariance(5, 3)),
                                                     acds_shape(5, 20))}};
  const auto gpu = execute::make_executor(execute::Backend::cuda, 1);
  bool ok = true;
  for (const auto& c : cases)
    for (int layers : {1, 2, 3})
      for (std::uint64_t seed : {1ull, 77ull}) {
        const Network net = stack(c.source.rows, layers, seed + 5);
        const std::uint64_t count = 20000;
        std::vector<double> ref, got;
        const auto plan = execute::plan_portable(net, c.source, learn::LossSpec::sja(), "test");
        execute::portable_losses(*plan, seed, 1234, count, ref);
        gpu->losses(net, c.source, learn::LossSpec::sja(), seed, 1234, count, got);
        std::size_t differ = 0;
        double worst = 0;
        for (std::size_t i = 0; i < ref.size(); ++i)
          if (got[i] != ref[i]) {
            ++differ;
            worst = std::max(worst, std::fabs(got[i] - ref[i]) / std::max(std::fabs(ref[i]), 1e-300));
          }
        const bool pass = worst <= 1e-12 && differ * 100 <= ref.size();
        ok = ok && pass;
        std::printf("%-20s layers %d seed %3llu: %zu of %zu losses differ (max relative %.3g) %s\n", c.name, layers,
                    static_cast<unsigned long long>(seed), differ, ref.size(), worst, pass ? "ok" : "FAIL");
      }
  // The check can fail: a different seed on the GPU is different numbers.
  {
    const Network net = stack(cases[0].source.rows, 2, 6);
    std::vector<double> a, b;
    gpu->losses(net, cases[0].source, learn::LossSpec::sja(), 1, 1234, 1000, a);
    gpu->losses(net, cases[0].source, learn::LossSpec::sja(), 2, 1234, 1000, b);
    if (a == b) {
      std::printf("FAIL: seeds 1 and 2 gave the same losses on the GPU\n");
      ok = false;
    }
  }
  if (timing) {
    using clock = std::chrono::steady_clock;
    const auto cpu = execute::make_executor(execute::Backend::cpu, 1);
    std::printf("\nlosses() per prompt, cuda vs cpu on one thread:\n");
    for (const auto& [d, n] : {std::pair{4, 200}, std::pair{8, 1600}})
      for (int layers : {1, 3}) {
        const auto source = learn::gaussian_prompts(
            GaussianIclModel::from_task(PolynomialTask::linear(d), Eigen::MatrixXd::Identity(d, d)), sja_shape(d, d + 1, n));
        const Network net = stack(source.rows, layers, 3);
        std::vector<double> out;
        const std::uint64_t cpu_count = d == 4 ? 20000 : 1000, gpu_count = d == 4 ? 1000000 : 100000;
        auto t0 = clock::now();
        cpu->losses(net, source, learn::LossSpec::sja(), 1, 2, cpu_count, out);
        const double cpu_s = std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(cpu_count);
        gpu->losses(net, source, learn::LossSpec::sja(), 1, 2, 1000, out);  // warm-up (context, first launch)
        t0 = clock::now();
        gpu->losses(net, source, learn::LossSpec::sja(), 1, 2, gpu_count, out);
        const double gpu_s = std::chrono::duration<double>(clock::now() - t0).count() / static_cast<double>(gpu_count);
        std::printf("  d=%d n=%d layers=%d: cpu 1 thread %.3g us, cuda %.3g us, ratio %.0fx\n", d, n, layers,
                    cpu_s * 1e6, gpu_s * 1e6, cpu_s / gpu_s);
      }
  }
  return ok ? 0 : 1;
}
