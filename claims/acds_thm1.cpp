// acds.thm1 — Ahn, Cheng, Daneshmand, Sra (002), Theorem 1 and Appendix A.
//
// Statement: x ~ N(0, Sigma), Sigma = U Lam U^T, w ~ N(0, I), y = <w, x>, n context examples, masked
// linear attention with the 1/n scale. A global minimiser of the single-layer in-context loss is, up to
// P0 -> g P0, Q0 -> Q0 / g,
//   P0 = e e^T,  Q0 = -[ U diag(1 / ((n+1)/n lam_i + tr(Lam)/n)) U^T, 0 ; 0, 0 ].
// Sign convention: Appendix A.1 writes the loss as E[(Z_1[d+1, n+1] + w^T x_q)^2], i.e. the raw entry
// approximates -y, which is the convention that makes Q0 negative (the main text's TF = -Z[...] with
// (TF + y)^2 would flip the sign of Q0; nothing else changes).
//
// Quantities (per case):
//   stated       the exact loss of the stated (P0, Q0);
//   exact        the exact minimum of the loss: over the sparse form, Gamma* = -M^+ S Lam^+ from exact
//                moments (lib/icl/exact/optimal_attention.hpp), and over the full last row of P and full Q by
//                alternating exact solves from random starts (`general_best`);
//   mc           the loss of the stated (P0, Q0) through the real forward pass;
//   stated_matrix / exact_matrix / mc_matrix: the Q0 block, Gamma*, and a Monte Carlo least-squares
//                fit of the optimal Gamma through the forward pass (with per-entry standard errors from 20
//                batches; the query integrated out exactly given the context; a second look on 8x the prompts
//                only where some entry is still undecided);
//   trained_matrix (isotropic d = 5, n = 20, the setting of the acds authors' code): -A_0 of a single layer in
//                form (8) (P0 = e e^T frozen, Q0 = -[A_0, 0; 0, 0]) trained by the project's trainer
//                (lib/icl/learn) with Adam on fresh minibatches, from A_0 ~ N(0, 0.1^2); judged by
//                ||trained - stated||_F / ||stated||_F <= 0.05 (decision `trained_matrix`; the minibatch noise
//                left after the decayed learning rate is well inside it). A diverged run makes the case
//                inconclusive with its reason; a trained matrix outside the tolerance makes it inconclusive too
//                (the exact minimiser decides the theorem; training that misses it is an optimisation finding).
#include "constructions/sja_appC.hpp"
#include "constructions/acds_forms.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/montecarlo/least_squares_gamma.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/search/search.hpp"
#include "icl/verdict/matrix_check.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/mutation.hpp"

#include <optional>

namespace icl {
namespace {
namespace acds_thm1 {  // named, so that a unity build (several claim files in one unit) keeps them apart

// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kStated{"acds.thm1/stated_Q", "acds.thm1", "Q0 = -U diag(1/((n+1)/n lambda_i + tr/n)) U^T", true};

Eigen::MatrixXd stated_gamma(const Eigen::MatrixXd& sigma, int n) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(sigma);
  const Eigen::VectorXd lam = es.eigenvalues();
  const double tr = lam.sum();
  Eigen::VectorXd dg(lam.size());
  for (Eigen::Index i = 0; i < lam.size(); ++i) dg[i] = 1.0 / ((n + 1.0) / n * lam[i] + tr / n);
  return kStated(Eigen::MatrixXd(-es.eigenvectors() * dg.asDiagonal() * es.eigenvectors().transpose()));
}

struct Trained {
  learn::TrainConfig config;
  learn::TrainResult result;
  Eigen::MatrixXd gamma;
  Decision decision;
  double relative = NAN, exact_loss = NAN;
};

// Trains the single-layer form (8) and judges -A_0 against the stated block.
Trained train_single_layer(const ClaimContext& ctx, const std::string& label, const GaussianIclModel& model, int d, int n,
                           const FeatureMoments& fm, const Eigen::MatrixXd& G_stated) {
  constexpr double kTol = 0.05;
  Trained t;
  const learn::Parameterisation p = learn::acds_form8(d, 1);
  learn::TrainConfig& c = t.config;
  c.optimizer = "adam";
  c.learning_rate = 0.02;
  c.batch = ctx.quick ? 1000 : 2000;
  c.steps = ctx.quick ? 300 : 800;
  c.lr_decay_every = c.steps / 4;
  c.lr_decay = 0.3;
  c.test_batch = ctx.quick ? 1000 : 4000;
  c.curve_points = 50;
  c.seed = ctx.seed;
  c.purpose = ctx.purpose(label + "/train");
  c.threads = ctx.threads;
  c.label = "acds.thm1 " + label;
  t.result = learn::train(p, learn::normal_theta(p, 0.1, ctx.seed, ctx.purpose(label + "/init")),
                          learn::gaussian_prompts(model, acds_shape(d, n)), learn::LossSpec::acds(), c);
  t.gamma = -p.group_matrix("A_0", t.result.theta);
  t.relative = (t.gamma - G_stated).norm() / G_stated.norm();
  t.exact_loss = sparse_lsa_loss(fm, t.gamma, n);
  t.decision.band = kTol;
  if (!t.result.ok()) {
    t.decision.verdict = Verdict::inconclusive;
    t.decision.why = fmt::format("training {}: {}", learn::to_string(t.result.status), t.result.reason);
  } else {
    t.decision.verdict = t.relative <= kTol ? Verdict::confirmed : Verdict::refuted;
    t.decision.why = fmt::format("trained (Adam, {} steps, batch {}): ||trained - Q0 block||_F / ||Q0 block||_F = {:.3g} "
                                 "({} {:.2g}); its exact loss {:.6g}",
                                 t.result.steps_done, c.batch, t.relative, t.relative <= kTol ? "<=" : ">", kTol,
                                 t.exact_loss);
  }
  return t;
}

const Tolerance kLossTol{0.05, 0.0};  // Monte Carlo loss of the stated weights against the exact minimum

// Full P (last row) and full Q: alternating exact solves from random starts, and the multi-start search's profile
// ("no full (P, Q) beats the sparse optimum" rests on it).
struct FullWeights {
  double best = INFINITY;
  SearchResult search;
};

FullWeights search_full_weights(const ClaimContext& ctx, const Case& c, const SingleLayerMoments& sm, int d, int n,
                                int starts, double L_exact) {
  FullWeights f;
  std::vector<double> start_values;
  for (int s = 0; s < starts; ++s) {
    PromptRng rng(ctx.seed, ctx.purpose(c.label() + "/start"), static_cast<std::uint64_t>(s));
    Eigen::VectorXd b(d + 1);
    Eigen::MatrixXd A(d + 1, d);
    rng.fill_normal(b);
    rng.fill_normal(A);
    const double l = alternating_single_layer(sm, n, b, A).loss;
    start_values.push_back(-l);
    f.best = std::min(f.best, l);
  }
  f.search = profile_of_starts({}, start_values, 1, "alternating exact solves (one per start)", 1e-9 * std::abs(L_exact));
  return f;
}

// The least-squares fit of the optimal Gamma through the forward pass, judged against the stated block. The query is
// integrated out exactly given the context (least_squares_gamma.hpp, conditional form): Psi holds the exact second
// moments of the query's (x, label basis), not Gamma* or the loss. Two looks (Bonferroni: alpha_case / 4 each): a
// quarter of the budget, then, only where some entry is still too noisy to decide, a fresh fit on twice the budget
// (budget moved to the cases that need it: n = 2).
struct GammaFit {
  GammaLeastSquares lsq;
  Decision decision;
};

GammaFit fit_gamma(const ClaimContext& ctx, const Case& c, const GaussianIclModel& model, const PromptShape& shape,
                   const Eigen::MatrixXd& Psi, const Eigen::MatrixXd& G_stated, double alpha_case) {
  const Transformer none;
  GammaFit f;
  for (int look = 0; look < 2; ++look) {
    f.lsq = mc_least_squares_gamma(none, model, shape, ctx.seed, ctx.purpose(c.label() + (look ? "/lsq8" : "/lsq")),
                                   ctx.threads, look ? 2 * ctx.samples : ctx.samples / 4, 20, +1.0, &Psi);
    f.decision = judge_matrix_equal(f.lsq, G_stated, 0.1 * G_stated.cwiseAbs().maxCoeff(), alpha_case / 4);
    if (f.decision.verdict != Verdict::inconclusive) break;
  }
  return f;
}

// Case verdict: refuted only where the exact computation and the Monte Carlo fit both disagree with the stated matrix
// (or a non-sparse layer beats it exactly and Monte Carlo agrees on its loss); confirmed only when every check
// confirms. The least-squares fit is an independent measurement of the minimiser; at these budgets it can contradict
// the stated matrix (refute) but is too noisy to be required for confirmation (its detectable discrepancy is
// reported).
Decision case_verdict(const Decision& mat_exact, const Decision& mat_mc, const EqualityOutcome& o, const Decision& general,
                      const Trained* trained) {
  Decision v;
  if (mat_exact.verdict == Verdict::refuted && mat_mc.verdict == Verdict::refuted) {
    v.verdict = Verdict::refuted;
    v.basis = {"matrix_exact", "matrix_mc"};
  } else if (o.verdict.verdict == Verdict::refuted) {
    v.verdict = Verdict::refuted;
    v.basis = o.verdict.basis;
  } else if (mat_exact.verdict == Verdict::confirmed && mat_mc.verdict != Verdict::refuted &&
             o.verdict.verdict == Verdict::confirmed && general.verdict == Verdict::confirmed &&
             (!trained || trained->decision.verdict == Verdict::confirmed)) {
    v.verdict = Verdict::confirmed;
    v.basis = o.verdict.basis;
    v.basis.insert(v.basis.end(), {"matrix_exact", "full_weights"});
    if (trained) v.basis.push_back("trained_matrix");
  } else {
    v.verdict = Verdict::inconclusive;
  }
  v.why = fmt::format("matrix: exact {} ({}); Monte Carlo fit {} ({}). Loss: {}. Full P, Q: {}.",
                      to_string(mat_exact.verdict), mat_exact.why, to_string(mat_mc.verdict), mat_mc.why,
                      o.verdict.why, general.why);
  if (trained) v.why += fmt::format(" Training: {} ({}).", to_string(trained->decision.verdict), trained->decision.why);
  return v;
}

// What the run keeps across cases for the summary.
struct Tally {
  int starts = 0;
  double worst_rel = 0, best_general_gain = -INFINITY;
  std::string worst;
  std::optional<Trained> trained;
};

// One case: the exact minimiser and the stated block, the full-weights search, Monte Carlo (the stated weights' loss
// and the least-squares fit of Gamma), and, in the setting of the acds authors' code, the project's trainer.
void judge_case(ClaimRun& r, const Case& c, double alpha_case, Tally& t) {
  const ClaimContext& ctx = r.ctx();
  const Tolerance tol = kLossTol;
  const Tolerance exact_tol{1e-9, 1e-12};
  const int d = c.geti("d"), cov = c.geti("cov"), n = c.geti("n");
  const Eigen::MatrixXd sigma = test_covariance(d, cov);
  const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), sigma);
  const auto u = identity_features(d);
  const FeatureMoments fm = model_feature_moments(model, u);
  const Eigen::MatrixXd G_exact = optimal_sparse_gamma(fm, n);
  const Eigen::MatrixXd G_stated = stated_gamma(sigma, n);
  const double L_exact = sparse_lsa_loss(fm, G_exact, n);
  const double L_stated = sparse_lsa_loss(fm, G_stated, n);
  const double rel = (G_exact - G_stated).norm() / G_exact.norm();

  const FullWeights general_search = search_full_weights(ctx, c, single_layer_moments(model, u), d, n, t.starts, L_exact);
  const double general_best = general_search.best;
  t.best_general_gain = std::max(t.best_general_gain, (L_exact - general_best) / L_exact);
  const double minimum = std::min(L_exact, general_best);

  // Monte Carlo: the stated construction's loss, and a least-squares fit of the optimal Gamma.
  const Transformer block = [&] {
    Transformer b;
    b.layers.emplace_back(sja::sparse_attention(G_stated));
    return b;
  }();
  const PromptShape shape = acds_shape(d, n);
  const std::uint64_t purpose = ctx.purpose(c.label());
  auto make_worker = [&] { return ModelPromptWorker(block, model, shape, ctx.seed, purpose); };
  auto o = sequential_equality(ctx, alpha_case / 2, L_stated, minimum, tol, exact_tol, 1, 0, 4096, make_worker,
                               std::min<std::uint64_t>(ctx.samples, 16384));
  r.note_looks(2 * o.looks_planned);  // error_rates counts twice the loss check's looks
  const GammaFit fit = fit_gamma(ctx, c, model, shape, query_moment_matrix(model, u), G_stated, alpha_case);
  const GammaLeastSquares& lsq = fit.lsq;
  Decision mat_exact;
  mat_exact.band = exact_tol.rel;
  mat_exact.verdict = rel <= exact_tol.rel ? Verdict::confirmed : Verdict::refuted;
  mat_exact.why = fmt::format("||Gamma* - Q0 block||_F / ||Gamma*||_F = {:.3g} ({} {:.0e})", rel,
                              rel <= exact_tol.rel ? "<=" : ">", exact_tol.rel);
  Decision general;
  general.verdict = general_best >= L_exact * (1 - 1e-9)
                        ? (general_search.search.still_improving ? Verdict::inconclusive : Verdict::confirmed)
                        : Verdict::refuted;
  general.why = fmt::format("best full (b, A) from {} starts: {:.10g}; sparse optimum {:.10g}", t.starts, general_best,
                            L_exact);

  // The project's trainer, in the setting of the acds authors' code.
  if (d == 5 && cov == 0 && n == 20) t.trained = train_single_layer(ctx, c.label(), model, d, n, fm, G_stated);
  const Trained* trained = t.trained && d == 5 && cov == 0 && n == 20 ? &*t.trained : nullptr;
  const Decision v = case_verdict(mat_exact, fit.decision, o, general, trained);
  if (rel >= t.worst_rel) {
    t.worst_rel = rel;
    t.worst = c.label();
  }

  CaseJson j(c);
  j.field("covariance", covariance_name(cov, d));
  j.quantity("stated", L_stated);
  j.quantity("exact", minimum);
  j.quantity("mc", o.mc);
  j.quantity("exact_sparse_optimum", L_exact);
  j.quantity("general_best", general_best);
  j.field("general_search", general_search.search.to_json(12));
  j.quantity("stated_matrix", G_stated);
  j.quantity("exact_matrix", G_exact);
  j.quantity("mc_matrix", lsq.gamma);
  j.quantity("mc_matrix_stderr", lsq.stderr_);
  j.quantity("matrix_relative_difference", rel);
  j.quantity("sigma", sigma);
  if (trained) {
    j.quantity("trained_matrix", trained->gamma);
    j.quantity("trained_relative_difference", trained->relative);
    j.quantity("trained_exact_loss", trained->exact_loss);
    j.field("training_run", learn::curve_json(trained->result));
  }
  j.verdict(v.verdict, v.why, v.basis);
  j.decisions(o);
  j.decision("matrix_exact", mat_exact);
  j.decision("matrix_mc", fit.decision);
  j.decision("full_weights", general);
  j.decision("mc_matrix_samples", lsq.samples);
  if (trained) j.decision("trained_matrix", trained->decision);
  r.add_case(j);
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  Tally t;
  t.starts = ctx.quick ? 3 : 8;
  for (const auto& c : ctx.cases) judge_case(r, c, alpha_case, t);
  r.error_rates(kLossTol);
  if (t.trained) {
    r.extra("training") = learn::training_json(t.trained->config, {ctx.seed}, false, ctx.claim_id + ".training.svg");
    r.result().files["training.svg"] =
        learn::training_svg("Single layer, form (8), d = 5, n = 20, isotropic", {{"A_0", &t.trained->result}});
  }
  return r.finish([&](Verdict v) {
    return fmt::format(
        "{}: the exact minimiser equals the stated Q0 block to a relative {:.1e} at worst ({}); no full (P, Q) found "
        "beats the sparse optimum (largest relative gain {:.1e}); Monte Carlo loss of the stated weights against its "
        "exact value: {}.",
        to_string(v), t.worst_rel, t.worst, t.best_general_gain, tally_decisions(r.cases(), "mc_vs_stated"));
  });
}

// The layout of the claim's LaTeX table (report/table.hpp).
ClaimTable table_layout() {
  return {TableKind::equality,
          "Theorem~1",
          "Single-layer global minimiser of LSA for $x\\sim\\mathcal{N}(0,\\Sigma)$",
          {{"stated", "Paper", "loss at the stated minimiser"},
           {"exact", "Exact opt.", "exact optimum"},
           mc_column(),
           {"matrix_relative_difference", "Matrix diff.", "relative difference, stated vs.\\ exact $Q_0$"}}};
}

const RegisterClaim reg{Claim{
    .id = "acds.thm1",
    .title = "Single-layer global minimiser of LSA for x ~ N(0, Sigma)",
    .source = "Ahn, Cheng, Daneshmand and Sra (2023), Theorem 1 and Appendix A",
    .statement = "x ~ N(0, Sigma), Sigma = U Lam U^T, w ~ N(0, I). The single-layer global minimiser is, up to rescaling "
    "P0 -> g P0, Q0 -> Q0/g: P0 = e e^T, Q0 = -[U diag(1/((n+1)/n lam_i + tr(Lam)/n)) U^T, 0; 0, 0].",
    .params = {ParamSpec{"d", {2, 4, 5}, {2, 5}, 1, 8, true, "input dimension (d = 5, isotropic, n = 20 also trains)"},
     with_names(ParamSpec{"cov", {0, 1, 2, 3}, {0, 2}, 0, 3, true,
                          "covariance: 0 isotropic, 1 diagonal, 2 rotated, 3 rotated ill-conditioned (kappa 100)"},
                test_covariance_names()),
     ParamSpec{"n", {2, 20}, {20}, 1, 1e6, true, "context length"}},
    .default_samples = 600000,
    .quick_samples = 300000,
    .memory_bytes = [](const Case& c, int threads) { return threads * acds_shape(c.geti("d"), c.geti("n")).workspace_bytes(); },
    .run = run,
    .parts = {PartSpec{"a",
              "For x ~ N(0, Sigma), w ~ N(0, I), a global minimiser of the single-layer in-context loss is, up to "
              "rescaling, P0 = e e^T, Q0 = -[U diag(1/((n+1)/n lam_i + tr(Lam)/n)) U^T, 0; 0, 0].",
              Strength::theorem}},
    .table = table_layout()}};

}  // namespace acds_thm1
}  // namespace
}  // namespace icl
