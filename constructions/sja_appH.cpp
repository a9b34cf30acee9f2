#include "constructions/sja_appH.hpp"

#include "icl/verdict/mutation.hpp"

#include "constructions/sja_appG.hpp"
#include "icl/model/tasks.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace icl::sja {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kW0{"sja.appH/W0", "sja.cor8", "the clear / generate / multiply layers of App. H, W0", true};
const MutationSite kW1{"sja.appH/W1", "sja.cor8", "the clear / generate / multiply layers of App. H, W1", true};
}  // namespace

namespace {

// W = [0; W~], W~ = [ones-column | x block | scratch block] on the last d rows.
BilinearLayer scratch_layer(int d, const Eigen::VectorXd& ones0, const Eigen::MatrixXd& x0, const Eigen::MatrixXd& s0,
                            const Eigen::VectorXd& ones1, const Eigen::MatrixXd& x1, const Eigen::MatrixXd& s1) {
  const int dbar = appG_width(d);
  BilinearLayer b;
  b.W0 = Eigen::MatrixXd::Zero(dbar, dbar);
  b.W1 = Eigen::MatrixXd::Zero(dbar, dbar);
  b.W0.block(d + 1, 0, d, 1) = ones0;
  b.W0.block(d + 1, 1, d, d) = x0;
  b.W0.block(d + 1, d + 1, d, d) = s0;
  b.W1.block(d + 1, 0, d, 1) = ones1;
  b.W1.block(d + 1, 1, d, d) = x1;
  b.W1.block(d + 1, d + 1, d, d) = s1;
  b.W0 = kW0(b.W0);
  b.W1 = kW1(b.W1);
  return b;
}

Eigen::MatrixXd E(int d, int j) {  // column j (1-based) all ones
  if (j < 1 || j > d) throw std::invalid_argument("App. H: variable index out of range");
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(d, d);
  m.col(j - 1).setOnes();
  return m;
}

}  // namespace

BilinearLayer appH_clear(int d) {
  const Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(d, d), I = Eigen::MatrixXd::Identity(d, d);
  return scratch_layer(d, Eigen::VectorXd::Zero(d), Z, I, -Eigen::VectorXd::Ones(d), Z, Z);
}

BilinearLayer appH_generate(int d, int j) {
  const Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(d, d), I = Eigen::MatrixXd::Identity(d, d);
  return scratch_layer(d, Eigen::VectorXd::Zero(d), I, Z, Eigen::VectorXd::Zero(d), E(d, j), Z);
}

BilinearLayer appH_multiply(int d, int j) {
  const Eigen::MatrixXd Z = Eigen::MatrixXd::Zero(d, d), I = Eigen::MatrixXd::Identity(d, d);
  return scratch_layer(d, Eigen::VectorXd::Zero(d), Z, I, -Eigen::VectorXd::Ones(d), E(d, j), Z);
}

std::string AppHStep::name() const {
  switch (kind) {
    case clear: return "clear";
    case generate: return fmt::format("generate({})", j);
    default: return fmt::format("multiply({})", j);
  }
}

std::vector<AppHStep> appH_schedule(int d, int p) {
  if (d < 1 || p < 1) throw std::invalid_argument("appH_schedule: need d >= 1, p >= 1");
  std::vector<AppHStep> s;
  for (const Exponent& g : monomials_up_to(d, p - 1, p - 1)) {
    std::vector<int> js;  // the variables of g in increasing order, with multiplicity
    for (int k = 0; k < d; ++k)
      for (int r = 0; r < g[static_cast<std::size_t>(k)]; ++r) js.push_back(k + 1);
    s.push_back({AppHStep::clear, 0});
    for (std::size_t t = 0; t < js.size(); ++t)
      s.push_back({t == 0 ? AppHStep::generate : AppHStep::multiply, js[t]});
  }
  return s;
}

BilinearLayer appH_layer(int d, const AppHStep& s) {
  switch (s.kind) {
    case AppHStep::clear: return appH_clear(d);
    case AppHStep::generate: return appH_generate(d, s.j);
    default: return appH_multiply(d, s.j);
  }
}

Transformer appH_stack(int d, const std::vector<AppHStep>& schedule, const std::vector<Eigen::MatrixXd>& Gammas) {
  if (schedule.empty()) throw std::invalid_argument("appH_stack: empty schedule");
  Transformer t;
  for (std::size_t k = 0; k < Gammas.size(); ++k) {
    t.layers.emplace_back(appH_layer(d, schedule[k % schedule.size()]));
    t.layers.emplace_back(appG_attention(Gammas[k]));
  }
  return t;
}

}  // namespace icl::sja
