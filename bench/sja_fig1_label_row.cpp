// A pilot, not a decision (bench/deciding/sja_fig1_tails.md): does sja.fig1's 12-layer bilinear stack (L = 6) still
// overflow when its attention layers may write only the label row? The paper's (2) trains every entry of P; its
// constructions use P = [0, 0; 0, 1] (eq. (5)), so attention never writes the feature rows. The tails analysis found the
// overflow starting where the first attention layer writes label-sized values into the feature rows.
//
// Trains two forms with the same seed, initialisation law, minibatches and settings as sja.fig1's deciding budget
// (Adam lr 1e-3, batch 4000 fresh prompts, every matrix's gradient clipped to norm 1, N(0, 0.02^2) entries):
//   full       constructions/sja_forms.hpp sja_bilinear(d, 12, L, dense): P and Q full (the paper's model);
//   label_row  the same but each attention P trains its last row only (the rest frozen at 0).
// and prints each run's status, the step it stopped at and its held-out loss curve.
//
// Usage: bench-sja-fig1-label-row [d=4] [L=6] [steps=150] [threads=2] [seed=1] [batch=4000]
#include "constructions/sja_forms.hpp"
#include "icl/learn/learn.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/tasks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>

using namespace icl;

namespace {

// sja_bilinear's network and groups, with each attention P reduced to its last row.
icl::Parameterisation label_row_form(int d, int dbar, int L) {
  const icl::Parameterisation full = learn::sja_bilinear(d, dbar, L, learn::BilinearForm::dense);
  icl::Parameterisation p(full.base());
  Eigen::MatrixXd dense = Eigen::MatrixXd::Ones(dbar, dbar), last = Eigen::MatrixXd::Zero(dbar + 1, dbar + 1);
  last.row(dbar).setOnes();
  for (int l = 0; l < L; ++l) {
    const int b = 2 * l, a = 2 * l + 1;
    p.add(icl::ParamGroup::masked(fmt::format("W0_{}", b), dense, {{b, "W0"}}));
    p.add(icl::ParamGroup::masked(fmt::format("W1_{}", b), dense, {{b, "W1"}}));
    p.add(icl::ParamGroup::masked(fmt::format("P_{}", a), last, {{a, "P"}}));
    p.add(icl::ParamGroup::full(fmt::format("Q_{}", a), dbar + 1, dbar + 1, {{a, "Q"}}));
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int i, double def) { return argc > i ? std::stod(argv[i]) : def; };
  const int d = static_cast<int>(arg(1, 4)), L = static_cast<int>(arg(2, 6)), steps = static_cast<int>(arg(3, 150));
  const int threads = static_cast<int>(arg(4, 2));
  const auto seed = static_cast<std::uint64_t>(arg(5, 1));
  const auto batch = static_cast<std::uint64_t>(arg(6, 4000));
  const int dbar = 12, n = 200;
  const auto task = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
  const icl::PromptSource src = icl::gaussian_prompts(task, sja_shape(d, dbar, n));
  learn::TrainConfig c;
  c.optimizer = "adam";
  c.learning_rate = 1e-3;
  c.clip = 1;
  c.batch = batch;
  c.steps = steps;
  c.resample_every = 1;
  c.test_batch = 1000;
  c.curve_points = std::max(1, steps / 10);
  c.threads = threads;
  c.seed = seed;
  c.purpose = 0x5a1f'1ab7ULL;
  c.progress = false;
  fmt::print("# d = {}, L = {} ({} layers), n = {}, dbar = {}, batch {}, {} steps, seed {}\n", d, L, 2 * L, n, dbar, batch,
             steps, seed);
  fmt::print("form,trained_weights,status,steps_done,reason,step:held_out_loss...\n");
  for (const std::string form : {"full", "label_row"}) {
    const icl::Parameterisation p =
        form == "full" ? learn::sja_bilinear(d, dbar, L, learn::BilinearForm::dense) : label_row_form(d, dbar, L);
    c.label = form;
    const Eigen::VectorXd theta0 = icl::normal_theta(p, 0.02, seed, 0x1417ULL);
    const learn::TrainResult r = learn::train(p, theta0, src, icl::LossSpec::sja(), c);
    std::string curve;
    for (std::size_t i = 0; i < r.curve.step.size(); ++i)
      if (std::isfinite(r.curve.test_loss[i])) curve += fmt::format(",{}:{:.4g}", r.curve.step[i], r.curve.test_loss[i]);
    fmt::print("{},{},{},{},\"{}\"{}\n", form, p.size(), learn::to_string(r.status), r.steps_done, r.reason, curve);
    std::fflush(stdout);
  }
  return 0;
}
