// GCC 12 reports a false -Wmaybe-uninitialized inside boost::multiprecision's cpp_int copy when it inlines the rational
// moment_matrix of appG_setup here (as tests/algebra/test_gaussian_moments.cpp says); the warning is off in this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "constructions/sja_appG_thm7.hpp"

#include "constructions/sja_appG.hpp"
#include "constructions/sja_bcd_reference.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/depth_profile.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <stdexcept>

namespace icl::sja {

using enum AppGPrompt::Error;

const char* appG_family_name(int family) {
  static const char* kFamilies[4] = {"random non-symmetric Gamma, x ~ N(0, I)",
                                     "Gamma = -E[xbar_b xbar_b^T]^-1, x ~ N(0, I)", "x ~ N(0, 1e6 I), matching Gamma",
                                     "x ~ N(0, 900 I), random Gamma (growing iterates)"};
  return kFamilies[family];
}

AppGSetup appG_setup(int d, int n, int L) {
  AppGSetup s;
  s.d = d;
  s.n = n;
  s.L = L;
  s.monomials = monomials_up_to(d, 2, 0);
  s.task = PolynomialTask::quadratic(d);
  for (int l = 1; l <= d; ++l) {
    const auto block = appG_block(d, l);
    s.blocks.push_back(monomial_indices(s.monomials, block));
    std::vector<Polynomial<Rational>> f;
    for (const auto& e : block) f.push_back(Polynomial<Rational>::monomial(e, Rational(1)));
    const Eigen::MatrixXd lam = to_eigen(moment_matrix(f, f, Polynomial<Rational>::constant(d, Rational(1))));
    s.lambda_inv.push_back(lam.inverse());
  }
  return s;
}

namespace {

// Gamma^(l), l = 1..L, for a prompt of the given family (x = xs z): drawn in every family, so the streams line up;
// scaled random in families 0 and 3, -E[xbar xbar^T]^{-1} for x = xs z in families 1 and 2.
std::vector<Eigen::MatrixXd> draw_gammas(const AppGSetup& s, PromptRng& rng, int family, double xs) {
  const int d = s.d, L = s.L, dbar = appG_width(d);
  std::vector<Eigen::MatrixXd> Gam(static_cast<std::size_t>(L));
  for (int l = 1; l <= L; ++l) {
    auto& G = Gam[static_cast<std::size_t>(l - 1)];
    G.resize(dbar, dbar);
    rng.fill_normal(G);  // drawn in every family, so the streams line up
    if (family == 0 || family == 3) {
      G *= 0.5 / dbar;
    } else {
      // -E[xbar xbar^T]^{-1} for x = xs z: xbar(x) = D xbar(z), D = diag(xs^degree).
      Eigen::VectorXd Dinv(dbar);
      Dinv[0] = 1;
      for (int k = 1; k <= d; ++k) Dinv[k] = 1 / xs;
      for (int k = d + 1; k < dbar; ++k) Dinv[k] = 1 / (xs * xs);
      G = -(Dinv.asDiagonal() * s.lambda_inv[static_cast<std::size_t>(appG_mod(l, d) - 1)] * Dinv.asDiagonal());
    }
  }
  return Gam;
}

}  // namespace

AppGPrompt appG_check_prompt(const AppGSetup& s, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i) {
  const int d = s.d, n = s.n, L = s.L, dbar = appG_width(d), m = static_cast<int>(s.monomials.size());
  AppGPrompt o;
  o.family = static_cast<int>(i % 4);
  const double xs = o.family == 2 ? 1e3 : o.family == 3 ? 30.0 : 1.0;
  PromptRng rng(seed, purpose, i);
  const std::vector<Eigen::MatrixXd> Gam = draw_gammas(s, rng, o.family, xs);
  Eigen::VectorXd wt(s.task.num_coefficients());
  rng.fill_normal(wt);
  Eigen::MatrixXd X(d, n + 1);
  rng.fill_normal(X);
  X *= xs;
  Eigen::RowVectorXd y(n + 1);
  s.task.evaluate(X, wt, y);
  y[n] = 0;
  const PromptShape shape = sja_shape(d, dbar, n);
  Eigen::MatrixXd Z(shape.rows(), shape.cols());
  embed(shape, X, y, Z);

  // Reference: BCD on L(w) = (1/2n) sum (phi(x_i)^T w + y_i)^2, i.e. targets t = -y, features = monomials.
  const MatrixS<long double> PhiL = monomial_features<long double>(s.monomials, X.cast<long double>());
  const MatrixS<double> PhiD = monomial_features<double>(s.monomials, X);
  const VectorS<long double> tL = -y.head(n).transpose().cast<long double>();
  std::vector<BlockStep> stated, negative;
  for (int l = 1; l <= L; ++l) {
    const auto& block = s.blocks[static_cast<std::size_t>(appG_mod(l, d) - 1)];
    stated.push_back({block, -Gam[static_cast<std::size_t>(l - 1)].transpose()});  // eta = -Gamma^T
    negative.push_back({block, -Gam[static_cast<std::size_t>(l - 1)]});             // the slip it must catch
  }
  const BcdReference ref(PhiL, PhiD, y, n, stated);
  if (ref.leaves_double_range(kDoubleRangeTerm)) {
    o.out_of_range = true;
    return o;
  }
  const auto wN = block_coordinate_descent<long double>(PhiL.leftCols(n), tL, negative, VectorS<long double>::Zero(m));

  const Transformer model = appG_stack(d, Gam);
  ForwardWorkspace ws;
  Eigen::MatrixXd top(d + 1, n + 1);
  top.row(0).setOnes();
  top.bottomRows(d) = X;
  const double xmax = std::max(1.0, X.cwiseAbs().maxCoeff());
  Eigen::MatrixXd prev = Z;
  int layers_seen = 0;
  std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> observe =
      [&](int k, const Eigen::Ref<const Eigen::MatrixXd>& Zk) {
        layers_seen = k;
        const int l = (k + 1) / 2;  // block index
        o.err[kTopRows] = std::max(o.err[kTopRows], (Zk.topRows(d + 1) - top).cwiseAbs().maxCoeff() / xmax);
        if (k % 2 == 1) {  // after bilinear layer l: scratch = x[l%d] * x, label row carried over unchanged
          const int j = appG_mod(l, d) - 1;
          for (int c = 0; c <= n; ++c) {
            // The layer forms x_r x_j as x_r x_{j'} + x_r (x_j - x_{j'}): measure against |x_r| max_k |x_k|.
            const double xm = X.col(c).cwiseAbs().maxCoeff();
            for (int r = 0; r < d; ++r) {
              const double want = X(r, c) * X(j, c);
              o.err[kScratch] =
                  std::max(o.err[kScratch], scaled_error(Zk(d + 1 + r, c), want, std::abs(X(r, c)) * xm + 1e-300));
            }
          }
          o.err[kLabelCarry] = std::max(o.err[kLabelCarry], (Zk.row(dbar) - prev.row(dbar)).cwiseAbs().maxCoeff());
        } else {  // after attention layer l: scratch carried over, label row = y^(l)
          o.err[kScratch] = std::max(o.err[kScratch], (Zk.middleRows(d + 1, d) - prev.middleRows(d + 1, d)).cwiseAbs().maxCoeff());
          const Eigen::RowVectorXd z = Zk.row(dbar);
          o.err[kStated] = std::max(o.err[kStated], ref.label_error(z, static_cast<std::size_t>(l)));
          o.err[kNegative] =
              std::max(o.err[kNegative], label_row_error(z, PhiL, y, wN[static_cast<std::size_t>(l)], n));
          o.err[kRefSelf] = std::max(o.err[kRefSelf], ref.self_error(static_cast<std::size_t>(l)));
          // Theorem 7's displayed form: [1 x_q] W^(l) [1 x_q]^T with W^(l) built from the double iterate.
          const Eigen::MatrixXd W = quadratic_form_matrix(d, s.monomials, ref.in_double(static_cast<std::size_t>(l)));
          Eigen::VectorXd xq1(d + 1);
          xq1[0] = 1;
          xq1.tail(d) = X.col(n);
          const double form = xq1.dot(W * xq1);
          const double scale = (xq1.cwiseAbs()).dot(W.cwiseAbs() * xq1.cwiseAbs());
          o.err[kMatrixForm] = std::max(o.err[kMatrixForm], scaled_error(Zk(dbar, n), form, scale));
          if (l == L) o.W_final = W;
        }
        prev = Zk;
      };
  model.forward(Z, ws, &observe);
  if (layers_seen != 2 * L) throw std::logic_error("Forward pass saw the wrong number of layers");
  o.forward = prediction(Z);
  o.reference = ref.final_query();
  o.err[kQueryPlain] = scaled_error(o.forward, o.reference, std::abs(o.reference));
  return o;
}

nlohmann::ordered_json appG_depth_table(const ClaimContext& ctx, int d, int n, int blocks, std::uint64_t prompts) {
  const AppGSetup s = appG_setup(d, n, blocks);
  std::vector<Eigen::MatrixXd> G;
  for (int l = 1; l <= blocks; ++l) G.push_back(-s.lambda_inv[static_cast<std::size_t>(appG_mod(l, d) - 1)]);
  const Transformer model = appG_stack(d, G);
  const PromptShape shape = sja_shape(d, appG_width(d), n);
  const std::uint64_t purpose = ctx.purpose(fmt::format("depth d={} n={}", d, n));
  const Accumulator a = depth_profile(model, blocks, s.task, shape, s.monomials, {ctx.seed, ctx.threads, prompts}, purpose);
  std::vector<Polynomial<Rational>> f;
  for (const auto& e : appG_block(d, 1)) f.push_back(Polynomial<Rational>::monomial(e, Rational(1)));
  const FeatureMoments block1 = feature_moments(f, s.task);
  const double exact1 = sparse_lsa_loss(block1, G[0], n);
  const nlohmann::ordered_json rows = depth_rows_json(a, blocks);
  nlohmann::ordered_json j;
  j["d"] = d;
  j["n"] = n;
  j["dbar"] = appG_width(d);
  j["target"] = "quadratic, N(0,1) coefficients; E[y^2] = " + fmt::format("{:g}", block1.Ey2);
  j["preconditioner"] = "Gamma^(l) = -E[xbar_b xbar_b^T]^{-1} (exact moments)";
  j["prompts"] = a.count;
  j["exact_first_block"] = exact1;
  j["table"] = rows;
  return j;
}

AppGTrainedStack appG_trained_stack(const ClaimContext& ctx, int d, int n, int L) {
  AppGTrainedStack t;
  const AppGSetup s = appG_setup(d, n, L);
  const int dbar = appG_width(d), m = static_cast<int>(s.monomials.size());
  const icl::Parameterisation p = learn::sja_bilinear(d, dbar, L, learn::BilinearForm::sparse);
  const auto gm = GaussianIclModel::from_task(s.task, Eigen::MatrixXd::Identity(d, d));
  const PromptShape shape = sja_shape(d, dbar, n);
  learn::TrainConfig& c = t.config;
  c.optimizer = "adam";
  c.learning_rate = 0.01;
  c.batch = ctx.quick ? 128 : 512;
  c.steps = ctx.quick ? 60 : 400;
  c.lr_decay_every = c.steps / 3;
  c.lr_decay = 0.3;
  c.test_batch = ctx.quick ? 256 : 1024;
  c.curve_points = 40;
  c.seed = ctx.seed;
  c.purpose = ctx.purpose("trained stack/train");
  c.threads = ctx.threads;
  c.label = "sja.thm7 trained stack";
  t.result = learn::train(p, icl::normal_theta(p, 0.1, ctx.seed, ctx.purpose("trained stack/init")),
                          icl::gaussian_prompts(gm, shape), icl::LossSpec::sja(), c);
  const icl::Network net = p.network(t.result.theta);
  std::vector<icl::Network> heads;
  for (int l = 1; l <= L; ++l) heads.push_back(net.truncated(2 * l));
  std::vector<BlockStep> steps;
  for (int l = 1; l <= L; ++l) {
    const auto k = static_cast<std::size_t>(appG_mod(l, d) - 1);
    steps.push_back({s.blocks[k], s.lambda_inv[k]});  // eta = -Gamma^T with Gamma = -Lam_b^{-1} (symmetric)
  }
  // Per block l: sums of (yhat_trained - yhat_bcd)^2 and its square, yhat_bcd^2, and both losses.
  const std::uint64_t prompts = ctx.quick ? 256 : 2048;
  const std::uint64_t purpose = ctx.purpose("trained stack/compare");
  std::vector<std::array<double, 5>> sum(static_cast<std::size_t>(L)), sum2(static_cast<std::size_t>(L));
  icl::Tape tape;
  Eigen::MatrixXd X(d, n + 1), Z(shape.rows(), shape.cols());
  Eigen::RowVectorXd y(n + 1);
  Eigen::VectorXd w(s.task.num_coefficients());
  for (std::uint64_t i = 0; i < prompts; ++i) {
    PromptRng rng(ctx.seed, purpose, i);
    rng.fill_normal(w);
    rng.fill_normal(X);
    s.task.evaluate(X, w, y);
    const double yq = y[n];
    y[n] = 0;
    embed(shape, X, y, Z);
    const MatrixS<long double> PhiL = monomial_features<long double>(s.monomials, X.cast<long double>());
    const MatrixS<double> PhiD = monomial_features<double>(s.monomials, X);
    const BcdReference ref(PhiL, PhiD, y, n, steps);
    for (int l = 1; l <= L; ++l) {
      const double yt = icl::forward(heads[static_cast<std::size_t>(l - 1)], Z, tape);
      long double q = 0;
      for (int k = 0; k < m; ++k) q += PhiL(k, n) * ref.truth(static_cast<std::size_t>(l))[k];
      const double yb = static_cast<double>(q);
      const std::array<double, 5> v{(yt - yb) * (yt - yb), yb * yb, (yt + yq) * (yt + yq), (yb + yq) * (yb + yq), 0.0};
      for (int k = 0; k < 4; ++k) {
        sum[static_cast<std::size_t>(l - 1)][static_cast<std::size_t>(k)] += v[static_cast<std::size_t>(k)];
        sum2[static_cast<std::size_t>(l - 1)][static_cast<std::size_t>(k)] += v[static_cast<std::size_t>(k)] * v[static_cast<std::size_t>(k)];
      }
    }
  }
  const double P = static_cast<double>(prompts);
  auto mean_se = [&](int l, int k) {
    const double mu = sum[static_cast<std::size_t>(l)][static_cast<std::size_t>(k)] / P;
    const double var = std::max(0.0, sum2[static_cast<std::size_t>(l)][static_cast<std::size_t>(k)] / P - mu * mu);
    return std::make_pair(mu, std::sqrt(var / (P - 1)));
  };
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (int l = 0; l < L; ++l) {
    const auto [dist, dist_se] = mean_se(l, 0);
    const auto [size, size_se] = mean_se(l, 1);
    const auto [lt, lt_se] = mean_se(l, 2);
    const auto [lb, lb_se] = mean_se(l, 3);
    rows.push_back({{"blocks", l + 1}, {"layers", 2 * (l + 1)}, {"mean_sq_distance", dist}, {"mean_sq_distance_se", dist_se},
                    {"relative_distance", std::sqrt(dist / size)}, {"bcd_mean_sq_prediction", size},
                    {"trained_loss", lt}, {"trained_loss_se", lt_se}, {"bcd_loss", lb}, {"bcd_loss_se", lb_se}});
    t.line += fmt::format("{}l={}: relative distance {:.3g} (E(yhat_tr - yhat_bcd)^2 = {:.3g} +/- {:.2g}), loss {:.3g} vs "
                          "BCD {:.3g}",
                          l ? "; " : "", l + 1, std::sqrt(dist / size), dist, dist_se, lt, lb);
  }
  t.json = {{"d", d}, {"n", n}, {"dbar", dbar}, {"blocks", L}, {"form", "sparse (12)"},
            {"status", learn::to_string(t.result.status)}, {"reason", t.result.reason}, {"prompts", prompts},
            {"reference", "block-coordinate descent (9), blocks b_l of App. G, Gamma^(l) = -E[xbar_b xbar_b^T]^-1"},
            {"per_block", rows}, {"training_run", learn::curve_json(t.result)}};
  return t;
}

}  // namespace icl::sja
