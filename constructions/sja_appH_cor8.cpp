// GCC 12 reports a false -Wmaybe-uninitialized inside boost::multiprecision's cpp_int copy when it inlines the rational
// moment_matrix of appH_numeric here (as tests/algebra/test_gaussian_moments.cpp says); the warning is off in this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "constructions/sja_appH_cor8.hpp"

#include "constructions/sja_appG.hpp"
#include "constructions/sja_bcd_reference.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/exact/symbolic_forward.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"
#include "icl/montecarlo/depth_profile.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>

namespace icl::sja {

using enum AppHPrompt::Error;

AppHCycle appH_simulate(int d, int p, const std::vector<AppHStep>& schedule) {
  AppHCycle s;
  s.cycle = schedule.size();
  const int dbar = appG_width(d);
  auto rows = sja_feature_rows<double>(d, dbar);
  const std::size_t steps = s.cycle + std::min<std::size_t>(s.cycle, static_cast<std::size_t>(p) + 1);
  for (std::size_t k = 0; k < steps; ++k) {
    apply_symbolic(appH_layer(d, schedule[k % s.cycle]), rows);
    AppHBlock b;
    for (int r = 0; r < dbar; ++r) {
      Exponent e;
      if (rows[static_cast<std::size_t>(r)].terms().empty()) {
        b.rows.emplace_back();
      } else if (is_unit_monomial(rows[static_cast<std::size_t>(r)], e)) {
        b.rows.push_back(e);
        if (k < s.cycle) s.covered.insert(e);
      } else {
        ++s.non_monomial_rows;
        b.rows.emplace_back();
      }
    }
    if (k >= s.cycle && b.rows != s.blocks[k - s.cycle].rows) s.second_cycle_repeats = false;
    s.blocks.push_back(std::move(b));
  }
  (void)p;
  return s;
}

AppHNumeric appH_numeric(int d, int p, int n, const AppHCycle& sym) {
  AppHNumeric nm;
  nm.d = d;
  nm.p = p;
  nm.n = n;
  nm.dbar = appG_width(d);
  nm.L = static_cast<int>(sym.blocks.size());
  nm.monomials = monomials_up_to(d, p, 0);
  nm.sym = &sym;
  std::map<std::vector<Exponent>, Eigen::MatrixXd> cache;
  for (const auto& b : sym.blocks) {
    std::vector<int> rows;
    std::vector<Exponent> mons;
    for (int r = 0; r < nm.dbar; ++r)
      if (!b.rows[static_cast<std::size_t>(r)].empty()) {
        rows.push_back(r);
        mons.push_back(b.rows[static_cast<std::size_t>(r)]);
      }
    nm.rows_nonzero.push_back(rows);
    nm.block_index.push_back(monomial_indices(nm.monomials, mons));
    auto it = cache.find(mons);
    if (it == cache.end()) {
      std::vector<Polynomial<Rational>> f;
      for (const auto& e : mons) f.push_back(Polynomial<Rational>::monomial(e, Rational(1)));
      const Eigen::MatrixXd lam = to_eigen(moment_matrix(f, f, Polynomial<Rational>::constant(d, Rational(1))));
      const Eigen::MatrixXd inv = lam.inverse();
      Eigen::MatrixXd full = Eigen::MatrixXd::Zero(nm.dbar, nm.dbar);
      for (std::size_t a = 0; a < rows.size(); ++a)
        for (std::size_t c = 0; c < rows.size(); ++c)
          full(rows[a], rows[c]) = inv(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(c));
      it = cache.emplace(mons, full).first;
    }
    nm.lambda_pinv.push_back(it->second);
  }
  return nm;
}

std::array<double, AppHPrompt::kDims> appH_check_prompt(const AppHNumeric& nm, const std::vector<AppHStep>& schedule,
                                       std::uint64_t seed, std::uint64_t purpose, std::uint64_t i) {
  std::array<double, kDims> err{};
  const int d = nm.d, n = nm.n, L = nm.L, dbar = nm.dbar;
  PromptRng rng(seed, purpose, i);
  std::vector<Eigen::MatrixXd> Gam(static_cast<std::size_t>(L));
  for (int l = 0; l < L; ++l) {
    Eigen::MatrixXd G(dbar, dbar);
    rng.fill_normal(G);
    const Eigen::MatrixXd& lp = nm.lambda_pinv[static_cast<std::size_t>(l)];
    Gam[static_cast<std::size_t>(l)] =
        i % 2 == 0 ? Eigen::MatrixXd(-lp)
                   : Eigen::MatrixXd(-0.5 * lp * (Eigen::MatrixXd::Identity(dbar, dbar) + 0.3 / std::sqrt(dbar) * G));
  }
  const PolynomialTask task = PolynomialTask::polynomial(d, nm.p);
  Eigen::VectorXd wt(task.num_coefficients());
  rng.fill_normal(wt);
  Eigen::MatrixXd X(d, n + 1);
  rng.fill_normal(X);
  Eigen::RowVectorXd y(n + 1);
  task.evaluate(X, wt, y);
  y[n] = 0;
  const PromptShape shape = sja_shape(d, dbar, n);
  Eigen::MatrixXd Z(shape.rows(), shape.cols());
  embed(shape, X, y, Z);

  const MatrixS<long double> PhiL = monomial_features<long double>(nm.monomials, X.cast<long double>());
  const Eigen::MatrixXd PhiD = monomial_features<double>(nm.monomials, X);
  std::vector<BlockStep> steps;
  for (int l = 0; l < L; ++l) {
    const auto& rows = nm.rows_nonzero[static_cast<std::size_t>(l)];
    Eigen::MatrixXd eta(rows.size(), rows.size());
    for (std::size_t a = 0; a < rows.size(); ++a)
      for (std::size_t c = 0; c < rows.size(); ++c)
        eta(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(c)) =
            -Gam[static_cast<std::size_t>(l)](rows[c], rows[a]);  // -Gamma^T on the non-zero rows
    steps.push_back({nm.block_index[static_cast<std::size_t>(l)], eta});
  }
  const BcdReference ref(PhiL, PhiD, y, n, steps);
  if (ref.leaves_double_range(kDoubleRangeTerm)) {
    err[kOutOfRange] = 1;
    return err;
  }

  const Transformer model = appH_stack(d, schedule, Gam);
  ForwardWorkspace ws;
  std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> observe =
      [&](int k, const Eigen::Ref<const Eigen::MatrixXd>& Zk) {
        const int l = (k - 1) / 2;  // 0-based block
        if (k % 2 == 1) {
          const AppHBlock& b = nm.sym->blocks[static_cast<std::size_t>(l)];
          for (int c = 0; c <= n; ++c)
            for (int r = d + 1; r < dbar; ++r) {
              const Exponent& e = b.rows[static_cast<std::size_t>(r)];
              double want = 0, scale = 1;
              if (!e.empty()) {
                want = 1;
                for (int v = 0; v < d; ++v)
                  for (int t = 0; t < e[static_cast<std::size_t>(v)]; ++t) {
                    want *= X(v, c);
                    scale *= 1 + std::abs(X(v, c));
                  }
              }
              err[kScratch] = std::max(err[kScratch], scaled_error(Zk(r, c), want, scale));
            }
        } else {
          const Eigen::RowVectorXd z = Zk.row(dbar);
          err[kLabels] = std::max(err[kLabels], ref.label_error(z, static_cast<std::size_t>(l + 1)));
          err[kRefSelf] = std::max(err[kRefSelf], ref.self_error(static_cast<std::size_t>(l + 1)));
        }
      };
  model.forward(Z, ws, &observe);
  const double reference = ref.final_query();
  err[kQueryPlain] = scaled_error(prediction(Z), reference, std::abs(reference));
  return err;
}

WorstCase appH_worst_over_prompts(const AppHNumeric& nm, const std::vector<AppHStep>& schedule, std::uint64_t seed,
                                  std::uint64_t purpose, std::uint64_t count, int threads) {
  auto make_worker = [&] {
    return [&](std::uint64_t i, double* out) {
      const auto e = appH_check_prompt(nm, schedule, seed, purpose, i);
      for (int k = 0; k < kDims; ++k) out[k] = e[static_cast<std::size_t>(k)];
      return e[kOutOfRange] == 0;  // false: set aside (counted by WorstCase)
    };
  };
  return worst_over_prompts(count, kDims, threads, make_worker);
}

nlohmann::ordered_json appH_depth_table(const ClaimContext& ctx, int d, int p, int n, int cycles, std::uint64_t prompts,
                                   double damping) {
  const auto schedule = appH_schedule(d, p);
  const AppHCycle sym = appH_simulate(d, p, schedule);
  const AppHNumeric nm = appH_numeric(d, p, n, sym);
  const int blocks = cycles * static_cast<int>(sym.cycle);
  std::vector<Eigen::MatrixXd> G;
  for (int l = 0; l < blocks; ++l) G.push_back(-damping * nm.lambda_pinv[static_cast<std::size_t>(l) % sym.cycle]);
  const Transformer model = appH_stack(d, schedule, G);
  const PolynomialTask task = PolynomialTask::polynomial(d, p);
  const PromptShape shape = sja_shape(d, appG_width(d), n);
  const std::uint64_t purpose = ctx.purpose(fmt::format("depth d={} p={} n={}", d, p, n));  // same prompts for every damping
  const Accumulator a = depth_profile(model, blocks, task, shape, nm.monomials, {ctx.seed, ctx.threads, prompts}, purpose);
  const nlohmann::ordered_json rows = depth_rows_json(a, blocks);
  nlohmann::ordered_json j;
  j["d"] = d;
  j["p"] = p;
  j["n"] = n;
  j["dbar"] = appG_width(d);
  j["target"] = fmt::format("all {} monomials of degree <= {}, N(0,1) coefficients", task.num_coefficients(), p);
  j["preconditioner"] = fmt::format("Gamma_b = -{:g} Lambda_b^+ over the block's non-zero features (exact moments)", damping);
  j["damping"] = damping;
  j["cycle"] = sym.cycle;
  j["Ey2"] = task.kernel_diagonal().gaussian_expectation().convert_to<double>();
  j["prompts"] = a.count;
  j["table"] = rows;
  return j;
}

}  // namespace icl::sja
