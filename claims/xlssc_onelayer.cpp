// xlssc.onelayer — Xing, Lin, Suh, Song, Cheng (004), Section 4.2.
//
// Statement: on unstructured prompts E_2 with theta ~ (1/2) delta_{theta0} + (1/2) delta_{-theta0}, a
// one-layer attention's loss-minimising prediction is 0, for a linear phi (seed 004: "Since both
// $\begin{bmatrix} \sum x_i x_i^\top + x_{\text{query}} x_{\text{query}}^\top & 0 \\ 0 & \sum y_i^2
// \end{bmatrix}$ and x_{query} are almost constant regardless of the sign of θ , to minimize the loss (which
// takes the expectation over θ), one must have $\hat{y}_{\text{query}} = 0$.") and for softmax ("For softmax
// activation ϕ , due to the symmetry of θ distribution, a similar issue happens, and the best prediction
// result is also 0.").
//
// The symmetry argument, and where it holds. One layer predicts yhat = v^T E phi(E^T K e_q + M)
// (v: last row of W_out W^V). With a linear phi, yhat = sum_t (v^T e_t)(e_t^T K e_q) is even in the
// labels (each y token enters as y_i * y_i), so yhat(theta0) = yhat(-theta0) on the same inputs while
// y_q changes sign; hence E(yhat - y_q)^2 = E[y_q^2] + E[yhat^2] >= E[y_q^2] for every weight choice,
// with equality at yhat = 0. With softmax, a y token's score y_i k^T x_q changes sign with theta and
// the normaliser couples it with the x tokens' values, so yhat is not even and the argument fails.
//
// Checks, per (d, D, act), theta0 = e_1 (E[y_q^2] = 1), x ~ N(0, I), the look-ahead mask:
//  1. evenness_error: worst |yhat(theta0) - yhat(-theta0)| / (|yhat(theta0)| + |yhat(-theta0)|) over
//     prompts with random weights (v ~ N(0, I), K ~ N(0, I/(d+1))), through the real forward pass.
//  2. optimise: candidates = the "sign probe" family (values alpha theta0^T x on x tokens, scores
//     -beta y_i theta0^T x_q on y tokens, beta in {1/4, ..., 8}) and 12 random weight directions; each
//     output is linear in its scale alpha, whose best value alpha* = E[g y]/E[g^2] is fitted on a
//     training stream; the candidate with the lowest training loss is then evaluated on a fresh test
//     stream: `mc` = its loss, `excess` = E[(yhat - y_q)^2 - y_q^2] (paired, same prompts).
//
// What the paper asserts, and how strongly. Sec. 4.2 opens with "when D is sufficiently large, the final output
// of \hat{y}_{query} approximately equals to" and Remark 4.1 says of the one-layer results: "the squared error is
// still slightly below 1. There are two explanations. First, the above theoretical explanation assumes there are
// a large number of examples D in each prompt, which is slightly different from the finite-example scenario in
// the experiment." The paper itself, then, states its explanation for large D and reports one-layer losses
// slightly below E[y^2] = 1 at finite D. So:
//   part (a), linear phi: the loss-minimising prediction is 0. Judged at every D run (stronger than asked):
//     confirmed when yhat is even in theta to rounding (evenness_error <= 1e-9, which proves it for every
//     weight choice) and the best candidate does not beat 0 on the test stream; refuted when a candidate beats 0.
//   part (b), softmax phi, asymptotic: "a similar issue happens, and the best prediction result is also 0" as D
//     grows. Judged by the trend of the best gain over predicting 0 that the search finds (E[y^2] minus the test
//     loss of the best candidate): between consecutive D at each d a significant rise refutes, and a significant
//     fall from the smallest to the largest D confirms. The limit itself: for fixed weights, as D -> inf every
//     token average in the query column converges to an expectation over one token, and the y tokens enter only
//     through s theta0^T x_i, whose law does not depend on the sign s; so yhat tends to a function of x_q alone and
//     E[yhat y_q] -> 0 (the symmetry argument of the paper, which holds in this limit but not at finite D).
//   The gain at each finite D (explicit weights beat predicting 0: 0.10 at D = 2, 0.006 at D = 30) is a finding:
//     the paper's own Remark 4.1 reports it.
//   Trained (issue 11, item 6): at the paper's own d = 5, D = 30 (at --quick: the grid's largest softmax case) a
//     one-layer softmax attention (learn::softmax_stack, V and K full, the look-ahead mask) is trained with Adam on
//     fresh minibatches, starting from the explicit search's chosen weights; `trained_softmax.gain_over_zero` =
//     E[y_q^2] - loss (E[y_q^2] = 1 exact, the loss a Monte Carlo estimate with its interval on fresh prompts of a
//     purpose neither the search nor the training drew from), with the report's `training` block. A finding: it does
//     not enter any verdict (the softmax part is asymptotic and judged by its trend above).
#include "constructions/xlssc_sec4.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/report/quantities.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/worst_case.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/identity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

namespace icl {
namespace {

using Act = SoftmaxAttention::Activation;
const std::vector<double> kBetas{0.25, 0.5, 1, 2, 4, 8};
constexpr int kRandomCandidates = 12;

struct Prompt {
  Eigen::MatrixXd X, Z;
  Eigen::RowVectorXd y;
  double yq = 0;
};

// x ~ N(0, I), theta = s theta0 with a fair sign s, y = x^T theta; Z the E_2 prompt.
void draw_prompt(PromptRng& rng, const Eigen::VectorXd& theta0, int D, Prompt& p) {
  const double s = rng.uniform() < 0.5 ? -1.0 : 1.0;
  rng.fill_normal(p.X);
  p.y = s * (theta0.transpose() * p.X);
  p.yq = p.y[D];
  embed_unstructured(p.X, p.y.head(D), p.Z);
}

double predict(const SoftmaxAttention& layer, Eigen::MatrixXd& Z) {
  const Eigen::MatrixXd Z0 = Z;
  layer.apply(Z, /*last_column_only=*/true);
  const double yhat = unstructured_prediction(Z);
  Z = Z0;
  return yhat;
}

std::vector<SoftmaxAttention> candidates(int d, const Eigen::VectorXd& theta0, Act act, std::uint64_t seed) {
  std::vector<SoftmaxAttention> c;
  for (double b : kBetas) c.push_back(xlssc::onelayer_sign_probe(theta0, 1.0, b, act));
  PromptRng rng(seed, stable_hash("xlssc.onelayer/candidates"), static_cast<std::uint64_t>(d));
  for (int k = 0; k < kRandomCandidates; ++k) {
    Eigen::VectorXd v(d + 1);
    Eigen::MatrixXd K(d + 1, d + 1);
    rng.fill_normal(v);
    rng.fill_normal(K);
    c.push_back(xlssc::onelayer(v, K / std::sqrt(d + 1.0), act));
  }
  return c;
}

std::string describe(std::size_t k) {
  return k < kBetas.size() ? fmt::format("sign probe, beta = {:g}", kBetas[k])
                           : fmt::format("random weights #{}", k - kBetas.size() + 1);
}

Estimate negate(const Estimate& e) {
  Estimate r = e;
  r.mean = -e.mean;
  r.ci_low = -e.ci_high;
  r.ci_high = -e.ci_low;
  return r;
}

struct SoftRow {
  int d, D;
  Estimate gain;  // E[y_q^2] - loss of the best candidate, on the test stream
};

// Item 6 of issue 11: an optimised one-layer softmax attention (V, K full, the look-ahead mask) trained by the
// project's trainer (Adam on fresh minibatches of the symmetric task) from the search's chosen weights, then
// gain_over_zero = E[y_q^2] - loss with E[y_q^2] = |theta0|^2 = 1 exact and the loss a Monte Carlo estimate on
// fresh prompts of a purpose the training never drew from.
struct TrainedSoftmax {
  int d = 0, D = 0;
  learn::TrainConfig config;
  learn::TrainResult result;
  Estimate loss, gain, start_loss;
};

TrainedSoftmax train_softmax(const ClaimContext& ctx, int d, int D, const SoftmaxAttention& start, double alpha) {
  TrainedSoftmax t;
  t.d = d;
  t.D = D;
  Eigen::VectorXd theta0 = Eigen::VectorXd::Zero(d);
  theta0[0] = 1.0;
  const learn::Parameterisation p = learn::softmax_stack(d, 1, Act::softmax, true);
  learn::Network net0 = p.base();
  net0.weights[0] = {start.V, start.K};
  const Eigen::VectorXd th0 = p.theta_from(net0);
  const learn::PromptSource source = learn::unstructured_prompts(d, D, theta0);
  const learn::LossSpec sq{-1.0, 1.0};  // (yhat - y_q)^2
  learn::TrainConfig& c = t.config;
  c.optimizer = "adam";
  c.learning_rate = 0.01;
  c.batch = ctx.quick ? 500 : 2000;
  c.steps = ctx.quick ? 60 : 300;
  c.lr_decay_every = c.steps / 3;
  c.lr_decay = 0.5;
  c.test_batch = 0;
  c.curve_points = 30;
  c.seed = ctx.seed;
  c.purpose = ctx.purpose(fmt::format("trained/d={}/D={}/train", d, D));
  c.threads = ctx.threads;
  c.label = fmt::format("xlssc.onelayer softmax d={} D={}", d, D);
  t.result = learn::train(p, th0, source, sq, c);
  const std::uint64_t test_purpose = ctx.purpose(fmt::format("trained/d={}/D={}/test", d, D));
  const std::uint64_t samples = std::max<std::uint64_t>(ctx.samples / 4, 4096);
  t.start_loss = learn::mc_loss(p.network(th0), source, sq, ctx.seed, test_purpose, samples, ctx.threads, 1 - alpha);
  t.loss = learn::mc_loss(p.network(t.result.theta), source, sq, ctx.seed, test_purpose, samples, ctx.threads, 1 - alpha);
  t.gain = negate(t.loss);
  t.gain.mean += 1.0;
  t.gain.ci_low += 1.0;
  t.gain.ci_high += 1.0;
  return t;
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimResult res;
  const IdentityTolerance even_tol;
  // Bonferroni over the cases and the trend comparisons (at most one per case).
  const double alpha_case = ctx.alpha / (2.0 * static_cast<double>(ctx.cases.size()));
  std::size_t done = 0, looks_planned = 0;
  double best_soft_gain = 0;
  std::vector<SoftRow> soft_rows;
  nlohmann::ordered_json softmax_by_D = nlohmann::ordered_json::array();
  std::string best_soft_at, soft_gains;
  // The softmax case to train at: d = 5, D = 30 (the paper's) if the grid has it, else the largest softmax case.
  int train_d = 0, train_D = 0;
  for (const auto& c : ctx.cases)
    if (c.geti("act") == 1) {
      const int d = c.geti("d"), D = c.geti("D");
      const bool paper = d == 5 && D == 30, have_paper = train_d == 5 && train_D == 30;
      if (!have_paper && (paper || d * D > train_d * train_D)) train_d = d, train_D = D;
    }
  std::optional<TrainedSoftmax> trained;
  for (const auto& c : ctx.cases) {
    const int d = c.geti("d"), D = c.geti("D");
    const Act act = c.geti("act") ? Act::softmax : Act::linear;
    Eigen::VectorXd theta0 = Eigen::VectorXd::Zero(d);
    theta0[0] = 1.0;
    const std::uint64_t purpose = ctx.purpose(c.label());
    auto new_prompt = [&] {
      Prompt p;
      p.X.resize(d, D + 1);
      p.Z.resize(d + 1, 2 * D + 1);
      return p;
    };

    // 1. Evenness in theta for random weights.
    auto make_even = [&] {
      return [&, p = new_prompt()](std::uint64_t i, double* out) mutable {
        PromptRng rng(ctx.seed, purpose ^ 0x5157, i);
        Eigen::VectorXd v(d + 1);
        Eigen::MatrixXd K(d + 1, d + 1);
        rng.fill_normal(v);
        rng.fill_normal(K);
        const SoftmaxAttention layer = xlssc::onelayer(v, K / std::sqrt(d + 1.0), act);
        draw_prompt(rng, theta0, D, p);
        const double a = predict(layer, p.Z);
        const Eigen::RowVectorXd yneg = -p.y;
        embed_unstructured(p.X, yneg.head(D), p.Z);
        const double b = predict(layer, p.Z);
        out[0] = scaled_error(a, b, std::abs(a) + std::abs(b));
      };
    };
    const WorstCase even = worst_over_prompts(std::max<std::uint64_t>(ctx.samples / 16, 256), 1, ctx.threads, make_even);
    const Decision evenness = judge_identity(even.worst[0], even_tol, "yhat(theta0) = yhat(-theta0)");

    // 2. Optimise on a training stream: alpha* per candidate in closed form, best candidate by loss.
    const auto cand = candidates(d, theta0, act, ctx.seed);
    const int C = static_cast<int>(cand.size());
    auto make_train = [&] {
      return [&, p = new_prompt()](std::uint64_t i, double* out) mutable {
        PromptRng rng(ctx.seed, purpose ^ 0x7124, i);
        draw_prompt(rng, theta0, D, p);
        for (int k = 0; k < C; ++k) {
          const double g = predict(cand[static_cast<std::size_t>(k)], p.Z);
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
    double best_train = INFINITY, best_alpha = 0;
    for (int k = 0; k < C; ++k) {
      const double gy = ta.mean[static_cast<std::size_t>(2 * k)], gg = ta.mean[static_cast<std::size_t>(2 * k + 1)];
      const double a = gg > 0 ? gy / gg : 0.0;
      const double l = ta.mean[static_cast<std::size_t>(2 * C)] - a * gy;
      if (l < best_train) {
        best_train = l;
        best = static_cast<std::size_t>(k);
        best_alpha = a;
      }
    }
    SoftmaxAttention chosen = cand[best];
    chosen.V *= best_alpha;

    // 3. Test stream: the chosen weights' loss and its paired excess over predicting 0.
    auto make_test = [&] {
      return [&, p = new_prompt()](std::uint64_t i, double* out) mutable {
        PromptRng rng(ctx.seed, purpose ^ 0x7e57, i);
        draw_prompt(rng, theta0, D, p);
        const double yhat = predict(chosen, p.Z);
        out[0] = (yhat - p.yq) * (yhat - p.yq);
        out[1] = yhat * yhat - 2 * yhat * p.yq;
      };
    };
    const auto looks = sequential_looks(8192, std::max<std::uint64_t>(ctx.samples, 8192));
    looks_planned = std::max(looks_planned, looks.size());
    const double alpha_look = alpha_case / static_cast<double>(looks.size());
    MonteCarlo test(2, ctx.threads);
    Estimate loss, excess;
    Decision vs_zero;
    for (std::uint64_t k : looks) {
      test.extend_to(k, make_test);
      loss = make_estimate(test.total(), 0, 1 - alpha_look);
      excess = make_estimate(test.total(), 1, 1 - alpha_look);
      vs_zero = judge_mc_lower_bound(excess, 0.0, Tolerance{0, 0}, alpha_look);  // claim: excess >= 0
      if (vs_zero.verdict == Verdict::refuted) break;
    }
    if (act == Act::softmax)
      soft_gains += fmt::format("{}d={}, D={}: {:.3g} +/- {:.2g}", soft_gains.empty() ? "" : "; ", d, D, -excess.mean,
                                (excess.ci_high - excess.ci_low) / 2);
    Verdict v = Verdict::inconclusive;
    std::string why;
    if (vs_zero.verdict == Verdict::refuted) {
      v = Verdict::refuted;
      why = fmt::format("{} with alpha = {:.4g} predicts better than 0: excess over predicting 0 {}", describe(best),
                        best_alpha, vs_zero.why);
      if (act == Act::softmax && -excess.mean > best_soft_gain) {
        best_soft_gain = -excess.mean;
        best_soft_at = fmt::format("d={}, D={} ({}, alpha = {:.3g}): loss {:.4f} +/- {:.2g} against E[y_q^2] = 1", d, D,
                                   describe(best), best_alpha, loss.mean, (loss.ci_high - loss.ci_low) / 2);
      }
    } else if (evenness.verdict == Verdict::confirmed) {
      v = Verdict::confirmed;
      why = fmt::format("{}; so E(yhat - y_q)^2 = E[y_q^2] + E[yhat^2] for every weight choice, minimised by yhat = 0. "
                        "Best candidate on test: excess {}",
                        evenness.why, vs_zero.why);
    } else {
      why = fmt::format("{} (the symmetry argument does not apply), and no candidate beat predicting 0: {}", evenness.why,
                        vs_zero.why);
    }
    if (act == Act::softmax && d == train_d && D == train_D)
      trained = train_softmax(ctx, d, D, chosen, alpha_case);
    if (act == Act::softmax) {
      // Part (b) is judged on the trend of these rows below; each row is a finite-D measurement.
      nlohmann::ordered_json row;
      row["params"] = c.to_json();
      row["loss"] = quantity_mc(loss);
      row["gain_over_predicting_zero"] = quantity_mc(negate(excess));
      row["evenness_error"] = even.worst[0];
      row["best_candidate"] = describe(best);
      row["alpha_best"] = best_alpha;
      row["excess_vs_zero"] = decision_json(vs_zero);
      soft_rows.push_back({d, D, negate(excess)});
      softmax_by_D.push_back(row);
      if (ctx.progress) ctx.progress(++done, ctx.cases.size());
      continue;
    }
    CaseJson j(c);
    j.part("a");
    j.quantity("stated", 1.0);  // best loss = E[y_q^2] (prediction 0)
    j.quantity("exact", theta0.squaredNorm());
    j.quantity("mc", loss);
    j.quantity("excess", excess);
    j.quantity("evenness_error", even.worst[0]);
    j.quantity("train_loss_best", best_train);
    j.quantity("alpha_best", best_alpha);
    j.field("best_candidate", describe(best));
    j.decision("evenness", evenness);
    j.decision("excess_vs_zero", vs_zero);
    j.verdict(v, why, v == Verdict::refuted ? std::vector<std::string>{"excess_vs_zero"} : std::vector<std::string>{"evenness"});
    res.cases.push_back(j.take());
    if (ctx.progress) ctx.progress(++done, ctx.cases.size());
  }
  // Part (b): the best gain found against D, at each d (rows in grid order: d, then D).
  std::sort(soft_rows.begin(), soft_rows.end(), [](const SoftRow& a, const SoftRow& b) {
    return a.d != b.d ? a.d < b.d : a.D < b.D;
  });
  std::size_t pairs = 0, falls = 0, rises = 0, groups = 0, overall_falls = 0;
  auto gain_case = [&](const SoftRow& A, const SoftRow& B, const std::string& check) {
    const double diff = A.gain.mean - B.gain.mean, se = std::hypot(A.gain.stderr_, B.gain.stderr_);
    const double z = normal_quantile(1 - alpha_case / 2);
    Decision dd;
    dd.detectable = (z + normal_quantile(0.95)) * se;
    if (diff - z * se > 0) dd.verdict = Verdict::confirmed;
    else if (diff + z * se < 0) dd.verdict = Verdict::refuted;
    dd.why = fmt::format("best gain over predicting 0: {:.4g} at D={}, {:.4g} at D={}; difference {:.4g} +/- {:.2g}",
                         A.gain.mean, A.D, B.gain.mean, B.D, diff, z * se);
    CaseJson j(nlohmann::ordered_json{{"d", A.d}, {"D", A.D}, {"D_next", B.D}, {"act", 1}});
    j.part("b");
    j.field("check", check);
    j.quantity("stated", 0.0);  // the stated gain of the best prediction over 0, for large D
    j.quantity("mc", B.gain);
    j.quantity("mc_at_D", A.gain);
    j.decision("trend", dd);
    j.verdict(dd, {"trend"});
    res.cases.push_back(j.take());
    return dd.verdict;
  };
  for (std::size_t k = 0; k < soft_rows.size();) {
    std::size_t e = k;
    while (e + 1 < soft_rows.size() && soft_rows[e + 1].d == soft_rows[k].d) ++e;
    for (std::size_t i = k; i < e; ++i) {
      const Verdict v = gain_case(soft_rows[i], soft_rows[i + 1], "trend: the best gain at D_next is below the gain at D");
      ++pairs, falls += v == Verdict::confirmed, rises += v == Verdict::refuted;
    }
    if (e > k) {
      ++groups;
      const Verdict v = e == k + 1 ? res.cases.back()["verdict"] == "confirmed" ? Verdict::confirmed : Verdict::inconclusive
                                   : gain_case(soft_rows[k], soft_rows[e],
                                               "trend: the best gain at the largest D is below the gain at the smallest");
      overall_falls += v == Verdict::confirmed;
    }
    k = e + 1;
  }
  if (!soft_rows.empty()) {
    const Verdict trend = rises > 0 ? Verdict::refuted
                          : (groups > 0 && overall_falls == groups) ? Verdict::confirmed
                                                                    : Verdict::inconclusive;
    res.part("b").decide(
        trend, fmt::format("the best gain over predicting 0 found by the search falls significantly in {} of {} steps "
                           "between consecutive D and rises significantly in {}; from the smallest to the largest D it "
                           "falls significantly in {} of {} grids. The limit 0 for fixed weights follows from the symmetry "
                           "of theta's law once every token average has converged (D -> infinity); at finite D the gain "
                           "is positive, as Remark 4.1 reports",
                           falls, pairs, rises, overall_falls, groups));
    res.part("b").on_refuted(Refutation{
        RefutationClass::substantive,
        "the best gain over predicting 0 rises significantly with D for one-layer softmax attention (see the trend cases)",
        {},
        ""});
  }
  res.extra["softmax_by_D"] = softmax_by_D;
  res.part("a").on_refuted(Refutation{RefutationClass::substantive,
                                      "explicit one-layer linear attention weights beat predicting 0 (see the cases)", {},
                                      ""});
  res.extra["error_rates"] = error_rates_json(ctx.alpha, 2 * ctx.cases.size(), looks_planned, Tolerance{0, 0});
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  findings.push_back("Linear one-layer attention: yhat is even in theta for every weight choice (checked to rounding on "
                     "random weights), so the loss is E[y^2] + E[yhat^2] and its minimiser predicts 0 at every D, not "
                     "only for large D.");
  if (!best_soft_at.empty())
    findings.push_back(
        "Softmax one-layer attention at finite D: yhat is not even in theta, and explicit weights beat predicting 0: " +
        best_soft_at +
        ". The weights: values alpha theta0^T x on the x tokens, scores -beta y_i theta0^T x_q on the y tokens; the "
        "softmax normaliser then carries the sign of theta (through sum_i exp(-beta y_i theta0^T x_q)) into the "
        "average of the x tokens' values. Gain E[y^2] - loss by case: " + soft_gains +
        ". The gain shrinks as D grows; the paper's Remark 4.1 reports one-layer losses 'slightly below 1' at D = 30.");
  if (trained) {
    const TrainedSoftmax& t = *trained;
    nlohmann::ordered_json j;
    j["params"] = {{"d", t.d}, {"D", t.D}, {"act", 1}};
    j["what"] = "one-layer softmax attention (V, K full, look-ahead mask) trained with Adam from the search's chosen "
                "weights; losses on fresh prompts (a purpose the training never drew from); a finding, not a verdict";
    j["gain_over_zero"] = quantity_mc(t.gain);
    j["loss"] = quantity_mc(t.loss);
    j["start_loss"] = quantity_mc(t.start_loss);
    j["zero_predictor_loss"] = 1.0;
    j["training_run"] = learn::curve_json(t.result);
    res.extra["trained_softmax"] = j;
    res.extra["training"] = learn::training_json(t.config, {ctx.seed}, false, ctx.claim_id + ".training.svg");
    res.extra["training"]["paper_settings_differences"] =
        "the paper trains GPT-2-style models (Sec. 4.1) and states no optimiser for this one-layer search; ours: Adam, "
        "learning rate 0.01 halved every steps/3, from the explicit search's best weights";
    res.files["training.svg"] = learn::training_svg(
        fmt::format("xlssc.onelayer: one-layer softmax attention, d = {}, D = {}", t.d, t.D), {{"trained", &t.result}});
    if (t.result.ok())
      findings.push_back(fmt::format(
          "Trained one-layer softmax attention at d = {}, D = {} (Adam, {} steps, batch {}): gain_over_zero = E[y_q^2] - loss "
          "= {:.4g}, {:.4g}% interval [{:.4g}, {:.4g}] on {} fresh prompts (the search's explicit weights it started from: "
          "loss {:.4g}). {}",
          t.d, t.D, t.result.steps_done, t.config.batch, t.gain.mean, 100 * t.gain.confidence, t.gain.ci_low, t.gain.ci_high,
          t.gain.samples, t.start_loss.mean,
          t.gain.ci_low > 0 ? "The interval excludes 0: an optimised softmax layer beats predicting 0 at this finite D."
                            : "The interval does not exclude 0."));
    else
      findings.push_back(fmt::format("Training the one-layer softmax attention at d = {}, D = {} stopped: {} ({}); no gain reported.",
                                     t.d, t.D, learn::to_string(t.result.status), t.result.reason));
  }
  res.extra["findings"] = findings;
  const Verdict v = claim_verdict(ctx, res);
  res.summary = fmt::format(
      "{}: linear attention: the symmetry argument is exact and 0 is the loss minimiser at every D; softmax "
      "(asymptotic, the paper's explanation 'assumes there are a large number of examples D'): the best gain over "
      "predicting 0 found falls with D ({} of {} steps significantly, none rising){}.",
      to_string(v), falls, pairs,
      best_soft_at.empty() ? std::string()
                           : "; at finite D explicit softmax weights beat predicting 0 (a finding; best " + best_soft_at + ")");
  return res;
}

const RegisterClaim reg{Claim{
    "xlssc.onelayer",
    "One-layer attention on unstructured prompts predicts 0",
    "004_08551e4fc738af47.txt, Section 4.2",
    "Unstructured prompts, theta ~ (1/2) delta_{theta0} + (1/2) delta_{-theta0}: a one-layer (linear or softmax) "
    "attention's loss-minimising prediction is 0.",
    {ParamSpec{"d", {2, 5}, {2}, 1, 64, true, "input dimension"},
     ParamSpec{"D", {2, 10, 30}, {2, 10}, 1, 100000, true, "examples in the prompt"},
     ParamSpec{"act", {0, 1}, {0, 1}, 0, 1, true, "0: linear phi, 1: softmax"}},
    262144,
    16384,
    [](const Case& c, int threads) { return threads * 8.0 * 8 * (c.geti("d") + 1.0) * (2.0 * c.geti("D") + 1); },
    run,
    {PartSpec{"a",
              "Linear phi, theta ~ (1/2) delta_{theta0} + (1/2) delta_{-theta0}, D sufficiently large: to minimise the "
              "loss one must have yhat_query = 0.",
              Strength::asymptotic},
     PartSpec{"b",
              "Softmax phi: due to the symmetry of theta's distribution a similar issue happens and the best prediction "
              "result is also 0 (the explanation assumes a large number of examples D, Remark 4.1).",
              Strength::asymptotic}}}};

}  // namespace
}  // namespace icl
