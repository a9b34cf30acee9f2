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
// still slightly below 1. [...] the above theoretical explanation assumes there are a large number of examples D".
//   part (a), linear phi: the loss-minimising prediction is 0. Judged at every D run (stronger than asked):
//     confirmed when yhat is even in theta to rounding (evenness_error <= 1e-9, which proves it for every
//     weight choice) and the best candidate does not beat 0 on the test stream; refuted when a candidate beats 0.
//   part (b), softmax phi: "due to the symmetry of theta distribution, a similar issue happens, and the best
//     prediction result is also 0", under the symmetric law the argument uses. "The best prediction" is the
//     infimum of the loss over weights AT EACH D (weights free to grow with D), so part b is judged at every D of
//     the grid: refuted at a D where some one-layer softmax weights beat predicting 0 on fresh prompts. The
//     adversary is the worst-case search of lib/icl/search (structured starts: the sign probes; random starts at
//     two scales; Adam on fresh minibatches; continuation that doubles the score matrix K, i.e. lowers the
//     softmax temperature, so that the near-hard attention the optimum needs as D grows is reached; then the two
//     leading paths still rising go on in steps of sqrt(2) while their held-out gain improves (two rounds without
//     a new best end a path; 20 rounds in all at most); selection on held-out prompts); the winner is then measured
//     on fresh test prompts (`gain_over_zero` on the whole test stream, with its interval, one-sided test against
//     0). Where nothing beats 0 the case is confirmed only if the search's convergence profile is flat at the end
//     of its budget, else inconclusive.
//   Why the extension and its details (issue 44: at d = 5, D = 30 the search stopped at |K| = 185 with a gain of
//     0.164 on its first 8192 test prompts, 0.174 on 262144, where an independent search reached 0.187, |K| ~ 9e3). In
//     the family of the mechanism below the best gain at d = 5, D = 30 rises slowly with the scale (a scan with (c - k)
//     and the values tuned, 200000 prompts: 0.175 at |K| = 180, 0.180 at 360, 0.183 at 720, 0.185 at 1.4e3, 0.186 at
//     2.9e3, 0.187 at 5.8e3 and 1.2e4), so four doublings from the structured start (|K| = 12 -> 185) stop short.
//     Rescaling K also rescales the near tie c - k, whose best value grows far more slowly (about 3 at |c| = 128, 6 at
//     1e3, 8 at 4e3); Adam at a fixed learning rate moves it by about 1 per refinement, so after each doubling it ended
//     further from its optimum (c - k = 5, 9, 17, 33 along the continuation: the held-out gain peaked at 0.171). Two
//     changes let the path follow the optimum: steps of sqrt(2) in the extension (the tie grows by 41% a round, not
//     100%), and Adam's step on K relative to K's scale above |K| = 200 (kRelativeFrom; with |K| / 30 instead the steps
//     were noisy and c - k wandered off by 14 in one refinement). The test stream runs to its end for the softmax cases
//     (it stopped at its first look, 8192 prompts, with an interval of +-0.027 on the gain).
//   Earlier versions of this file judged part b by the trend of a short search's best gain across D and the
//     limit for FIXED weights as D -> infinity (the paper's symmetry argument does hold there); that interchanges
//     the limit and the infimum: the optimum's weights grow with D and the best gain does not vanish (an
//     independent audit: >= 0.18 at d = 5, D = 30, > 0.15 for D from 2 to 1000).
//   The mechanism (an independent analysis, reproduced by the search's structured starts): with x tokens scored
//     c (theta0^T x_i)(theta0^T x_q), y tokens k y_i (theta0^T x_q), c, k -> -infinity with c - k of order 1
//     (growing far more slowly than c, see above), the top x token and the top y token are the same example exactly
//     when s = +1, so the softmax's split between them leaks s; the values 0.33 theta0^T x and -0.1 y (or the
//     mirror) turn that into a prediction correlated with y_q. The gain needs the scale to grow without bound (it
//     rises slowly with D in that limit, towards about 2/(3 pi) by a rough argument). At D = 2 a "denominator"
//     mechanism (y tokens scored 0, v on the label row) does as well.
//   Finding (not the verdict): under the Gaussian law of the paper's experiments, theta ~ N(0, I/d), the same
//     search's best gain (paired on fresh prompts) is reported at d = 5 for D = 10, 30, 100 with the fitted slope of
//     log gain on log D where every gain is distinguishable from 0 (an independent search: 0.020, 0.0057, 0.0015).
#include "constructions/xlssc_sec42_onelayer.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/param_names.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/worst_case.hpp"
#include "icl/search/search.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/identity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

namespace icl::xlssc_onelayer {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

using Act = SoftmaxAttention::Activation;
using xlssc::Chosen, xlssc::SoftSearch;

Estimate negate(const Estimate& e) {
  Estimate r = e;
  r.mean = -e.mean;
  r.ci_low = -e.ci_high;
  r.ci_high = -e.ci_low;
  return r;
}

SearchBudget softmax_budget(const ClaimContext& ctx, double k) {
  SearchBudget b;
  b.random_starts = ctx.quick ? 2 : 3;
  b.start_scales = ctx.quick ? std::vector<double>{0.1} : std::vector<double>{0.1, 0.5};
  b.continuation_steps = ctx.quick ? 3 : 4;
  b.continuation_factor = 2.0;
  b.refine_effort = ctx.quick ? 40 : 60;
  b.final_effort = ctx.quick ? 100 : 300;
  b.improving_tol = 0.005;
  // The optimum's scale is unbounded (the gain rises slowly with the inverse temperature): the leading paths still
  // rising after the base rounds go on in steps of sqrt(2) while their held-out gain improves (a factor 2 doubles
  // the near tie's score gap each round, faster than the refinement can bring it back).
  b.extend_leaders = ctx.quick ? 1 : 2;
  b.max_continuation_steps = ctx.quick ? 15 : 20;
  b.extend_factor = std::sqrt(2.0);
  b.extend_patience = 2;
  return b.scaled(k);
}

Chosen search_case(const ClaimContext& ctx, const Case& c, int d, int D, const Eigen::VectorXd& theta0,
                   double search_k) {
  Chosen ch;
  ch.found = xlssc::search_softmax(ctx, d, D, theta0, softmax_budget(ctx, search_k), "softmax/" + c.label(),
                            ctx.quick ? 4096 : 8192);
  ch.layer = ch.found->chosen;
  ch.what = fmt::format("the search's best weights (from '{}', |K| = {:.3g}, |v| = {:.3g})", ch.found->search.best_start,
                        ch.layer.K.norm(), ch.layer.V.row(d).norm());
  return ch;
}

// 3. Test stream: the chosen weights' loss and its paired excess over predicting 0, on prompts neither the
//    candidates' fit nor the search drew.
struct TestOutcome {
  Estimate loss, excess;
  Decision vs_zero;
};

// whole_stream (the softmax cases, where the gain itself is a result): the stream runs to its last look even after a
// look has refuted, so that the gain is measured on every prompt of the budget; the decision is the last look's
// where it refutes, else the first refuting look's (each look is a test at alpha_case / looks, Bonferroni over
// looks, so any look's decision keeps the case's error rate).
TestOutcome test_stream(ClaimRun& r, double alpha_case, int d, int D, const Eigen::VectorXd& theta0,
                        const SoftmaxAttention& chosen, std::uint64_t purpose, bool whole_stream) {
  const ClaimContext& ctx = r.ctx();
  auto make_test = [&] {
    return [&, p = xlssc::onelayer_prompt(d, D)](std::uint64_t i, double* out) mutable {
      PromptRng rng(ctx.seed, purpose ^ 0x7e57, i);
      xlssc::draw_sign_prompt(rng, theta0, D, p);
      const double yhat = xlssc::predict_query(chosen, p.Z);
      out[0] = (yhat - p.yq) * (yhat - p.yq);
      out[1] = yhat * yhat - 2 * yhat * p.yq;
    };
  };
  const auto looks = sequential_looks(8192, std::max<std::uint64_t>(ctx.samples, 8192));
  r.note_looks(looks.size());
  const double alpha_look = alpha_case / static_cast<double>(looks.size());
  MonteCarlo test(2, ctx.threads);
  TestOutcome t;
  std::optional<Decision> first_refuting;
  for (std::uint64_t k : looks) {
    test.extend_to(k, make_test);
    t.loss = make_estimate(test.total(), 0, 1 - alpha_look);
    t.excess = make_estimate(test.total(), 1, 1 - alpha_look);
    t.vs_zero = judge_mc_lower_bound(t.excess, 0.0, Tolerance{0, 0}, alpha_look);  // claim: excess >= 0
    if (t.vs_zero.verdict == Verdict::refuted) {
      if (!whole_stream) break;
      if (!first_refuting) first_refuting = t.vs_zero;
    }
  }
  if (first_refuting && t.vs_zero.verdict != Verdict::refuted) t.vs_zero = *first_refuting;
  return t;
}

struct CaseVerdict {
  Verdict v = Verdict::inconclusive;
  std::string why;
  std::vector<std::string> basis;
};

CaseVerdict judge_case(Act act, const Chosen& ch, const Decision& evenness, const TestOutcome& t, const Estimate& gain) {
  CaseVerdict cv;
  if (t.vs_zero.verdict == Verdict::refuted) {
    cv.v = Verdict::refuted;
    cv.why = fmt::format("{} predict better than 0 on fresh prompts: gain over predicting 0 = {:.4g}, {:.4g}% interval "
                         "[{:.4g}, {:.4g}] (loss {:.4g} against E[y_q^2] = 1); excess {}",
                         ch.what, gain.mean, 100 * gain.confidence, gain.ci_low, gain.ci_high, t.loss.mean,
                         t.vs_zero.why);
    cv.basis = {"excess_vs_zero"};
  } else if (act == Act::linear && evenness.verdict == Verdict::confirmed) {
    cv.v = Verdict::confirmed;
    cv.why = fmt::format("{}; so E(yhat - y_q)^2 = E[y_q^2] + E[yhat^2] for every weight choice, minimised by yhat = 0. "
                         "Best candidate on test: excess {}",
                         evenness.why, t.vs_zero.why);
    cv.basis = {"evenness"};
  } else if (act == Act::softmax && !ch.found->search.still_improving) {
    cv.v = Verdict::confirmed;
    cv.why = fmt::format("no weights found beat predicting 0 (excess {}), and the {}", t.vs_zero.why,
                         ch.found->search.describe());
    cv.basis = {"search_converged"};
  } else {
    cv.why = fmt::format("{}; no weights found beat predicting 0: {}{}", evenness.why, t.vs_zero.why,
                         ch.found ? "; " + ch.found->search.describe() : std::string());
  }
  return cv;
}

// The softmax cases' tally, for the findings and the summary.
struct SoftTally {
  std::string gains;
  int cases = 0, refuted = 0;
  double paper_gain = NAN;
};

// One case: evenness, the weights to test, the test stream, the verdict; the case's JSON in its order.
void run_case(ClaimRun& r, const Case& c, double alpha_case, const IdentityTolerance& even_tol, SoftTally& soft) {
  const ClaimContext& ctx = r.ctx();
  const int d = c.geti("d"), D = c.geti("D");
  const Act act = c.geti("act") ? Act::softmax : Act::linear;
  const double search_k = ctx.setting("search");
  Eigen::VectorXd theta0 = Eigen::VectorXd::Zero(d);
  theta0[0] = 1.0;
  const std::uint64_t purpose = ctx.purpose(c.label());

  const WorstCase even = xlssc::evenness_worst(ctx, d, D, act, theta0, purpose);
  const Decision evenness = judge_identity(even.worst[0], even_tol, "yhat(theta0) = yhat(-theta0)");
  const Chosen ch = act == Act::linear ? xlssc::fit_linear_candidates(ctx, d, D, act, theta0, purpose)
                                       : search_case(ctx, c, d, D, theta0, search_k);
  const SoftmaxAttention& chosen = ch.layer;
  const TestOutcome t = test_stream(r, alpha_case, d, D, theta0, chosen, purpose, act == Act::softmax);
  const Estimate gain = negate(t.excess);
  const CaseVerdict cv = judge_case(act, ch, evenness, t, gain);
  if (act == Act::softmax) {
    ++soft.cases;
    soft.refuted += cv.v == Verdict::refuted;
    if (d == 5 && D == 30) soft.paper_gain = gain.mean;
    soft.gains += fmt::format("{}d={}, D={}: {:.3g} [{:.3g}, {:.3g}]", soft.gains.empty() ? "" : "; ", d, D, gain.mean,
                              gain.ci_low, gain.ci_high);
  }
  CaseJson j(c);
  j.part(act == Act::linear ? "a" : "b");
  j.quantity("stated", 1.0);  // best loss = E[y_q^2] (prediction 0)
  j.quantity("exact", theta0.squaredNorm());
  j.quantity("mc", t.loss);
  j.quantity("gain_over_zero", gain);
  j.quantity("excess", t.excess);
  j.quantity("evenness_error", even.worst[0]);
  if (act == Act::linear) {
    j.quantity("train_loss_best", ch.best_train);
    j.quantity("alpha_best", ch.best_alpha);
  }
  j.field("chosen", ch.what);
  if (act == Act::softmax) {
    j.quantity("K_norm", chosen.K.norm());
    j.quantity("search_best_held_out_gain", ch.found->search.best_value);
    j.quantity("weights_v", Eigen::MatrixXd(chosen.V.row(d)));  // the value row (last row of W_out W^V)
    j.quantity("weights_K", chosen.K);
    j.field("search", ch.found->search.to_json());
    j.decision("search_converged",
               Decision{ch.found->search.still_improving ? Verdict::inconclusive : Verdict::confirmed, 0, 0,
                        ch.found->search.describe()});
  }
  j.decision("evenness", evenness);
  j.decision("excess_vs_zero", t.vs_zero);
  j.verdict(cv.v, cv.why, cv.basis);
  r.add_case(j);
}

void declare_refutations(ClaimRun& r) {
  r.part("a").on_refuted(Refutation{RefutationClass::substantive,
                                    "explicit one-layer linear attention weights beat predicting 0 (see the cases)", {},
                                    ""});
  r.part("b").on_refuted(Refutation{
      RefutationClass::substantive,
      "Sec. 4.2: 'For softmax activation, due to the symmetry of theta distribution, a similar issue happens, and the "
      "best prediction result is also 0.' Under the symmetric law theta = +/- theta0 one-layer softmax attention beats "
      "predicting 0 at every D run. The best weights found score x tokens c (theta0^T x_i)(theta0^T x_q) and y tokens "
      "k y_i (theta0^T x_q) with c, k -> -infinity and c - k of order 1: the near-hard attention then picks the "
      "extreme x token and the extreme y token, which are the same example exactly when theta = +theta0 (the y values "
      "are s times the x_i's projections, and a Gaussian sample's max is not minus its min), so the prediction "
      "correlates with s theta0^T x_q = y_q. The gain does not vanish as D grows. The symmetry argument holds for "
      "fixed weights as D -> infinity; the best prediction is the infimum over weights at each D, and the two limits "
      "do not commute",
      {},
      "What holds: with a linear phi the prediction is even in theta and 0 is the minimiser at every D (part a); with "
      "softmax, the best one-layer loss stays below E[y^2] by the gains listed in the cases"});
}

// One row of the Gaussian-law finding: the search at (d, D) under theta ~ N(0, I/d), its winner's gain over
// predicting 0 paired on fresh prompts.
nlohmann::ordered_json gaussian_row(const ClaimContext& ctx, int d, int D, Estimate& ge) {
  // Gains of order 0.01 and below: the held-out set must resolve differences that small (65536 prompts).
  const SoftSearch g = xlssc::search_softmax(ctx, d, D, Eigen::VectorXd(), softmax_budget(ctx, 0.5 * ctx.setting("search")),
                                      fmt::format("gaussian/d={}, D={}", d, D), 65536);
  const icl::Parameterisation p = learn::softmax_stack(d, 1, Act::softmax, true);
  icl::Network net = p.base();
  net.weight(0, "V") = g.chosen.V;
  net.weight(0, "K") = g.chosen.K;
  // The gain paired on the same prompts: E[y_q^2 - (yhat - y_q)^2] per prompt (a far smaller variance than
  // 1 - loss), on fresh prompts neither the refinements nor the selection drew.
  const icl::PromptSource src = icl::unstructured_prompts(d, D);
  const std::uint64_t test_purpose = ctx.purpose(fmt::format("gaussian/d={}, D={}/test", d, D));
  MonteCarlo mc(1, ctx.threads);
  mc.extend_to(std::max<std::uint64_t>(ctx.samples, 131072), [&] {
    return [&, draw = src.make_drawer(), tape = std::make_shared<icl::Tape>(),
            Z = std::make_shared<Eigen::MatrixXd>(src.rows, src.cols)](std::uint64_t i, double* out) {
      const double yq = draw(ctx.seed, test_purpose, i, *Z);
      const double yhat = icl::forward(net, *Z, *tape);
      out[0] = yq * yq - (yhat - yq) * (yhat - yq);
    };
  });
  ge = make_estimate(mc.total(), 0, 0.99);
  return {{"d", d}, {"D", D}, {"gain_over_zero", ge.mean}, {"ci_low", ge.ci_low}, {"ci_high", ge.ci_high},
          {"samples", ge.samples}, {"best_start", g.search.best_start}, {"search", g.search.to_json(8)}};
}

// Under the Gaussian law of the paper's experiments: the best gain at d = 5 across D (extra "gaussian_law" and a
// finding).
void gaussian_law_finding(ClaimRun& r) {
  const ClaimContext& ctx = r.ctx();
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::vector<double> lx, ly;
  std::string text;
  for (int D : {10, 30, 100}) {
    const int d = 5;
    Estimate ge;
    rows.push_back(gaussian_row(ctx, d, D, ge));
    const double gmean = ge.mean;
    text += fmt::format("{}D = {}: {:.4g} [{:.4g}, {:.4g}]", text.empty() ? "" : ", ", D, gmean, ge.ci_low, ge.ci_high);
    if (gmean > 0) lx.push_back(std::log(D)), ly.push_back(std::log(gmean));
  }
  // The slope of log gain on log D only where every gain is significantly positive (otherwise "falls like" would
  // claim more than the intervals show).
  double slope = NAN;
  bool all_positive = true;
  for (const auto& row : rows) all_positive = all_positive && row["ci_low"].get<double>() > 0;
  if (all_positive && lx.size() >= 2) {
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < lx.size(); ++i) mx += lx[i] / lx.size(), my += ly[i] / lx.size();
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < lx.size(); ++i) sxx += (lx[i] - mx) * (lx[i] - mx), sxy += (lx[i] - mx) * (ly[i] - my);
    slope = sxy / sxx;
  }
  r.extra("gaussian_law") = {{"what", "theta ~ N(0, I/d) per prompt (the paper's experiments): the same search (half "
                                      "its budget), best one-layer softmax weights, gain over predicting 0 on fresh "
                                      "prompts (99% interval)"},
                             {"rows", rows},
                             {"log_log_slope", all_positive ? nlohmann::ordered_json(slope) : nlohmann::ordered_json()}};
  r.finding(fmt::format(
      "Under the Gaussian law of the paper's experiments (theta ~ N(0, I/d)), the best one-layer softmax gain over "
      "predicting 0 that the search found at d = 5: {} (99% intervals){}.",
      text,
      all_positive ? fmt::format("; fitted slope of log gain on log D {:.3g}", slope)
                   : "; not every gain is significantly above 0 at this budget, so no rate in D is claimed"));
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimRun r(ctx);
  const IdentityTolerance even_tol;
  // Bonferroni over the cases (one decision each, over its sequential looks).
  const double alpha_case = r.split_alpha(ctx.cases.size());
  SoftTally soft;
  for (const auto& c : ctx.cases) run_case(r, c, alpha_case, even_tol, soft);
  declare_refutations(r);
  r.error_rates(Tolerance{0, 0});
  r.finding("Linear one-layer attention: yhat is even in theta for every weight choice (checked to rounding on "
            "random weights), so the loss is E[y^2] + E[yhat^2] and its minimiser predicts 0 at every D, not "
            "only for large D.");
  if (soft.cases)
    r.finding(fmt::format(
        "Softmax one-layer attention, symmetric law: the best weights the search found beat predicting 0 in {} of {} "
        "cases; gain over predicting 0 on fresh prompts (interval): {}.",
        soft.refuted, soft.cases, soft.gains));
  if (!ctx.quick && ctx.setting("gaussian") != 0) gaussian_law_finding(r);
  return r.finish([&](Verdict v) {
    return fmt::format(
        "{}: linear attention: the symmetry argument is exact and 0 is the loss minimiser at every D; softmax, judged "
        "at each D as stated (the best prediction over weights is 0): the worst-case search's weights beat predicting 0 "
        "in {} of {} cases{}.",
        to_string(v), soft.refuted, soft.cases,
        std::isfinite(soft.paper_gain) ? fmt::format(" (d = 5, D = 30: gain {:.3g})", soft.paper_gain) : std::string());
  });
}

// The layout of the claim's LaTeX table (claim/table.hpp).
ClaimTable table_layout() {
  return with_part_text({TableKind::bound,
          "Section~4.2",
          "One-layer attention on unstructured prompts predicts $0$",
          {{"stated", "Paper", "the stated best loss $\\mathbb{E}[y_q^2]$ (predicting $0$)"},
           {"mc", "Best found", "loss of the best weights found, Monte Carlo on fresh prompts"},
           {"gain_over_zero", "Gain", "gain over predicting $0$, Monte Carlo"}},
          {{"act", "$\\phi$"}}},
      {
       {"a", "linear $\\phi$, $\\theta\\sim\\frac12\\delta_{\\theta_0}+\\frac12\\delta_{-\\theta_0}$, $D$ large enough: the loss is minimised only by $\\hat y_{\\mathrm{query}}=0$"},
       {"b", "softmax $\\phi$: by the symmetry of $\\theta$'s law the best prediction is also $0$ (judged at each $D$: no one-layer softmax weights beat predicting $0$)"}});
}

const RegisterClaim reg{Claim{
    .id = "xlssc.onelayer",
    .title = "One-layer attention on unstructured prompts predicts 0",
    .source = "Xing, Lin, Suh, Song and Cheng (2024), Section 4.2",
    .statement = "Unstructured prompts, theta ~ (1/2) delta_{theta0} + (1/2) delta_{-theta0}: a one-layer (linear or softmax) "
    "attention's loss-minimising prediction is 0.",
    .params = {ParamSpec{"d", {2, 5}, {2}, 1, 64, true, "input dimension"},
     ParamSpec{"D", {2, 10, 30, 100}, {2, 10}, 1, 100000, true, "examples in the prompt"},
     with_names(ParamSpec{"act", {0, 1}, {0, 1}, 0, 1, true, "0: linear phi, 1: softmax"},
                numbered_names({"linear", "softmax"})),
     ParamSpec{"search", {1}, {1}, 0.25, 64, false,
               "softmax search budget multiplier (random starts, effort and continuation rounds grow with it)", true},
     ParamSpec{"gaussian", {1}, {1}, 0, 1, true,
               "1: also the Gaussian-law finding (three searches at d = 5, D = 10, 30, 100; not at --quick); 0: "
               "without it (a focused run of a few cases)", true}},
    .default_samples = 262144,
    .quick_samples = 16384,
    .memory_bytes = [](const Case& c, int threads) { return threads * 8.0 * 8 * (c.geti("d") + 1.0) * (2.0 * c.geti("D") + 1); },
    .run = run,
    .parts = {PartSpec{"a",
              "Linear phi, theta ~ (1/2) delta_{theta0} + (1/2) delta_{-theta0}, D sufficiently large: to minimise the "
              "loss one must have yhat_query = 0.",
              Strength::asymptotic},
     PartSpec{"b",
              "Softmax phi: due to the symmetry of theta's distribution a similar issue happens and the best prediction "
              "result is also 0 (judged at each D: no one-layer softmax weights beat predicting 0).",
              Strength::theorem}},
    .table = table_layout()}};

}  // namespace icl::xlssc_onelayer
