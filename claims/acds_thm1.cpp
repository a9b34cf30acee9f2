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
//                alternating exact solves from random starts (`general_best`,
//                lib/icl/search/single_layer_starts.hpp);
//   mc           the loss of the stated (P0, Q0) through the real forward pass (lib/icl/verdict/loss_check.hpp);
//   stated_matrix / exact_matrix / mc_matrix: the Q0 block, Gamma*, and a Monte Carlo least-squares
//                fit of the optimal Gamma through the forward pass (with per-entry standard errors from 20
//                batches; the query integrated out exactly given the context; a second look on 8x the prompts
//                only where some entry is still undecided: lib/icl/verdict/matrix_check.hpp
//                judge_matrix_in_looks);
//   trained_matrix (isotropic d = 5, n = 20, the setting of the acds authors' code): -A_0 of a single layer in
//                form (8) (P0 = e e^T frozen, Q0 = -[A_0, 0; 0, 0]) trained by the project's trainer
//                (lib/icl/learn) with Adam on fresh minibatches, from A_0 ~ N(0, 0.1^2) (its schedule:
//                constructions/acds_appA.hpp train_single_layer); judged by
//                ||trained - stated||_F / ||stated||_F <= 0.05 (decision `trained_matrix`; the minibatch noise
//                left after the decayed learning rate is well inside it). A diverged run makes the case
//                inconclusive with its reason; a trained matrix outside the tolerance makes it inconclusive too
//                (the exact minimiser decides the theorem; training that misses it is an optimisation finding).
#include "constructions/acds_appA.hpp"
#include "constructions/sja_appC.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/search/single_layer_starts.hpp"
#include "icl/verdict/loss_check.hpp"
#include "icl/verdict/matrix_check.hpp"
#include "icl/verdict/mutation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace icl {
namespace {
namespace acds_thm1 {  // named, so that a unity build (several claim files in one unit) keeps them apart

// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kStated{"acds.thm1/stated_Q", "acds.thm1", "Q0 = -U diag(1/((n+1)/n lambda_i + tr/n)) U^T", true};

Eigen::MatrixXd stated_gamma(const Eigen::MatrixXd& sigma, int n) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(sigma);
  const Eigen::ArrayXd lam = es.eigenvalues().array();
  const Eigen::VectorXd dg = (1.0 / ((n + 1.0) / n * lam + lam.sum() / n)).matrix();
  return kStated(Eigen::MatrixXd(-es.eigenvectors() * dg.asDiagonal() * es.eigenvectors().transpose()));
}

const Tolerance kLossTol{0.05, 0.0};     // Monte Carlo loss of the stated weights against the exact minimum
const Tolerance kExactTol{1e-9, 1e-12};  // the exact minimiser against the stated block (relative), exact losses
constexpr double kTrainedTol = 0.05;     // the trained matrix against the stated block (relative)

// The trained matrix: a diverged run is inconclusive with its reason; else within kTrainedTol of the stated block.
Decision judge_trained(const acds::SingleLayerTraining& t) {
  if (!t.result.ok())
    return {Verdict::inconclusive, kTrainedTol, 0,
            fmt::format("training {}: {}", learn::to_string(t.result.status), t.result.reason)};
  Decision d = judge_relative_difference(t.relative, kTrainedTol,
                                         fmt::format("trained (Adam, {} steps, batch {}): ||trained - Q0 block||_F / "
                                                     "||Q0 block||_F", t.result.steps_done, t.config.batch));
  d.why += fmt::format("; its exact loss {:.6g}", t.exact_loss);
  return d;
}

// Case verdict: refuted only where the exact computation and the Monte Carlo fit both disagree with the stated matrix
// (or a non-sparse layer beats it exactly and Monte Carlo agrees on its loss); confirmed only when every check
// confirms. The least-squares fit is an independent measurement of the minimiser; at these budgets it can contradict
// the stated matrix (refute) but is too noisy to be required for confirmation (its detectable discrepancy is
// reported).
Decision case_verdict(const Decision& mat_exact, const Decision& mat_mc, const EqualityOutcome& o, const Decision& general,
                      const Decision* trained) {
  std::string why = fmt::format("matrix: exact {} ({}); Monte Carlo fit {} ({}). Loss: {}. Full P, Q: {}.",
                                to_string(mat_exact.verdict), mat_exact.why, to_string(mat_mc.verdict), mat_mc.why,
                                o.verdict.why, general.why);
  if (trained) why += fmt::format(" Training: {} ({}).", to_string(trained->verdict), trained->why);
  if (mat_exact.verdict == Verdict::refuted && mat_mc.verdict == Verdict::refuted)
    return {Verdict::refuted, 0, 0, why, {"matrix_exact", "matrix_mc"}};
  if (o.verdict.verdict == Verdict::refuted) return {Verdict::refuted, 0, 0, why, o.verdict.basis};
  if (mat_exact.verdict == Verdict::confirmed && mat_mc.verdict != Verdict::refuted &&
      o.verdict.verdict == Verdict::confirmed && general.verdict == Verdict::confirmed &&
      (!trained || trained->verdict == Verdict::confirmed)) {
    std::vector<std::string> basis = o.verdict.basis;
    basis.insert(basis.end(), {"matrix_exact", "full_weights"});
    if (trained) basis.push_back("trained_matrix");
    return {Verdict::confirmed, 0, 0, why, basis};
  }
  return {Verdict::inconclusive, 0, 0, why};
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  const int starts = ctx.quick ? 3 : 8;
  double worst_rel = 0, best_general_gain = -INFINITY;
  std::string worst;
  std::optional<acds::SingleLayerTraining> trained;  // the run in the setting of the acds authors' code
  for (const auto& c : ctx.cases) {
    // Exact: the minimiser over the sparse form against the stated block, and the full (P, Q) from random starts.
    const int d = c.geti("d"), cov = c.geti("cov"), n = c.geti("n");
    const Eigen::MatrixXd sigma = test_covariance(d, cov);
    const auto model = GaussianIclModel::from_task(PolynomialTask::linear(d), sigma);
    const auto u = identity_features(d);
    const FeatureMoments fm = model_feature_moments(model, u);
    const Eigen::MatrixXd G_exact = optimal_sparse_gamma(fm, n), G_stated = stated_gamma(sigma, n);
    const double L_exact = sparse_lsa_loss(fm, G_exact, n), L_stated = sparse_lsa_loss(fm, G_stated, n);
    const double rel = (G_exact - G_stated).norm() / G_exact.norm();
    const Decision mat_exact = judge_relative_difference(rel, kExactTol.rel, "||Gamma* - Q0 block||_F / ||Gamma*||_F");
    const SingleLayerStarts full = single_layer_from_starts(single_layer_moments(model, u), n, starts, ctx.seed,
                                                            ctx.purpose(c.label() + "/start"), 1e-9 * std::abs(L_exact));
    const double general_best = full.best.loss, minimum = std::min(L_exact, general_best);
    best_general_gain = std::max(best_general_gain, (L_exact - general_best) / L_exact);
    const Decision general(full.not_below(L_exact, 1e-9), 0, 0, fmt::format("best full (b, A) from {} starts: {:.10g}; "
                           "sparse optimum {:.10g}", starts, general_best, L_exact));
    // Monte Carlo: the stated construction's loss, and a least-squares fit of the optimal Gamma judged entry by entry
    // (two looks at alpha_case / 4 each: a quarter of the budget, then twice the budget where an entry is undecided).
    Transformer block;
    block.layers.emplace_back(sja::sparse_attention(G_stated));
    const PromptShape shape = acds_shape(d, n);
    const EqualityOutcome o = forward_loss_equality(ctx, alpha_case / 2, block, model, shape, ctx.purpose(c.label()),
                                                    L_stated, minimum, kLossTol, kExactTol, 4096,
                                                    std::min<std::uint64_t>(ctx.samples, 16384));
    r.note_looks(2 * o.looks_planned);  // error_rates counts twice the loss check's looks
    const std::vector<MatrixLook> looks{{ctx.purpose(c.label() + "/lsq"), ctx.samples / 4},
                                        {ctx.purpose(c.label() + "/lsq8"), 2 * ctx.samples}};
    const MatrixFit fit = judge_matrix_in_looks(Transformer{}, model, shape, ctx.seed, ctx.threads, looks, 20,
                                                query_moment_matrix(model, u), G_stated,
                                                0.1 * G_stated.cwiseAbs().maxCoeff(), alpha_case / 2);
    // The project's trainer, in the setting of the acds authors' code.
    const bool trains = d == 5 && cov == 0 && n == 20;
    if (trains) trained = acds::train_single_layer(ctx, c.label(), model, d, n, fm, G_stated);
    const std::optional<Decision> dt = trains ? std::optional(judge_trained(*trained)) : std::nullopt;
    const Decision v = case_verdict(mat_exact, fit.decision, o, general, dt ? &*dt : nullptr);
    if (rel >= worst_rel) std::tie(worst_rel, worst) = std::tuple(rel, c.label());
    CaseJson j(c);
    j.field("covariance", covariance_name(cov, d)).quantity("stated", L_stated).quantity("exact", minimum).mc(o.mc);
    j.quantity("exact_sparse_optimum", L_exact).quantity("general_best", general_best);
    j.field("general_search", full.search.to_json(12)).quantity("stated_matrix", G_stated).quantity("exact_matrix", G_exact);
    j.quantity("mc_matrix", fit.lsq.gamma).quantity("mc_matrix_stderr", fit.lsq.stderr_);
    j.quantity("matrix_relative_difference", rel).quantity("sigma", sigma);
    if (dt)
      j.quantity("trained_matrix", trained->gamma).quantity("trained_relative_difference", trained->relative)
          .quantity("trained_exact_loss", trained->exact_loss).field("training_run", learn::curve_json(trained->result));
    j.verdict(v.verdict, v.why, v.basis).decisions(o).decision("matrix_exact", mat_exact).decision("matrix_mc", fit.decision);
    j.decision("full_weights", general).decision("mc_matrix_samples", fit.lsq.samples);
    if (dt) j.decision("trained_matrix", *dt);
    r.add_case(j);
  }
  r.error_rates(kLossTol);
  if (trained) acds::report_training(r, *trained, "Single layer, form (8), d = 5, n = 20, isotropic");
  return r.finish([&](Verdict v) {
    return fmt::format("{}: the exact minimiser equals the stated Q0 block to a relative {:.1e} at worst ({}); no full "
                       "(P, Q) found beats the sparse optimum (largest relative gain {:.1e}); Monte Carlo loss of the "
                       "stated weights against its exact value: {}.", to_string(v), worst_rel, worst, best_general_gain,
                       tally_decisions(r.cases(), "mc_vs_stated"));
  });
}

const RegisterClaim reg{Claim{
    .id = "acds.thm1",
    .title = "Single-layer global minimiser of LSA for x ~ N(0, Sigma)",
    .source = "Ahn, Cheng, Daneshmand and Sra (2023), Theorem 1 and Appendix A",
    .statement = "x ~ N(0, Sigma), Sigma = U Lam U^T, w ~ N(0, I). The single-layer global minimiser is, up to rescaling "
    "P0 -> g P0, Q0 -> Q0/g: P0 = e e^T, Q0 = -[U diag(1/((n+1)/n lam_i + tr(Lam)/n)) U^T, 0; 0, 0].",
    .params = {ParamSpec{"d", {2, 4, 5}, {2, 5}, 1, 8, true, "input dimension (d = 5, isotropic, n = 20 also trains)"},
     with_names(ParamSpec{"cov", {0, 1, 2, 3}, {0, 2}, 0, 3, true, "covariance: 0 isotropic, 1 diagonal, 2 rotated, 3 "
                          "rotated ill-conditioned (kappa 100)"}, test_covariance_names()),
     ParamSpec{"n", {2, 20}, {20}, 1, 1e6, true, "context length"}},
    .default_samples = 600000,
    .quick_samples = 300000,
    .memory_bytes = [](const Case& c, int threads) { return threads * acds_shape(c.geti("d"), c.geti("n")).workspace_bytes(); },
    .run = run,
    .parts = {PartSpec{"a", "For x ~ N(0, Sigma), w ~ N(0, I), a global minimiser of the single-layer in-context loss "
              "is, up to rescaling, P0 = e e^T, Q0 = -[U diag(1/((n+1)/n lam_i + tr(Lam)/n)) U^T, 0; 0, 0].",
              Strength::theorem}},
    .table = ClaimTable{TableKind::equality, "Theorem~1",
                        "Single-layer global minimiser of LSA for $x\\sim\\mathcal{N}(0,\\Sigma)$",
                        {{"stated", "Paper", "loss at the stated minimiser"}, {"exact", "Exact opt.", "exact optimum"},
                         mc_column(),
                         {"matrix_relative_difference", "Matrix diff.", "relative difference, stated vs.\\ exact $Q_0$"}}}}};

}  // namespace acds_thm1
}  // namespace
}  // namespace icl
