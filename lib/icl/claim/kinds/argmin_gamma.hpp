// The argmin kind over a matrix (argmin.hpp's is over a scalar): "for x ~ N(0, Sigma), y = <w, x>, w ~ N(0, I) and n
// context examples, the single sparse layer P = e e^T, Q = diag(Gamma, 0) with the stated Gamma(Sigma, n) is a global
// minimiser of the in-context loss". The claim states Gamma and names the sparse layer; the kind owns, per case
// (params d, cov: Sigma = test_covariance(d, cov), n; identity features; prompts acds_shape(d, n)):
//   - exact: the minimiser over the sparse form, Gamma* = optimal_sparse_gamma (exact/optimal_attention.hpp), against
//     the stated Gamma, ||Gamma* - Gamma||_F / ||Gamma*||_F within the exact tolerance (decision `matrix_exact`); the
//     full last row of P and full Q by alternating exact solves from random starts (search/single_layer_starts.hpp):
//     none below the sparse optimum by more than 1e-9 relative, on a search that stopped improving (`full_weights`);
//   - Monte Carlo, at half the case's alpha each: the stated layer's loss through the real forward pass against its
//     exact value and the least exact loss found (verdict/loss_check.hpp, looks from 4096 prompts, at least 16384);
//     a least-squares fit of the optimal Gamma through the forward pass (20 batches, the query integrated out
//     exactly given the context) judged entry by entry within 10% of the stated matrix's largest entry, in two looks:
//     a quarter of the budget, then twice the budget where an entry is still undecided (verdict/matrix_check.hpp
//     judge_matrix_in_looks; `matrix_mc`);
//   - the case verdict: refuted where the exact minimiser and the fit both disagree with the stated matrix, or where
//     the loss check refutes; confirmed only where every check confirms (the fit, too noisy at these budgets to be
//     required, must only not refute: its detectable discrepancy is reported), with the claim's further check of the
//     case where it has one (Extra: e.g. a trained matrix); inconclusive otherwise;
//   - the case's quantities and decisions, and the run's tally for the summary.
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/layers/lsa.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/claim/table.hpp"
#include "icl/search/single_layer_starts.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/matrix_check.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <functional>
#include <optional>
#include <string>

namespace icl::argmin_gamma {

struct Checks {
  Tolerance loss;   // the Monte Carlo loss of the stated layer against the least exact loss
  Tolerance exact;  // the exact minimiser against the stated Gamma (rel); the loss check's exact tolerance
  int starts = 8;   // random starts of the search over full (P, Q)
};

// One case: its setting and everything computed on it.
struct CaseResult {
  int d = 0, cov = 0, n = 0;
  Eigen::MatrixXd sigma;
  GaussianIclModel model;
  FeatureMoments fm;                    // the model's exact feature moments (identity features)
  Eigen::MatrixXd stated, exact;        // the stated Gamma and the exact minimiser over the sparse form, Gamma*
  double loss_stated = 0, loss_exact = 0;  // their exact losses
  double rel = 0;                       // ||Gamma* - Gamma||_F / ||Gamma*||_F
  SingleLayerStarts full;               // the search over full (P, Q)
  double minimum = 0;                   // the least exact loss found: min(loss_exact, full.best.loss)
  Decision matrix_exact, general;
  EqualityOutcome loss;                 // the stated layer's Monte Carlo loss
  MatrixFit fit;                        // the least-squares fit of the optimal Gamma
};

// The claim's further check of a case (e.g. a trained layer against the stated Gamma): its decision, recorded as
// `name` and quoted in the evidence after `label`, and its quantities (written after the kind's).
struct Extra {
  std::string name, label;
  Decision decision;
  std::function<void(CaseJson&)> quantities;
};

// What the run keeps across cases for its summary.
struct Tally {
  double worst_rel = 0;                // the largest ||Gamma* - Gamma||_F / ||Gamma*||_F
  std::string worst;                   // and its case (the last of equals)
  double best_general_gain = -INFINITY;  // the largest (sparse optimum - full search's best) / sparse optimum
  std::string loss_checks;             // the loss checks' verdicts over the cases (tally_decisions of mc_vs_stated)
};

struct Spec {
  Checks checks;
  std::function<Eigen::MatrixXd(const Eigen::MatrixXd& sigma, int n)> stated;  // the stated Gamma
  std::string stated_name = "stated Gamma";  // its name in the evidence: "||Gamma* - <stated_name>||_F / ..."
  std::function<LinearSelfAttention(const Eigen::MatrixXd& gamma)> layer;     // the sparse layer of a Gamma
  // Optional: the claim's further check of a case (none where it returns nullopt), and what the run adds after the
  // cases and the error rates (e.g. a training curve).
  std::function<std::optional<Extra>(const Case& c, const CaseResult& k)> extra;
  std::function<void(ClaimRun& r)> after_cases;
  std::function<std::string(Verdict v, const Tally& t)> summary;
};

// One case's computations (r: the looks of the loss check, twice its planned looks; alpha: the case's).
CaseResult compute(ClaimRun& r, double alpha, const Case& c, const Spec& s);

// The case verdict (with the claim's further check where there is one) and its evidence.
Decision case_verdict(const CaseResult& k, const Extra* extra);

// The case as its report holds it: covariance, the kind's quantities, sigma, the extra check's quantities, the
// verdict and the decisions.
void write_case(CaseJson& j, const CaseResult& k, const Decision& v, const Extra* extra);

// Every case (the claim's alpha split over them), the error rates at s.checks.loss, s.after_cases, the summary.
ClaimResult run_claim(const ClaimContext& ctx, const Spec& s);

// The kind's LaTeX table: the loss at the stated minimiser, the exact optimum, Monte Carlo and the matrix difference
// (`matrix`: the stated matrix in LaTeX, "$Q_0$"), under `where` ("Theorem~1") and `latex_title`.
ClaimTable table(const std::string& where, const std::string& latex_title, const std::string& matrix);

}  // namespace icl::argmin_gamma
