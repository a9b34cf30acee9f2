// xlssc.twolayer — Xing, Lin, Suh, Song, Cheng (004), Section 4.3, eqs. (4)-(5), Appendix A.
//
// Statement: two attention layers with the look-ahead mask on unstructured prompts E_2: layer 1
// softmax with W^K = W^Q = 0, W^V = I (causal averaging); layer 2 linear with
// (W^K)^T W^Q = [I_d / log D, 0; 0, 0] and last row of W_out W^V = (0, ..., 0, 1) give
//   yhat_q ~ x_q^T (sum_i (1/i - 1/(2D)) x_i x_i^T) theta / log D + eps / log D ~ y_q,
// with eps "small when D is large enough": the error shrinks as D grows.
//
// Setting (Sec. 3): x ~ N(0, I_d), theta ~ N(0, I_d / d), y = x^T theta, d = 5 as in the paper's
// experiments. Everything is measured through the real forward pass (lib/icl/model/softmax_attention) of
// constructions/xlssc_sec4, per D:
//   stated           0 (yhat ~ y_q)
//   mc               E (yhat - y_q)^2
//   exact            E[y_q^2] = 1 (what predicting 0 costs: E|x|^2 / d)
//   excess           E[(yhat - y_q)^2 - y_q^2], paired on the same prompts: below 0 iff the
//                    construction beats predicting 0
//   slope            E[yhat y_q] / E[y_q^2]; eq. (5)'s main term predicts (H_D - 1/2) / log D
//                    (`slope_eq5`) in expectation over the context
//   eq5_main_loss    E (m - y_q)^2 for eq. (5)'s main term m (no eps), on the same prompts
//   eps_share        E (yhat - m)^2: what eq. (5) calls eps / log D (plus the residual stream's
//                    sum y_i / (2D+1), which (5) leaves out)
//   loss_times_logD  mc * log D, roughly constant if the error decays like 1 / log D
// Case verdict, for "yhat_q ~ y_q" read in its weakest sense (better than predicting 0): confirmed if
// the excess interval lies below 0, refuted if above, else inconclusive. Trend cases (D, D_next): the
// loss at D_next is below the loss at D (intervals of the difference, Bonferroni), confirming "the
// error shrinks as D grows".
#include "constructions/xlssc_sec4.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/verdict/checks.hpp"

#include <fmt/format.h>

#include <cmath>

namespace icl {
namespace {

enum : int { kLoss = 0, kExcess, kY2, kCross, kEq5Loss, kEps, kDims };

class TwoLayerWorker {
public:
  TwoLayerWorker(const AttentionStack& model, int d, int D, std::uint64_t seed, std::uint64_t purpose)
      : model_(&model), d_(d), D_(D), seed_(seed), purpose_(purpose), X_(d, D + 1), theta_(d), y_(D + 1),
        Z_(d + 1, 2 * D + 1) {}
  void operator()(std::uint64_t i, double* out) {
    PromptRng rng(seed_, purpose_, i);
    rng.fill_normal(theta_);
    theta_ /= std::sqrt(static_cast<double>(d_));  // theta ~ N(0, I/d)
    rng.fill_normal(X_);
    y_ = theta_.transpose() * X_;
    embed_unstructured(X_, y_.head(D_), Z_);
    model_->forward(Z_, /*prediction_only=*/true);
    const double yhat = unstructured_prediction(Z_), yq = y_[D_];
    const double m = xlssc::eq5_main_term(X_, theta_);
    out[kLoss] = (yhat - yq) * (yhat - yq);
    out[kExcess] = yhat * yhat - 2 * yhat * yq;
    out[kY2] = yq * yq;
    out[kCross] = yhat * yq;
    out[kEq5Loss] = (m - yq) * (m - yq);
    out[kEps] = (yhat - m) * (yhat - m);
  }

private:
  const AttentionStack* model_;
  int d_, D_;
  std::uint64_t seed_, purpose_;
  Eigen::MatrixXd X_;
  Eigen::VectorXd theta_;
  Eigen::RowVectorXd y_;
  Eigen::MatrixXd Z_;
};

double harmonic(int D) {
  double h = 0;
  for (int i = 1; i <= D; ++i) h += 1.0 / i;
  return h;
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimResult res;
  // Bonferroni over the D cases and the trend comparisons (at most as many).
  const double alpha_case = ctx.alpha / (2.0 * static_cast<double>(ctx.cases.size()));
  std::size_t done = 0, looks_planned = 0;
  struct Row {
    int d, D;
    Estimate loss;
  };
  std::vector<Row> rows;
  bool refuted_at_paper_setting = false;
  std::string eq5;
  for (const auto& c : ctx.cases) {
    const int d = c.geti("d"), D = c.geti("D");
    const AttentionStack model = xlssc::twolayer(d, D);
    const std::uint64_t purpose = ctx.purpose(c.label());
    auto make_worker = [&] { return TwoLayerWorker(model, d, D, ctx.seed, purpose); };
    const auto looks = sequential_looks(2048, std::max<std::uint64_t>(ctx.samples, 2048));
    looks_planned = std::max(looks_planned, looks.size());
    const double alpha_look = alpha_case / static_cast<double>(looks.size());
    MonteCarlo mc(kDims, ctx.threads);
    Estimate loss, excess;
    Decision vs_zero;
    for (std::uint64_t k : looks) {
      mc.extend_to(k, make_worker);
      const Accumulator a = mc.total();
      loss = make_estimate(a, kLoss, 1 - alpha_look);
      excess = make_estimate(a, kExcess, 1 - alpha_look);
      vs_zero = judge_mc_upper_bound(excess, 0.0, Tolerance{0, 0}, alpha_look);
      if (vs_zero.verdict != Verdict::inconclusive && mc.samples() >= 8192) break;
    }
    const Accumulator a = mc.total();
    const double y2 = a.mean[kY2], slope = a.mean[kCross] / y2;
    const double slope_eq5 = (harmonic(D) - 0.5) / std::log(static_cast<double>(D));
    // confirmed: beats predicting 0 (excess < 0); refuted: worse than predicting 0.
    Verdict v = vs_zero.verdict;
    if (v == Verdict::refuted && D == 30 && d == 5) refuted_at_paper_setting = true;
    CaseJson j(c);
    j.quantity("stated", 0.0);  // yhat ~ y_q: (asymptotically) zero error
    j.quantity("exact", 1.0);
    j.quantity("mc", loss);
    j.quantity("excess", excess);
    j.quantity("slope", slope);
    j.quantity("slope_eq5", slope_eq5);
    j.quantity("eq5_main_loss", a.mean[kEq5Loss]);
    j.quantity("eps_share", a.mean[kEps]);
    j.quantity("loss_times_logD", loss.mean * std::log(static_cast<double>(D)));
    j.verdict(v, fmt::format(
        "E(yhat - y_q)^2 = {:.4g} +/- {:.2g} against E[y_q^2] = 1 (predicting 0); paired excess over predicting 0: {}. "
        "Slope E[yhat y_q]/E[y_q^2] = {:.4f} (eq. (5) main term: {:.4f}); eq. (5) main term alone has loss {:.4g}; "
        "E(yhat - main term)^2 = {:.4g}.",
        loss.mean, (loss.ci_high - loss.ci_low) / 2, vs_zero.why, slope, slope_eq5, a.mean[kEq5Loss], a.mean[kEps]));
    j.decision("vs_predicting_zero", vs_zero);
    res.cases.push_back(j.take());
    rows.push_back({d, D, loss});
    eq5 += fmt::format("{}D={}: {:.3g}; {:.3f} vs {:.3f}; {:.3g}", eq5.empty() ? "" : " | ", D, a.mean[kEq5Loss], slope,
                       slope_eq5, a.mean[kEps]);
    if (ctx.progress) ctx.progress(++done, ctx.cases.size());
  }
  // Trend: loss(D_next) < loss(D) for consecutive D at the same d.
  std::size_t shrinking = 0, trend_pairs = 0;
  for (std::size_t k = 0; k + 1 < rows.size(); ++k) {
    if (rows[k].d != rows[k + 1].d || rows[k + 1].D <= rows[k].D) continue;
    ++trend_pairs;
    const double diff = rows[k].loss.mean - rows[k + 1].loss.mean;
    const double se = std::hypot(rows[k].loss.stderr_, rows[k + 1].loss.stderr_);
    const double z = normal_quantile(1 - alpha_case / 2);
    Decision dd;
    dd.band = 0;
    dd.detectable = (z + normal_quantile(0.95)) * se;
    if (diff - z * se > 0) {
      dd.verdict = Verdict::confirmed;
      ++shrinking;
    } else if (diff + z * se < 0) {
      dd.verdict = Verdict::refuted;
    }
    dd.why = fmt::format("loss {:.4g} at D={} minus loss {:.4g} at D={}: {:.4g} +/- {:.2g}", rows[k].loss.mean,
                         rows[k].D, rows[k + 1].loss.mean, rows[k + 1].D, diff, z * se);
    CaseJson j(nlohmann::ordered_json{{"d", rows[k].d}, {"D", rows[k].D}, {"D_next", rows[k + 1].D}});
    j.field("check", "trend: the error shrinks as D grows");
    j.quantity("loss_drop", diff);
    j.quantity("loss_drop_halfwidth", z * se);
    j.verdict(dd.verdict, dd.why);
    j.decision("trend", dd);
    res.cases.push_back(j.take());
  }
  res.extra["error_rates"] = error_rates_json(ctx.alpha, 2 * ctx.cases.size(), looks_planned, Tolerance{0, 0});
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  std::string table;
  for (const auto& r : rows)
    table += fmt::format("{}D={}: {:.3g} (x log D = {:.3g})", table.empty() ? "" : "; ", r.D, r.loss.mean,
                         r.loss.mean * std::log(static_cast<double>(r.D)));
  findings.push_back("E(yhat - y_q)^2 by D (E[y_q^2] = 1): " + table + ".");
  findings.push_back(fmt::format("The loss drops between consecutive D in {} of {} comparisons.", shrinking, trend_pairs));
  if (!rows.empty()) {
    const double c = rows.back().loss.mean * std::log(static_cast<double>(rows.back().D));
    findings.push_back(fmt::format(
        "If the loss keeps falling like C / log D with C = {:.3g} (its value at D = {}), it reaches E[y_q^2] = 1 only "
        "near D = exp(C) = {:.2g} (an extrapolation, not a measurement).",
        c, rows.back().D, std::exp(c)));
  }
  findings.push_back("Eq. (5)'s main term alone, by D (loss; slope E[yhat y_q]/E[y_q^2] of the construction against "
                     "(H_D - 1/2)/log D; E(yhat - main term)^2, the part eq. (5) calls eps / log D): " + eq5 + ".");
  findings.push_back("Layer 1's output is eq. (4) exactly (tests/test_softmax_attention.cpp); App. A's second display "
                     "prints x_1/3 + x_2/3 in the third column, where eq. (4) and the computation give x_1/3 + 4 x_2/3.");
  res.extra["findings"] = findings;
  const Verdict v = aggregate_verdict(res.cases);
  res.summary = fmt::format("{}: the loss falls with D ({} of {} steps) but stays {} E[y_q^2] = 1{}: {}.", to_string(v),
                            shrinking, trend_pairs, v == Verdict::refuted ? "above" : "near",
                            refuted_at_paper_setting ? ", the cost of predicting 0, also at the paper's d = 5, D = 30" : "",
                            table);
  return res;
}

const RegisterClaim reg{Claim{
    "xlssc.twolayer",
    "Two-layer look-ahead construction gives y_q approximately",
    "004_08551e4fc738af47.txt, Section 4.3, eqs. (4)-(5), Appendix A",
    "Two layers with the look-ahead mask: layer 1 softmax with W^K = W^Q = 0, W^V = I (causal averaging); layer 2 "
    "with (W^K)^T W^Q = [I_d/log D, 0; 0, 0] gives yhat_q ~ y_q, the error shrinking as D grows.",
    {ParamSpec{"d", {5}, {5}, 1, 64, true, "input dimension"},
     ParamSpec{"D", {10, 30, 100, 300, 1000, 10000}, {10, 30, 100}, 2, 1e6, true, "examples in the prompt"}},
    65536,
    8192,
    [](const Case& c, int threads) { return threads * 8.0 * 6 * (c.geti("d") + 1.0) * (2.0 * c.geti("D") + 1); },
    run}};

}  // namespace
}  // namespace icl
