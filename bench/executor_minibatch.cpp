// The time of one training minibatch (loss and gradient, Executor::minibatch) on a backend: by default sja.fig1's
// paper setting (the quadratic task, d = 4, dbar = 12, n = 200, batch 4000) on the bilinear Transformer with L = 2
// blocks (learn::sja_bilinear, dense form (11)); --linear for its 6-layer linear Transformer (learn::full_lsa(dbar + 1,
// 6)). Runs one warm-up minibatch, then `--reps` and prints the median wall time, with the loss's bits as a check
// that backends and thread counts compute the same minibatch.
//
// Usage: bench-executor-minibatch [--backend cpu|portable] [--threads T] [--reps K] [--batch B] [--L L] [--d D]
//                                 [--dbar DBAR] [--n N] [--linear]
#include "constructions/sja_forms.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/learn/forms.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/tasks.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace icl;
  std::string backend = "cpu";
  int threads = 1, reps = 5, L = 2, d = 4, dbar = 12, n = 200;
  std::uint64_t batch = 4000;
  bool linear = false;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--linear") {
      linear = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", argv[i]);
      return 2;
    }
    const std::string v = argv[++i];
    if (k == "--backend") backend = v;
    else if (k == "--threads") threads = std::atoi(v.c_str());
    else if (k == "--reps") reps = std::max(1, std::atoi(v.c_str()));
    else if (k == "--batch") batch = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "--L") L = std::atoi(v.c_str());
    else if (k == "--d") d = std::atoi(v.c_str());
    else if (k == "--dbar") dbar = std::atoi(v.c_str());
    else if (k == "--n") n = std::atoi(v.c_str());
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const auto params = linear ? learn::full_lsa(dbar + 1, 6) : learn::sja_bilinear(d, dbar, L, learn::BilinearForm::dense);
  const auto task = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
  const auto source = icl::gaussian_prompts(task, sja_shape(d, dbar, n));
  const Eigen::VectorXd theta = icl::normal_theta(params, 0.01, 1, 1);  // (small: a finite loss through 6 layers)
  const auto ex = execute::make_executor(execute::backend_from_name(backend), threads);
  Eigen::VectorXd grad;
  double loss = ex->minibatch(params, theta, source, icl::LossSpec::sja(), 1, 2, batch, &grad);  // warm-up
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    loss = ex->minibatch(params, theta, source, icl::LossSpec::sja(), 1, 2, batch, &grad);
    ms.push_back(1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("backend %s, %d thread%s, %s, d = %d, dbar = %d, n = %d, batch %llu: median %.1f ms of %d (min %.1f); "
              "loss %.17g (bits %016llx)\n",
              backend.c_str(), threads, threads == 1 ? "" : "s",
              linear ? "linear Transformer, 6 LSA layers" : ("bilinear Transformer, L = " + std::to_string(L)).c_str(), d,
              dbar, n, static_cast<unsigned long long>(batch), ms[ms.size() / 2], reps, ms.front(), loss,
              static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(loss)));
  return 0;
}
