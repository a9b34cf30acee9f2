// A claim of one's own, checked with the installed icl-verify library (find_package(iclverify)): the one-step
// gradient-descent construction of von Oswald et al. (2023), "Transformers learn in-context by gradient
// descent", Proposition 1, for linear regression.
//
// Construction (one masked linear self-attention layer on the acds embedding: rows x (d) and y, the query's
// label 0, Z <- Z + (1/n) P Z M Z^T Q Z):
//   P = [[0, 0], [0, -eta]]   (values: the label, scaled by -eta),
//   Q = [[I_d, 0], [0, 0]]    (keys = queries = the x rows),
// so the query's label entry becomes Z[d, n] = -(eta/n) sum_i y_i x_i^T x_q = -yhat_GD, where
// yhat_GD = w_1^T x_q, w_1 = w_0 - eta grad L(w_0), w_0 = 0, L(w) = 1/(2n) sum_i (w^T x_i - y_i)^2.
//
// Claim (stated here, derived by hand; the program checks it, it does not assume it):
//   (a) for every prompt, -Z[d, n] equals one explicit gradient step's prediction;
//   (b) for x ~ N(0, Sigma), w ~ N(0, I), y = <w, x>, the in-context loss E[(yhat_GD - y_q)^2] is
//         L(eta) = tr S - 2 eta tr S^2 + eta^2 ((n+1)/n tr S^3 + tr S tr S^2 / n),   S = Sigma.
//       Derivation: the error is w^T (eta S_n - I) x_q with S_n = (1/n) sum_i x_i x_i^T, so
//       L = E tr((eta S_n - I) S (eta S_n - I)), E[S_n] = S and, by Isserlis,
//       E[S_n S S_n] = (n-1)/n S^3 + (1/n)(2 S^3 + tr(S^2) S).
// Checked three ways per case: `stated` (the formula), `exact` (the library's own Gaussian-moment integration
// of the layer's loss, which knows nothing of the formula), `mc` (Monte Carlo through the forward pass of the
// actual P and Q). The best step is eta* = tr S^2 / ((n+1)/n tr S^3 + tr S tr S^2 / n); at S = I it is
// n/(n+d+1), the scale of acds Theorem 1's optimum, which the report compares with (`optimum`).
//
// Like the library's claims, it declares its paper (RegisterPaper, by its ID's prefix), the names of its coded
// covariance (`cov=rotated`) and its table layout (with_table), which the reports use.
//
// Run with no arguments: writes oswald.prop1.json, oswald.prop1.tex and summary.md into the current folder.
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/claim.hpp"
#include "icl/cli/engine.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/prompt.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/report/paper.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/identity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>

namespace {

using namespace icl;

// The construction.
LinearSelfAttention gd_step_layer(int d, double eta) {
  LinearSelfAttention a;  // masked, scale 1/n
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = -eta;
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d).setIdentity();
  return a;
}

// One explicit gradient step on the in-context least squares from w_0 = 0, and its prediction at the query
// (column n of X). `scale` receives the sum of the absolute terms of the prediction (for relative errors).
double gd_prediction(const Eigen::MatrixXd& X, const Eigen::RowVectorXd& y, int n, double eta, double& scale) {
  const Eigen::Index d = X.rows();
  const Eigen::VectorXd w0 = Eigen::VectorXd::Zero(d);
  Eigen::VectorXd grad = Eigen::VectorXd::Zero(d);
  scale = 0;
  for (int i = 0; i < n; ++i) {
    grad += (w0.dot(X.col(i)) - y[i]) * X.col(i);
    scale += std::abs(eta / n * y[i] * X.col(i).dot(X.col(n)));
  }
  const Eigen::VectorXd w1 = w0 - eta * grad / n;
  return w1.dot(X.col(n));
}

double stated_loss(const Eigen::MatrixXd& S, int n, double eta) {
  const Eigen::MatrixXd S2 = S * S, S3 = S2 * S;
  const double t1 = S.trace(), t2 = S2.trace(), t3 = S3.trace();
  return t1 - 2 * eta * t2 + eta * eta * ((n + 1.0) / n * t3 + t1 * t2 / n);
}

double best_step(const Eigen::MatrixXd& S, int n) {
  const Eigen::MatrixXd S2 = S * S, S3 = S2 * S;
  return S2.trace() / ((n + 1.0) / n * S3.trace() + S.trace() * S2.trace() / n);
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimRun r(ctx);  // the case loop's mechanics: alpha ledger, progress, error_rates, findings, verdict and summary
  const Tolerance tol{0.05, 0.0};          // Monte Carlo against the stated and the exact loss
  const Tolerance exact_tol{1e-9, 1e-12};  // exact against stated (floating point only)
  const IdentityTolerance id_tol;
  const double alpha_case = r.split_alpha(ctx.cases.size());  // Bonferroni over the cases
  double worst_identity = 0, gap_isotropic = 0, gap_other = 0;
  std::string gap_case;
  for (const auto& c : ctx.cases) {
    const int d = c.geti("d"), n = c.geti("n"), cov = c.geti("cov");
    const double eta = c.get("eta");
    const Eigen::MatrixXd sigma = test_covariance(d, cov);
    const GaussianIclModel model = GaussianIclModel::from_task(PolynomialTask::linear(d), sigma);
    const LinearSelfAttention layer = gd_step_layer(d, eta);
    Transformer t;
    t.layers.emplace_back(layer);
    const PromptShape shape = acds_shape(d, n);

    // (a) The identity, prompt by prompt.
    ModelPromptWorker draw(t, model, shape, ctx.seed, ctx.purpose(c.label() + "/identity"));
    Eigen::MatrixXd Z(shape.rows(), shape.cols());
    ForwardWorkspace ws;
    double worst = 0;
    for (std::uint64_t i = 0; i < 2000; ++i) {
      draw.draw(i);
      embed(shape, draw.inputs(), draw.labels(), Z);
      t.forward(Z, ws);
      double scale = 0;
      const double gd = gd_prediction(draw.inputs(), draw.labels(), n, eta, scale);
      worst = std::max(worst, std::abs(-prediction(Z) - gd) / std::max(scale, 1e-300));
    }
    worst_identity = std::max(worst_identity, worst);
    const Decision identity = judge_identity(worst, id_tol, "-Z[d, n] against one explicit GD step, 2000 prompts");

    // (b) The loss: stated, exact (the library's moments of this very layer), Monte Carlo (its forward pass).
    const double stated = stated_loss(sigma, n, eta);
    const auto u = identity_features(d);
    const SingleLayerMoments m = single_layer_moments(model, u);
    const double exact = single_layer_loss(m, single_layer_coefficients({layer}, d, n), n);
    auto make_worker = [&] { return ModelPromptWorker(t, model, shape, ctx.seed, ctx.purpose(c.label())); };
    const EqualityOutcome o = sequential_equality(ctx, alpha_case, stated, exact, tol, exact_tol, 1, 0, 4096, make_worker);
    r.note_looks(o.looks_planned);

    // Beside it: the best plain step and the best single layer (a preconditioned step, acds Theorem 1).
    const double eta_star = best_step(sigma, n);
    const FeatureMoments fm = model_feature_moments(model, u);
    const double optimum = sparse_lsa_loss(fm, optimal_sparse_gamma(fm, n), n);
    const double gap = (stated_loss(sigma, n, eta_star) - optimum) / optimum;
    if (cov == 0) gap_isotropic = std::max(gap_isotropic, std::abs(gap));
    if (cov != 0 && gap > gap_other) {
      gap_other = gap;
      gap_case = c.label();
    }

    Decision v;
    if (identity.verdict == Verdict::refuted || o.verdict.verdict == Verdict::refuted) {
      v.verdict = Verdict::refuted;
      if (identity.verdict == Verdict::refuted) v.basis.push_back("identity");
      if (o.verdict.verdict == Verdict::refuted) v.basis.insert(v.basis.end(), o.verdict.basis.begin(), o.verdict.basis.end());
    } else if (identity.verdict == Verdict::confirmed && o.verdict.verdict == Verdict::confirmed) {
      v.verdict = Verdict::confirmed;
      v.basis = o.verdict.basis;
      v.basis.push_back("identity");
    }
    v.why = fmt::format("(a) {}. (b) {}", identity.why, o.verdict.why);

    CaseJson j(c);
    j.field("covariance", covariance_name(cov));
    j.quantity("stated", stated);
    j.quantity("exact", exact);
    j.quantity("mc", o.mc);
    j.quantity("identity_worst_relative_error", worst);
    j.quantity("best_step", eta_star);
    j.quantity("loss_at_best_step", stated_loss(sigma, n, eta_star));
    j.quantity("optimum", optimum);
    j.verdict(v);
    j.decisions(o);
    j.decision("identity", identity);
    r.add_case(j);
  }
  r.error_rates(tol);
  r.finding(fmt::format("The best plain step eta* is as good as the best single layer (acds Theorem 1's preconditioned "
                   "step) for isotropic inputs (relative gap {:.1e}); for the other covariances run, the single layer "
                   "is better by up to {:.3g}% of its loss ({}).",
                   gap_isotropic, 100 * gap_other, gap_case.empty() ? "none run" : gap_case));
  return r.finish([&](Verdict v) {
    return fmt::format("{}: the layer's prediction is one GD step to a relative {:.1e} at worst; the loss formula "
                       "matches the exact loss and Monte Carlo in every case decided.",
                       to_string(v), worst_identity);
  });
}

// The paper of every claim whose ID starts with "oswald." (its summary.md line and the caption of its table).
const RegisterPaper paper{PaperRef{
    "oswald", "vonoswald2023transformers",
    "Johannes von Oswald, Eyvind Niklasson, Ettore Randazzo, Jo\u00e3o Sacramento, Alexander Mordvintsev, Andrey "
    "Zhmoginov and Max Vladymyrov",
    "von Oswald et al.", "Transformers Learn In-Context by Gradient Descent", 2023,
    "Proceedings of the 40th International Conference on Machine Learning (PMLR 202)",
    "@inproceedings{vonoswald2023transformers,\n  author    = {von Oswald, Johannes and Niklasson, Eyvind and "
    "Randazzo, Ettore and Sacramento, Jo{\\~a}o and Mordvintsev, Alexander and Zhmoginov, Andrey and Vladymyrov, "
    "Max},\n  title     = {Transformers Learn In-Context by Gradient Descent},\n  booktitle = {Proceedings of the "
    "40th International Conference on Machine Learning},\n  series    = {PMLR},\n  volume    = {202},\n"
    "  year      = {2023}\n}\n"}};

// The claim's LaTeX table: the formula against the exact and Monte Carlo losses, and the best single layer beside.
ClaimTable table_layout() {
  return {TableKind::equality,
          "Proposition~1",
          "One LSA layer $=$ one gradient-descent step, and its loss",
          {{"stated", "Formula", "the loss formula derived for the step"},
           exact_column(),
           mc_column(),
           {"optimum", "Best layer", "the exact loss of the best single layer (a preconditioned step)"}}};
}

const RegisterClaim reg{Claim{
    .id = "oswald.prop1",
    .title = "One LSA layer = one gradient-descent step (von Oswald et al. 2023, Prop. 1), and its loss",
    .source = "von Oswald et al. (2023), Transformers learn in-context by gradient descent, Proposition 1; loss derived here",
    .statement = "With P = [[0, 0], [0, -eta]] and Q = [[I, 0], [0, 0]], -Z[d, n] is the prediction of one gradient step of size "
    "eta from w = 0 on the in-context least squares, and for x ~ N(0, S), w ~ N(0, I) its loss is "
    "tr S - 2 eta tr S^2 + eta^2 ((n+1)/n tr S^3 + tr S tr S^2 / n).",
    .params = {ParamSpec{"d", {2, 4}, {2}, 1, 12, true, "input dimension"},
     ParamSpec{"n", {20}, {10}, 1, 1e5, true, "context length"},
     ParamSpec{"eta", {0.5, 1.0}, {0.5}, 0, 10, false, "step size"},
     with_names(ParamSpec{"cov", {0, 2}, {0}, 0, 3, true, "covariance: 0 isotropic, 1 diagonal, 2 rotated, 3 kappa 100"},
                test_covariance_names())},
    .default_samples = 262144,
    .quick_samples = 65536,
    .memory_bytes = [](const Case& c, int threads) { return threads * acds_shape(c.geti("d"), c.geti("n")).workspace_bytes(); },
    .run = run,
    .parts = {PartSpec{"a", "the layer's prediction is one gradient-descent step of size eta, and its loss is the stated formula",
              Strength::theorem}},
    .table = table_layout()}};

}  // namespace

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: own_claim   (no arguments: writes its report into the current folder)\n");
    return 2;
  }
  try {
    RunOptions o;
    o.claims = {"oswald.prop1"};
    o.out = std::filesystem::current_path().string();
    return run_command(o);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "own_claim: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "own_claim: internal failure: %s\n", e.what());
    return 3;
  }
}
