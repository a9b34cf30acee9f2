// Pilots, not decisions (issue 65 item 6, docs/budgets.md "The sja model question"): which variant of the models of
// sja.fig1 and sja.fig2 that the paper's text allows trains at the paper's stated settings (App. J: Adam, lr 1e-3, no
// weight decay, 4000 fresh prompts per step; no clipping, initialisation or precision stated)?
//
// One model, one variant, several seeds: each run trains from N(0, init^2) entries with the project's trainer and
// prints its status, the step it stopped at, its held-out loss every `every` steps (1000 prompts of a held-out stream,
// the same for every variant and seed), and at the end its loss on `test` fresh prompts at the training length (mean,
// median, the share of the largest 0.1% of prompts) against E[y^2]. Every variant of one model and seed gets the same
// minibatches and the same initial draws (scaled by init).
//
//   exp=fig1     sja.fig1's quadratic task, d (3 or 4), n = 200, dbar = 12; model=bilinear (2L layers) or linear
//                (learn::full_lsa(dbar + 1, layers), the 6-layer linear Transformer)
//   exp=fig2     sja.fig2's 10-term cubic over d = 4, n = 100, dbar = 15; model=dense or sparse (2L layers, L = 5)
//   attention=full | label_row   the paper's (2): every entry of each attention P; label_row: P's last row only (as
//                the paper's constructions (5) have it), the rest frozen at 0 (bilinear models only)
//   backend=cpu | portable, precision=float64 | float32   float32 runs the network's arithmetic in float (portable)
//
// Usage: bench-sja-pilots exp=fig1 d=3 L=4 model=bilinear attention=full init=0.02 clip=0 lr=0.001 batch=4000
//                         steps=300 seeds=1,2 backend=cpu precision=float64 threads=2 every=25 test=4000
#include "claims/common/sja_training.hpp"
#include "constructions/sja_forms.hpp"
#include "constructions/sja_sec42.hpp"
#include "icl/cli/engine.hpp"
#include "icl/learn/learn.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/tasks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace icl;

namespace {

std::vector<double> numbers(const std::string& s) {
  std::vector<double> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::stod(item));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> a = {{"exp", "fig1"}, {"d", "3"}, {"L", "4"}, {"model", "bilinear"},
                                          {"attention", "full"}, {"init", "0.02"}, {"clip", "0"}, {"lr", "0.001"},
                                          {"batch", "4000"}, {"steps", "300"}, {"seeds", "1,2"}, {"backend", "cpu"},
                                          {"precision", "float64"}, {"threads", "2"}, {"every", "25"}, {"test", "4000"}};
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const auto eq = s.find('=');
    if (eq == std::string::npos || !a.count(s.substr(0, eq))) {
      fmt::print(stderr, "bench-sja-pilots: unknown argument '{}'\n", s);
      return 2;
    }
    a[s.substr(0, eq)] = s.substr(eq + 1);
  }
  select_backend(a["backend"]);
  select_precision(a["precision"]);
  const bool fig2 = a["exp"] == "fig2";
  const int d = fig2 ? 4 : std::stoi(a["d"]), L = fig2 ? 5 : std::stoi(a["L"]);
  const int n = fig2 ? 100 : 200, dbar = fig2 ? 15 : 12;
  const GaussianIclModel task = fig2 ? GaussianIclModel::from_task(sja::sec42_task(), Eigen::MatrixXd::Identity(4, 4))
                                     : GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d));
  const icl::PromptSource src = icl::gaussian_prompts(task, sja_shape(d, dbar, n));
  const std::string model = a["model"];
  const bool label_row = a["attention"] == "label_row";
  icl::Parameterisation p = [&] {
    if (model == "linear") return learn::full_lsa(dbar + 1, L);
    const learn::BilinearForm form = model == "sparse" ? learn::BilinearForm::sparse : learn::BilinearForm::dense;
    return learn::sja_bilinear(d, dbar, L, form, label_row ? learn::SjaAttention::label_row : learn::SjaAttention::full);
  }();
  learn::TrainConfig c;
  c.optimizer = "adam";
  c.learning_rate = std::stod(a["lr"]);
  c.clip = std::stod(a["clip"]);
  c.batch = static_cast<std::uint64_t>(std::stod(a["batch"]));
  c.steps = std::stoi(a["steps"]);
  c.resample_every = 1;
  c.test_batch = 1000;
  c.curve_points = std::max(1, c.steps / std::max(1, std::stoi(a["every"])));
  c.threads = std::stoi(a["threads"]);
  c.purpose = 0x5a1f'1ab7ULL;
  c.progress = false;
  const double ey2 = fig2 ? NAN : sja_train::quadratic_label_moment(d);
  fmt::print("# exp {}, model {} ({} trained weights), attention {}, d = {}, L = {}, n = {}, dbar = {}, init {}, clip {}, "
             "lr {}, batch {}, {} steps, backend {}, precision {}; E[y^2] = {:.4g}\n",
             a["exp"], model, p.size(), model == "linear" ? "full" : a["attention"], d, L, n, dbar, a["init"], a["clip"],
             a["lr"], a["batch"], c.steps, a["backend"], a["precision"], ey2);
  fmt::print("seed,status,steps_done,seconds,test_mean,test_median,tail_share,reason,step:held_out_loss...\n");
  for (double sd : numbers(a["seeds"])) {
    c.seed = static_cast<std::uint64_t>(sd);
    c.label = fmt::format("{} seed {}", model, c.seed);
    const Eigen::VectorXd theta0 = icl::normal_theta(p, std::stod(a["init"]), c.seed, 0x1417ULL);
    const learn::TrainResult r = learn::train(p, theta0, src, icl::LossSpec::sja(), c);
    const learn::LossDistribution t = learn::loss_distribution(p.network(r.theta), src, icl::LossSpec::sja(), c.seed,
                                                               0x7e57ULL, static_cast<std::uint64_t>(std::stod(a["test"])),
                                                               c.threads);
    std::string curve;
    for (std::size_t i = 0; i < r.curve.step.size(); ++i)
      if (std::isfinite(r.curve.test_loss[i])) curve += fmt::format(",{}:{:.4g}", r.curve.step[i], r.curve.test_loss[i]);
    fmt::print("{},{},{},{:.0f},{:.4g},{:.4g},{:.3g},\"{}\"{}\n", c.seed, learn::to_string(r.status), r.steps_done,
               r.seconds, t.mean, t.median, t.tail_share, r.reason, curve);
    std::fflush(stdout);
  }
  return 0;
}
