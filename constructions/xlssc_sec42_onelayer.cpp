// Xing, Lin, Suh, Song, Cheng (004), Sec. 4.2: one-layer attention on unstructured prompts under the symmetric law
// theta = +/- theta0 (xlssc_sec42_onelayer.hpp).
#include "constructions/xlssc_sec42_onelayer.hpp"

#include "constructions/xlssc_sec4.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/prompt.hpp"
#include "icl/montecarlo/montecarlo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace icl::xlssc {

namespace {

const std::vector<double> kBetas{0.25, 0.5, 1, 2, 4, 8};
constexpr int kRandomCandidates = 12;
constexpr double kRelativeFrom = 200;  // |K| above which the search's Adam steps on K grow with |K|

std::vector<SoftmaxAttention> candidates(int d, const Eigen::VectorXd& theta0, SoftmaxAttention::Activation act, std::uint64_t seed) {
  std::vector<SoftmaxAttention> c;
  for (double b : kBetas) c.push_back(onelayer_sign_probe(theta0, 1.0, b, act));
  PromptRng rng(seed, stable_hash("xlssc.onelayer/candidates"), static_cast<std::uint64_t>(d));
  for (int k = 0; k < kRandomCandidates; ++k) {
    Eigen::VectorXd v(d + 1);
    Eigen::MatrixXd K(d + 1, d + 1);
    rng.fill_normal(v);
    rng.fill_normal(K);
    c.push_back(onelayer(v, K / std::sqrt(d + 1.0), act));
  }
  return c;
}

std::string describe(std::size_t k) {
  return k < kBetas.size() ? fmt::format("sign probe, beta = {:g}", kBetas[k])
                           : fmt::format("random weights #{}", k - kBetas.size() + 1);
}

}  // namespace

void draw_sign_prompt(PromptRng& rng, const Eigen::VectorXd& theta0, int D, OneLayerPrompt& p) {
  const double s = rng.uniform() < 0.5 ? -1.0 : 1.0;
  rng.fill_normal(p.X);
  p.y = s * (theta0.transpose() * p.X);
  p.yq = p.y[D];
  embed_unstructured(p.X, p.y.head(D), p.Z);
}

double predict_query(const SoftmaxAttention& layer, Eigen::MatrixXd& Z) {
  const Eigen::MatrixXd Z0 = Z;
  layer.apply(Z, /*last_column_only=*/true);
  const double yhat = unstructured_prediction(Z);
  Z = Z0;
  return yhat;
}

SoftSearch search_softmax(const ClaimContext& ctx, int d, int D, const Eigen::VectorXd& theta0, const SearchBudget& budget,
                          const std::string& tag, std::uint64_t select_n) {
  const icl::Parameterisation p = learn::softmax_stack(d, 1, SoftmaxAttention::Activation::softmax, true);
  const icl::PromptSource source = icl::unstructured_prompts(d, D, theta0);
  const icl::LossSpec sq{-1.0, 1.0};  // (yhat - y_q)^2
  learn::BatchObjective held_out(p, source, sq, ctx.threads);
  const std::uint64_t select_purpose = ctx.purpose(tag + "/select");
  const int gK = p.find_group("K_0");
  const Eigen::Index k_off = p.group_offset(gK), k_len = (d + 1) * (d + 1);
  SearchProblem pr;
  pr.dim = p.size();
  pr.effort_unit = fmt::format("Adam steps of {} fresh prompts", ctx.quick ? 256 : 512);
  // The direction the structured starts use: theta0 under the symmetric law, e_1 under the Gaussian law.
  Eigen::VectorXd t0 = theta0;
  if (!t0.size()) {
    t0 = Eigen::VectorXd::Zero(d);
    t0[0] = 1.0;
  }
  auto add_start = [&, base = p.base()](const std::string& name, const SoftmaxAttention& layer) mutable {
    base.weight(0, "V") = layer.V;
    base.weight(0, "K") = layer.K;
    pr.structured.emplace_back(name, p.theta_from(base));
  };
  for (double beta : {1.0, 4.0})
    add_start(fmt::format("sign probe, beta = {:g}", beta), onelayer_sign_probe(t0, 0.5, beta, SoftmaxAttention::Activation::softmax));
  {  // The near-tie family: x tokens score -c (theta0^T x_i)(theta0^T x_q), y tokens -1.04 c y_i (theta0^T x_q); as c
     // grows the attention picks one extreme token, and which kind wins (x or y, of the same i) depends on the sign
     // of theta; values 0.34 theta0^T x on x tokens, -0.11 y on y tokens. (The shape an independent search's optimum
     // had at d = 5, D = 30.)
    Eigen::VectorXd v = Eigen::VectorXd::Zero(d + 1);
    v.head(d) = 0.34 * t0;
    v[d] = -0.11;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(d + 1, d + 1);
    K.topLeftCorner(d, d) = -8.0 * t0 * t0.transpose();
    K.row(d).head(d) = -8.32 * t0.transpose();
    add_start("near-tie family, c = 8", onelayer(v, K, SoftmaxAttention::Activation::softmax));
  }
  // The "denominator" families: every y token scores 0 and the x tokens' scores move the softmax normaliser with
  // sum_i theta0^T x_i, so a value on the label row (v = u e_label) leaks theta's sign (the best found at small D
  // under the symmetric law, and under the Gaussian law at every D an independent search ran).
  for (const auto& [name, k0, kr, u] : {std::tuple<const char*, double, double, double>{"denominator family, sharp", -6.66, 0.66, 1.25},
                                        {"denominator family, isotropic", -1.4, -1.4, 2.0}}) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(d + 1);
    v[d] = u;
    // K[:d, :d] = k0 t0 t0^T + kr (I - t0 t0^T)
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(d + 1, d + 1);
    K.topLeftCorner(d, d) = kr * Eigen::MatrixXd::Identity(d, d) + (k0 - kr) * t0 * t0.transpose();
    add_start(name, onelayer(v, K, SoftmaxAttention::Activation::softmax));
  }
  // Adam's step relative to the scores' scale: each refinement trains K = sigma K' (sigma = max(1, |K| / kRelativeFrom)
  // at the refinement's start, fixed during it), so a step moves K by sigma times the learning rate. Below |K| = 200
  // (sigma = 1) this is plain Adam; along a continuation to near-hard attention (|K| in the thousands) the structure
  // that must be tuned in absolute terms (the near tie between an x token's and a y token's score, c - k above)
  // would otherwise be frozen at what the rescaling made of it.
  pr.refine = [&, d](const Eigen::VectorXd& x, int effort, std::uint64_t stream) {
    const double sigma = std::max(1.0, x.segment(k_off, k_len).norm() / kRelativeFrom);
    icl::Parameterisation q(p.base());
    q.add(icl::ParamGroup::full("V_0", d + 1, d + 1, {{0, "V"}}));
    q.add(icl::ParamGroup::full("K_0", d + 1, d + 1, {icl::Target{0, "K", 0, 0, sigma}}));
    Eigen::VectorXd y = x;
    y.segment(k_off, k_len) /= sigma;
    learn::TrainConfig c;
    c.optimizer = "adam";
    c.learning_rate = 0.02;
    c.batch = ctx.quick ? 256 : 512;
    c.steps = effort;
    c.lr_decay_every = std::max(1, effort / 2);
    c.lr_decay = 0.5;
    c.test_batch = 0;
    c.curve_points = 4;
    c.seed = ctx.seed;
    c.purpose = ctx.purpose(fmt::format("{}/refine/{}", tag, stream));
    c.threads = ctx.threads;
    c.progress = false;
    c.label = tag;
    Eigen::VectorXd out = learn::train(q, y, source, sq, c).theta;
    out.segment(k_off, k_len) *= sigma;
    return out;
  };
  pr.select = [&](const Eigen::VectorXd& x) {
    return 1.0 - held_out.evaluate(x, ctx.seed, select_purpose, select_n, nullptr);
  };
  pr.rescale = [&](const Eigen::VectorXd& x, double f) {
    Eigen::VectorXd y = x;
    y.segment(k_off, k_len) *= f;  // the scores: the softmax's inverse temperature
    return y;
  };
  SoftSearch out;
  out.search = search_maximum(pr, budget, ctx.seed, ctx.purpose(tag + "/starts"));
  // Every path diverged (no finite selection value): fall back to the first structured start, reported as such.
  if (out.search.best.size() != pr.dim) {
    out.search.best = pr.structured.front().second;
    out.search.best_start = pr.structured.front().first + " (every path diverged: the start itself)";
  }
  const icl::Network net = p.network(out.search.best);
  out.chosen.V = net.weight(0, "V");
  out.chosen.K = net.weight(0, "K");
  out.chosen.activation = SoftmaxAttention::Activation::softmax;
  out.chosen.causal = true;
  return out;
}

OneLayerPrompt onelayer_prompt(int d, int D) {
  OneLayerPrompt p;
  p.X.resize(d, D + 1);
  p.Z.resize(d + 1, 2 * D + 1);
  return p;
}

WorstCase evenness_worst(const ClaimContext& ctx, int d, int D, SoftmaxAttention::Activation act, const Eigen::VectorXd& theta0,
                         std::uint64_t purpose) {
  auto make_even = [&] {
    return [&, p = onelayer_prompt(d, D)](std::uint64_t i, double* out) mutable {
      PromptRng rng(ctx.seed, purpose ^ 0x5157, i);
      Eigen::VectorXd v(d + 1);
      Eigen::MatrixXd K(d + 1, d + 1);
      rng.fill_normal(v);
      rng.fill_normal(K);
      const SoftmaxAttention layer = onelayer(v, K / std::sqrt(d + 1.0), act);
      draw_sign_prompt(rng, theta0, D, p);
      const double a = predict_query(layer, p.Z);
      const Eigen::RowVectorXd yneg = -p.y;
      embed_unstructured(p.X, yneg.head(D), p.Z);
      const double b = predict_query(layer, p.Z);
      out[0] = scaled_error(a, b, std::abs(a) + std::abs(b));
    };
  };
  return worst_over_prompts(std::max<std::uint64_t>(ctx.samples / 16, 256), 1, ctx.threads, make_even);
}


Chosen fit_linear_candidates(const ClaimContext& ctx, int d, int D, SoftmaxAttention::Activation act, const Eigen::VectorXd& theta0,
                             std::uint64_t purpose) {
  Chosen ch;
  const auto cand = candidates(d, theta0, act, ctx.seed);
  const int C = static_cast<int>(cand.size());
  auto make_train = [&] {
    return [&, p = onelayer_prompt(d, D)](std::uint64_t i, double* out) mutable {
      PromptRng rng(ctx.seed, purpose ^ 0x7124, i);
      draw_sign_prompt(rng, theta0, D, p);
      for (int k = 0; k < C; ++k) {
        const double g = predict_query(cand[static_cast<std::size_t>(k)], p.Z);
        out[2 * k] = g * p.yq;
        out[2 * k + 1] = g * g;
      }
      out[2 * C] = p.yq * p.yq;
    };
  };
  MonteCarlo train(2 * C + 1, ctx.threads);
  train.extend_to(std::max<std::uint64_t>(ctx.samples / 4, 2048), make_train);
  const Accumulator ta = train.total();
  std::size_t best = 0;
  ch.best_train = INFINITY;
  for (int k = 0; k < C; ++k) {
    const double gy = ta.mean[static_cast<std::size_t>(2 * k)], gg = ta.mean[static_cast<std::size_t>(2 * k + 1)];
    const double a = gg > 0 ? gy / gg : 0.0;
    const double l = ta.mean[static_cast<std::size_t>(2 * C)] - a * gy;
    if (l < ch.best_train) {
      ch.best_train = l;
      best = static_cast<std::size_t>(k);
      ch.best_alpha = a;
    }
  }
  ch.layer = cand[best];
  ch.layer.V *= ch.best_alpha;
  ch.what = fmt::format("{} with alpha = {:.4g}", describe(best), ch.best_alpha);
  return ch;
}

}  // namespace icl::xlssc
