// One training run of xlssc.fig2's GPT-2-style model (lib/icl/learn/gpt2.hpp) with settings from the command
// line, for exploring budgets: prints the training curve, the loss against the number of in-context examples and
// the wall and CPU time. Usage: bench-xlssc-train key=value... (p heads D layers mask pe steps batch lr warmup seed
// threads samples curve).
#include "icl/learn/gpt2.hpp"
#include "icl/claim/claim.hpp"
#include "icl/model/rng.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>

using namespace icl;

int main(int argc, char** argv) {
  std::map<std::string, std::string> a{{"p", "16"},     {"heads", "2"},  {"D", "10"},    {"layers", "2"},
                                       {"mask", "1"},   {"pe", "none"},  {"steps", "1500"}, {"batch", "32"},
                                       {"lr", "1e-3"},  {"warmup", "0"}, {"seed", "1"},  {"threads", "1"},
                                       {"samples", "1024"}, {"curve", "20"}, {"dstart", "0"}, {"dint", "1"}, {"kstart", "0"}, {"kint", "1"}};
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const auto eq = s.find('=');
    if (eq == std::string::npos || !a.count(s.substr(0, eq))) {
      fmt::print(stderr, "unknown argument {}\n", s);
      return 2;
    }
    a[s.substr(0, eq)] = s.substr(eq + 1);
  }
  gpt2::ModelSpec m;
  m.d = 5, m.D = std::stoi(a["D"]), m.p = std::stoi(a["p"]), m.heads = std::stoi(a["heads"]);
  m.layers = std::stoi(a["layers"]), m.mask = a["mask"] == "1";
  m.pe = a["pe"] == "none" ? gpt2::Pe::none : a["pe"] == "trainable" ? gpt2::Pe::trainable : gpt2::Pe::sincos;
  gpt2::TrainSettings ts;
  ts.steps = std::stoi(a["steps"]), ts.batch = std::stoull(a["batch"]), ts.learning_rate = std::stod(a["lr"]);
  ts.warmup = std::stoi(a["warmup"]);
  ts.dims_start = std::stoi(a["dstart"]), ts.dims_interval = std::stoi(a["dint"]);
  ts.examples_start = std::stoi(a["kstart"]), ts.examples_interval = std::stoi(a["kint"]);
  ts.curve_points = std::stoi(a["curve"]), ts.threads = std::stoi(a["threads"]);
  const std::uint64_t seed = std::stoull(a["seed"]);
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  const auto r = gpt2::train(m, ts, seed, stable_hash("xlssc.fig2/train"), stable_hash(("xlssc.fig2/init/" + m.name()).c_str()));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  fmt::print("{} p={} h={} D={} steps={} batch={} lr={} warmup={} dims {}+1/{} examples {}+1/{} seed={}: {}\n", m.name(), m.p,
             m.heads, m.D, ts.steps, ts.batch, ts.learning_rate, ts.warmup, ts.dims_start, ts.dims_interval,
             ts.examples_start, ts.examples_interval, seed, r.ok ? "ok" : r.reason);
  std::string c;
  for (std::size_t i = 0; i < r.curve_step.size(); ++i) c += fmt::format(" {}:{:.3f}", r.curve_step[i], r.curve_loss[i]);
  fmt::print("train curve:{}\n", c);
  Network net = gpt2::build(m);
  gpt2::unpack(r.theta, net);
  const auto e = gpt2::loss_by_examples(net, m, seed, stable_hash("xlssc.fig2/test"), std::stoull(a["samples"]), ts.threads);
  std::string l;
  for (int k = 0; k <= m.D + 1; ++k) l += fmt::format(" {:.3f}", e[static_cast<std::size_t>(k)].mean);
  fmt::print("loss by k (0..D, mean):{}\n", l);
  fmt::print("train wall {:.1f} s, cpu {:.1f} s, {:.2f} ms/step\n", wall, cpu, 1000 * wall / std::max(1, ts.steps));
  return 0;
}
