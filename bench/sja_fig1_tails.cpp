// The per-prompt loss of sja.fig1's trained models, far into the tail (bench/deciding/sja_fig1_tails.md).
//
// Reads a checkpoint folder of an sja.fig1 run (the finished runs' train-KEY.done files, which hold the final
// weights), recognises each model by its number of weights (6-layer linear: 2028; bilinear L = 2, 4, 6: 1252, 2504,
// 3756 at dbar = 12) and its d by the curve's first held-out loss (about 16 at d = 3, 23 at d = 4), and through the
// forward pass gives each one's loss distribution (mean, median, p99, max, the share of the summed loss in the
// largest 0.1%) on `samples` fresh prompts at n = 200 (one stream per d: paired across the models of a d), and
// the paired mean difference linear - bilinear with its 99% Student-t interval. It also counts the minibatches of
// 4000 (fresh, the training law) whose mean loss is not finite in float64 at the final weights.
//
// Usage: bench-sja-fig1-tails CHECKPOINT_DIR [samples=65536] [threads=2] [batches=0]
#include "constructions/sja_forms.hpp"
#include "icl/learn/checkpoint.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/tasks.hpp"

#include <fmt/format.h>

#include <functional>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <algorithm>
#include <map>
#include <tuple>
#include <string>
#include <vector>

using namespace icl;

namespace {

struct Found {
  std::string name;
  int d = 0, L = 0;  // L = 0: the linear model
  learn::TrainResult result;
  icl::PromptSource source;  // the quadratic task's prompts at n, the same for every model of a d
  Network net;                 // the final (or last finite) weights
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: bench-sja-fig1-tails CHECKPOINT_DIR [samples] [threads] [batches]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::uint64_t samples = argc > 2 ? std::stoull(argv[2]) : 65536;
  const int threads = argc > 3 ? std::stoi(argv[3]) : 2;
  const int batches = argc > 4 ? std::stoi(argv[4]) : 0;
  const int dbar = 12, n = 200;
  learn::set_checkpoints({dir, 1e9});
  auto params_of = [&](const Found& m) {
    return m.L == 0 ? learn::full_lsa(dbar + 1, 6) : learn::sja_bilinear(m.d, dbar, m.L, learn::BilinearForm::dense);
  };
  std::vector<Found> models;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().filename().string();
    if (f.rfind("train-", 0) != 0 || e.path().extension() != ".done") continue;
    const std::uint64_t key = std::stoull(f.substr(6, 16), nullptr, 16);
    auto r = learn::load_finished(key);
    if (!r) continue;
    Found m;
    const auto size = r->theta.size();
    m.L = size == 2028 ? 0 : size == 1252 ? 2 : size == 2504 ? 4 : size == 3756 ? 6 : -1;
    if (m.L < 0 || r->curve.test_loss.empty()) continue;
    m.d = r->curve.test_loss.front() < 19.5 ? 3 : 4;
    m.name = m.L == 0 ? fmt::format("linear 6 layers d={}", m.d) : fmt::format("bilinear L={} d={}", m.L, m.d);
    m.result = std::move(*r);
    const auto task = GaussianIclModel::from_task(PolynomialTask::quadratic(m.d), Eigen::MatrixXd::Identity(m.d, m.d));
    m.source = icl::gaussian_prompts(task, sja_shape(m.d, dbar, n));
    m.net = params_of(m).network(m.result.theta);
    models.push_back(std::move(m));
  }
  std::sort(models.begin(), models.end(), [](const Found& a, const Found& b) {
    return std::tie(a.d, a.L, a.result.curve.test_loss.front()) < std::tie(b.d, b.L, b.result.curve.test_loss.front());
  });
  fmt::print("# {} finished runs in {}; {} fresh prompts per d (n = {}), paired across the models of a d\n", models.size(),
             dir, samples, n);
  fmt::print("model,status,steps,theta_max,mean,median,p99,max,tail_share_0.1pct,nonfinite_batches_of_4000\n");
  const std::uint64_t seed = 20261127, purpose = 0x7a11'5eedULL;
  std::map<int, const Found*> linear_of;  // the first linear trial of each d, for the paired differences
  for (const auto& m : models) {
    const auto dist = learn::loss_distribution(m.net, m.source, icl::LossSpec::sja(), seed, purpose + m.d, samples, threads);
    int bad = 0;
    if (batches > 0) {
      const auto params = params_of(m);
      learn::BatchObjective obj(params, m.source, icl::LossSpec::sja(), threads);
      for (int b = 0; b < batches; ++b)
        bad += std::isfinite(obj.evaluate(m.result.theta, seed + 1000 + b, purpose, 4000, nullptr)) ? 0 : 1;
    }
    fmt::print("{},{},{},{:.3g},{:.6g},{:.6g},{:.6g},{:.6g},{:.4f},{}\n", m.name, learn::to_string(m.result.status),
               m.result.steps_done, m.result.theta.lpNorm<Eigen::Infinity>(), dist.mean, dist.median, dist.p99, dist.max,
               dist.tail_share, batches > 0 ? fmt::format("{} of {}", bad, batches) : std::string("-"));
    if (m.L == 0 && !linear_of.count(m.d)) linear_of[m.d] = &m;
  }
  fmt::print("\n# paired linear (trial of the smallest first loss) - bilinear, on the same prompts\n");
  fmt::print("pair,mean_difference,ci99_low,ci99_high\n");
  for (const auto& m : models) {
    if (m.L == 0 || !linear_of.count(m.d) || !m.result.ok()) continue;
    const Found& lin = *linear_of[m.d];
    const Estimate e =
        learn::mc_loss_difference(lin.net, m.net, m.source, icl::LossSpec::sja(), seed, purpose + m.d, samples, threads);
    fmt::print("{} - {},{:.6g},{:.6g},{:.6g}\n", lin.name, m.name, e.mean, e.ci_low, e.ci_high);
  }
  // The worst of `trace` prompts of each model, layer by layer: the largest |entry| of the feature rows (0..dbar-1)
  // and of the label row after each layer (where the blow-up starts and how it grows).
  const std::uint64_t trace = std::min<std::uint64_t>(samples, 4096);
  fmt::print("\n# the worst of the first {} prompts of each model: largest |entry| of the feature rows / the label row after "
             "each layer (layer 0: the prompt)\n",
             trace);
  for (const auto& m : models) {
    const Network& net = m.net;
    auto draw = m.source.make_drawer();
    Eigen::MatrixXd Z(m.source.rows, m.source.cols);
    ForwardWorkspace ws;
    double worst = -1;
    std::uint64_t worst_i = 0;
    for (std::uint64_t i = 0; i < trace; ++i) {
      const double yq = draw(seed, purpose + m.d, i, Z);
      const double e = net.predict(Z, ws) + yq;
      const double l = std::isfinite(e) ? e * e : HUGE_VAL;
      if (l > worst) worst = l, worst_i = i;
    }
    const double yq = draw(seed, purpose + m.d, worst_i, Z);
    std::string line = fmt::format("{} (prompt {}, loss {:.3g}, |y_q| {:.3g}): {:.3g}/{:.3g}", m.name, worst_i, worst,
                                   std::abs(yq), Z.topRows(dbar).cwiseAbs().maxCoeff(), Z.bottomRows(1).cwiseAbs().maxCoeff());
    const std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> observe =
        [&](int, const Eigen::Ref<const Eigen::MatrixXd>& z) {
          line += fmt::format(" {:.3g}/{:.3g}", z.topRows(dbar).cwiseAbs().maxCoeff(), z.bottomRows(1).cwiseAbs().maxCoeff());
        };
    net.forward(Z, ws, &observe);
    fmt::print("{}\n", line);
  }
  return 0;
}
