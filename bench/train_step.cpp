// One training step of the acds three-layer form (8) (d = 5, n = 20, batch 4000; Adam, per-matrix gradient
// clipping), the setting of the speed goal: draw the minibatch, forward, backward, pull back, clip,
// Adam. Runs `--steps` steps after one warm-up step and prints the time per step (wall and this process's
// CPU time). bench/compare_torch.sh runs it beside bench/torch_train_step.py (the same model in PyTorch).
//
// Usage: bench-train-step [--steps K] [--batch B] [--threads T] [--layers L] [--d D] [--n N]
#include "constructions/acds_forms.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/gaussian_model.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

int main(int argc, char** argv) {
  int steps = 20, threads = 1, L = 3, d = 5, n = 20;
  std::uint64_t batch = 4000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const long v = std::strtol(argv[i + 1], nullptr, 10);
    if (k == "--steps") steps = static_cast<int>(v);
    else if (k == "--batch") batch = static_cast<std::uint64_t>(v);
    else if (k == "--threads") threads = static_cast<int>(v);
    else if (k == "--layers") L = static_cast<int>(v);
    else if (k == "--d") d = static_cast<int>(v);
    else if (k == "--n") n = static_cast<int>(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  using namespace icl;
  const auto params = learn::acds_form8(d, L);
  const auto source = icl::gaussian_prompts(
      GaussianIclModel::from_task(PolynomialTask::linear(d), Eigen::MatrixXd::Identity(d, d)), acds_shape(d, n));
  learn::TrainConfig cfg;
  cfg.optimizer = "adam";
  cfg.learning_rate = 1e-3;
  cfg.batch = batch;
  cfg.clip = 0.01;
  cfg.threads = threads;
  cfg.progress = false;
  cfg.curve_points = 1;
  Eigen::VectorXd theta = icl::normal_theta(params, 0.1, 1, 1);
  cfg.steps = 1;  // warm-up
  theta = learn::train(params, theta, source, icl::LossSpec::acds(), cfg).theta;
  cfg.steps = steps;
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  const auto r = learn::train(params, theta, source, icl::LossSpec::acds(), cfg);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  std::printf("per_step_ms: %.3f\nper_step_cpu_ms: %.3f\nsteps: %d\nbatch: %llu\nthreads: %d\nfinal_loss: %.6g\nstatus: %s\n",
              1e3 * wall / steps, 1e3 * cpu / steps, steps, static_cast<unsigned long long>(batch), threads,
              r.final_train_loss, learn::to_string(r.status));
  return 0;
}
