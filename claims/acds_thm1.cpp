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
// Quantities (per case; the argmin kind over a matrix, lib/icl/claim/kinds/argmin_gamma.hpp, computes them):
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
//                constructions/acds_appA.hpp train_single_layer, trained_check); judged by
//                ||trained - stated||_F / ||stated||_F <= 0.05 (decision `trained_matrix`; the minibatch noise
//                left after the decayed learning rate is well inside it). A diverged run makes the case
//                inconclusive with its reason; a trained matrix outside the tolerance makes it inconclusive too
//                (the exact minimiser decides the theorem; training that misses it is an optimisation finding).
// Verdict per case: refuted only where the exact minimiser and the Monte Carlo fit both disagree with the stated
// matrix (or a non-sparse layer beats it exactly and Monte Carlo agrees on its loss); confirmed only when every check
// confirms (the fit, too noisy at these budgets to be required, must only not refute; the trained matrix where the
// case trains); inconclusive otherwise.
#include "constructions/acds_appA.hpp"
#include "constructions/sja_appC.hpp"
#include "icl/claim/kinds/argmin_gamma.hpp"
#include "icl/model/prompt.hpp"
#include "icl/verdict/mutation.hpp"

#include <fmt/format.h>

#include <optional>

namespace icl::acds_thm1 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

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

ClaimResult run(const ClaimContext& ctx) {
  argmin_gamma::Spec s;
  s.checks = {kLossTol, kExactTol, ctx.quick ? 3 : 8};  // 3 or 8 random starts of the full (P, Q) search
  s.stated = stated_gamma;
  s.stated_name = "Q0 block";
  s.layer = sja::sparse_attention;  // P = e e^T, Q = diag(Gamma, 0)
  // The project's trainer, in the setting of the acds authors' code (d = 5, isotropic, n = 20).
  std::optional<acds::SingleLayerTraining> trained;
  s.extra = [&](const Case& c, const argmin_gamma::CaseResult& k) -> std::optional<argmin_gamma::Extra> {
    if (k.d != 5 || k.cov != 0 || k.n != 20) return std::nullopt;
    trained = acds::train_single_layer(ctx, c.label(), k.model, k.d, k.n, k.fm, k.stated);
    return acds::trained_check(*trained, kTrainedTol);
  };
  s.after_cases = [&](ClaimRun& r) {
    if (trained) acds::report_training(r, *trained, "Single layer, form (8), d = 5, n = 20, isotropic");
  };
  s.summary = [](Verdict v, const argmin_gamma::Tally& t) {
    return fmt::format("{}: the exact minimiser equals the stated Q0 block to a relative {:.1e} at worst ({}); no full "
                       "(P, Q) found beats the sparse optimum (largest relative gain {:.1e}); Monte Carlo loss of the "
                       "stated weights against its exact value: {}.", to_string(v), t.worst_rel, t.worst,
                       t.best_general_gain, t.loss_checks);
  };
  return argmin_gamma::run_claim(ctx, s);
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
    .table = argmin_gamma::table("Theorem~1",
                                 "Single-layer global minimiser of LSA for $x\\sim\\mathcal{N}(0,\\Sigma)$", "$Q_0$")}};

}  // namespace icl::acds_thm1
