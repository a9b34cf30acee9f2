// `icl-verify eval`: the in-context loss of linear-attention weights trained elsewhere.
//
//   icl-verify eval --weights FILE --task linear|quadratic [--set d=.. --set n=.. --set cov=.. --set noise=..]
//                   [--sigma FILE.npy] [--tolerance T] [--samples N] [--seed S] [--threads T] [--out DIR] [--quick]
//
// Weights (lib/icl/model/attention_weights.hpp): the acds authors' `allparam` (.npy, (L, H, 2, d, d)) or full
// matrices P1, Q1, P2, Q2, ... (.npz or .safetensors, by key: `allparam` alone, or P1, Q1, ...). Prompts: the acds
// embedding (rows x, y; the query's label 0), x ~ N(0, Sigma), Sigma the test covariance `cov` (0 isotropic,
// 1 diagonal, 2 rotated, 3 rotated with condition number 100) or any covariance (--sigma, a d x d .npy); targets y = <w, x> (linear) or the sja quadratic task, with
// w ~ N(0, I) per prompt, plus noise * N(0, 1) per label. Loss E[(yhat - y_q)^2] with yhat = -Z[d, n] (the
// acds code's in_context_loss, without the 1/2 of zfb).
//
// Per case (one per parameter combination), quantities:
//   exact     one layer (any number of heads): the loss as a Gaussian polynomial, integrated exactly
//             (exact/optimal_attention.hpp, single_layer_loss of the layer's coefficients);
//   mc        always: Monte Carlo through the real forward pass of the weights;
//   optimum   the exact optimum of a single layer on the same task: the sparse optimum Gamma* = -M^+ S Lam^+
//             refined by exact alternating solves over the full last row of P and full Q. For linear tasks
//             without noise it is the minimiser of acds Theorem 1 (P0 = e e^T, Q0 = -[U diag(1/((n+1)/n lam_i
//             + tr(Lam)/n)) U^T, 0; 0, 0]), which the project's check of that theorem confirms;
//   excess    exact - optimum (relative_excess: over the optimum), and distance_to_optimum: the relative Frobenius
//             distance between the layer's coefficients and the optimum's (symmetrised; they fix the prediction on
//             every prompt and do not change under P -> g P, Q -> Q / g). For L > 1 layers, `one_layer_optimum` is
//             given for reference.
// The case verdict is about the weights (decision `excess_vs_tolerance`): `confirmed` when the exact excess over the
// single-layer optimum is at most `tolerance` x the optimum (--tolerance, default 1%), `refuted` (with the case as the
// counterexample) when it is larger; `inconclusive` without an exact value (several layers, or d beyond the exact
// moments), or when Monte Carlo through the forward pass excludes the exact loss (decision `mc_vs_exact`, within 5%
// at the stated error rates), flagged as an internal inconsistency.
#pragma once
#include "icl/cli/engine.hpp"
#include "icl/exact/limits.hpp"
#include "icl/model/attention_weights.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace icl {

struct EvalOptions {
  std::string weights;  // the file (for the report and for eval_command)
  std::string task = "linear";
  std::vector<std::string> sets;
  std::optional<long long> samples;
  std::uint64_t seed = 1;
  int threads = 0;  // 0: all cores
  std::string backend = "cpu";  // --backend (execute/executor.hpp)
  std::string precision = "float64";  // --precision (execute/precision.hpp)
  std::string out = ".";
  bool quick = false;
  double alpha = 0.01;
  double tolerance = 0.01;  // --tolerance: the excess over the single-layer optimum allowed, relative to it
  std::optional<std::string> sigma_file;  // a d x d covariance (.npy) instead of --set cov
  // The linear task's law of w (Python's eval_weights(w_cov=)): w ~ N(0, w_cov), or with w_cov_inverse N(0, Sigma^-1)
  // at each case's Sigma (model/task_law.hpp); default N(0, I).
  std::optional<Eigen::MatrixXd> w_cov;
  bool w_cov_inverse = false;
  NameMap names;                          // --name CANONICAL=KEY (attention_weights.hpp): weights under other names
  std::string command;                    // the command line, for the report's provenance
};

// The limits of eval's parameters (and of the Python module's functions that take them): d <= 64, n <= 100000,
// label noise sd <= 1e6; the single-layer moments are integrated exactly where exact/limits.hpp says (d <= 12
// linear, d <= 3 quadratic).
inline constexpr int kEvalMaxD = 64;
inline constexpr int kEvalMaxN = 100000;
inline constexpr double kEvalMaxNoise = 1e6;
// A covariance for weights of dimension d: d x d, finite, symmetric, positive definite (throws UsageError "WHAT: ...").
void check_covariance(const Eigen::MatrixXd& s, int d, const std::string& what);
// eval's parameter `name` (d, n, cov, noise): its range, integrality, defaults (check_param_value checks a value).
ParamSpec eval_param(const std::string& name);

// Evaluates weights already read and returns the whole report (schema icl-verify/report/v1, claim "eval").
// `sigma`, if set, replaces the `cov` grid. Validates everything before any work: throws UsageError.
nlohmann::ordered_json evaluate_weights(const LsaStack& w, const EvalOptions& o,
                                        const std::optional<Eigen::MatrixXd>& sigma = std::nullopt);
// What each quantity of an eval report means, in words (the report's `quantity_meanings`).
nlohmann::ordered_json eval_quantity_meanings();
// Writes eval.json, eval.md and eval.tex of report `r` into folder `out` (made where missing, held while written),
// together or not at all: the Python module's eval_weights(out=...). Bad folder: UsageError.
void write_eval_report(const nlohmann::ordered_json& r, const std::string& out);
// As write_eval_report, into a folder already made and held by the caller.
void stage_eval_report(const nlohmann::ordered_json& r, const std::string& out);
// Reads the weights (and --sigma), evaluates, writes <out>/eval.json, eval.md and eval.tex, each whole or not
// at all. A bad file or option: UsageError (one line), nothing written.
int eval_command(const EvalOptions& o);

}  // namespace icl
