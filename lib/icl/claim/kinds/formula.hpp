// A claim of one's own about the in-context loss of a model one builds (the Python module's `check`, and C++ callers):
// a stated loss formula, a bound, or a minimiser, for linear-attention weights, judged by the same mechanism as the
// catalogue's claims (claim.hpp: a registered Claim, run by run_command, whose report is the same JSON, Markdown and
// LaTeX). This file holds the description, its checks and the run every kind shares; each kind's per-case decision,
// report sentences and JSON fields are in a file of its own: equality.hpp ("equality", with the proposed
// correction of a refuted formula), bound.hpp ("upper_bound": loss <= stated; "lower_bound": loss >= stated) and
// argmin.hpp ("argmin": stated(case) minimises the loss over argmin_over) and identity.hpp ("identity": the forward pass
// computes `reference` on every prompt compared; `stated` is not used) and rate.hpp ("rate": the loss's log-log slope
// against rate_over approaches the stated exponent).
//
// Per case (one per combination of the grid's values; the grid must name d and n, and may name cov (0 isotropic,
// 1 diagonal, 2 rotated, 3 rotated with condition number 100; default 0), noise (label noise sd; default 0) and any
// parameter of one's own):
//   stated   the formula's value, stated(case);
//   exact    the library's own exact loss of the weights model(case) where it integrates one (one layer, any heads;
//            d <= 12 on the linear task, d <= 3 on the quadratic one), which knows nothing of the formula;
//   mc       Monte Carlo through the forward pass of those weights (the acds embedding; loss E[(yhat - y_q)^2],
//            yhat = -Z[d, n], as `icl-verify eval`).
// Equality and bounds follow one decision rule (check_stated_value below; verdict/decision.hpp rule 4,
// verdict/checks.hpp exact_first_check): where the exact loss exists it decides, and Monte Carlo through the forward
// pass checks the exact engine: excluding the exact loss (beyond `tolerance`) leaves the case inconclusive, flagged
// INTERNAL INCONSISTENCY, never a verdict on the formula. Without an exact loss, Monte Carlo against the stated value
// decides alone, in looks doubling from 4096 prompts up to `samples` (the cap; alpha split over the looks); a case it
// leaves undecided records `samples_to_decide`, the prompt count that would decide it (extrapolated from the
// interval's half-width), and the summary names those cases with that count. A refuted claim carries the first
// refuted case as its counterexample where its kind gives one (argmin).
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/exact/acds_population.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/attention_weights.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icl {

// A model of any of the library's layers (FormulaClaim::network): the stack, the prompt layout it reads and the
// loss's sign (+1: yhat = -Z[D-1, n], the acds and sja layouts; -1: yhat = +Z[D-1, n], zfb's).
struct NetworkModel {
  Transformer net;
  PromptShape shape;
  double sign = +1.0;
  std::string what;  // the layers and the layout in words, for the report ("lsa (unmasked), on the acds layout")
};

struct FormulaClaim {
  std::string id;         // letters, digits, '.', '_', '-'; not a claim the library already has, nor 'all' or a subcommand
  std::string title;      // default: the statement, cut to 100 characters
  std::string source;     // default: "stated by the user"
  std::string statement;  // required
  std::string kind = "equality";  // "equality", "upper_bound" (loss <= stated), "lower_bound" (loss >= stated),
                                  // "argmin" (stated(case) minimises the loss over argmin_over; argmin.hpp),
                                  // "identity" (the forward pass computes `reference` on every prompt; identity.hpp),
                                  // "rate" (loss ~ C x^stated as x = rate_over grows; rate.hpp)
  std::string task = "linear";    // "linear" or "quadratic" (eval.hpp)
  std::vector<ParamSpec> grid;    // d and n required; cov, noise optional
  // The task law of one's own, per case (both optional): sigma(case), the inputs' covariance x ~ N(0, Sigma) (in
  // place of the grid's cov); w_cov(case, Sigma), the linear task's weights' covariance w ~ N(0, Sigma_w) (default
  // I; e.g. Sigma^-1, acds's law). Each d x d, symmetric positive definite; anything else is a UsageError.
  std::function<Eigen::MatrixXd(const Case&)> sigma;
  std::function<Eigen::MatrixXd(const Case&, const Eigen::MatrixXd& sigma)> w_cov;
  // In place of w's Gaussian law, on the linear task: w = +theta0(case) or -theta0(case) with a fair sign (xlssc Sec.
  // 4.2's symmetric law; d numbers, not all zero). The loss is the two laws' mean: exact where each is (one layer),
  // Monte Carlo over both (montecarlo/prompt_loss.hpp MixturePromptWorker); no w_cov, no argmin, no correction search.
  std::function<Eigen::VectorXd(const Case&)> theta0;
  std::function<double(const Case&)> stated;
  std::function<LsaStack(const Case&)> model;
  // In place of `model`: a network of the library's layers (layers/: linear self-attention masked or not with its
  // scale, bilinear, softmax or linear attention) on a named prompt layout, per case. Its loss is Monte Carlo through
  // its forward pass (no exact loss, no correction search); every kind but argmin.
  std::function<NetworkModel(const Case&)> network;
  std::function<void()> between_cases;  // called before each case (e.g. to let Python raise KeyboardInterrupt)
  double tolerance = 0.05;              // Monte Carlo against the stated and the exact value, relative
  double exact_tolerance = 1e-9;        // exact against stated (floating point), relative (plus 1e-12 absolute)
  std::uint64_t samples = 262144;       // Monte Carlo prompts per case (the budget of the sequential looks)
  bool propose = true;                  // search for a correction when a stated equality is refuted (equality.hpp)
  double propose_budget_s = 60;         // the search's time budget (wall clock)
  // kind "argmin": the parameter (not in the grid) whose minimiser stated(case) gives; model(case) is called with it
  // added. The search range (default: the stated value +/- max(|stated|, 1)); the tolerance on the minimiser's
  // place, relative to max(|stated|, 1).
  std::string argmin_over;
  std::optional<std::pair<double, double>> argmin_range;
  double argmin_tolerance = 1e-6;
  // kind "argmin" without an exact loss (argmin.hpp): the loss excess at the stated minimiser over the search's point
  // that still counts as "minimises", relative to the loss at the stated minimiser.
  double argmin_mc_tolerance = 1e-3;
  // kind "identity": the stated prediction of a prompt's query label, reference(case, X, y) with X the inputs
  // (d x (n+1), the query's at column n) and y the n context labels; compared with the model's prediction (-Z[d, n])
  // on `prompts` prompts of the case's stream, within exact_tolerance (relative, plus 1e-12 absolute). `stated` is
  // not used.
  std::function<double(const Case&, const Eigen::MatrixXd&, const Eigen::VectorXd&)> reference;
  std::uint64_t prompts = 1000;
  // kind "rate" (rate.hpp): stated(case) is the exponent p of loss ~ C x^p as x = rate_over grows (at least 3 of
  // its values in the grid); the last log-log slope must lie within rate_tolerance (absolute) of p.
  std::string rate_over = "n";
  double rate_tolerance = 0.05;
};

// The claim, ready to register. Throws UsageError (claim/usage_error.hpp) for an invalid description.
Claim formula_claim(const FormulaClaim& f);

// check_formula_claim (cli/check.hpp) registers it for the time of one run and runs it through the engine.

// ---- What the kinds share (formula.cpp sets each case up and runs them; the kinds decide each case) ----

// The run of one claim: its settings and what its cases have shown so far.
struct FormulaRun {
  const FormulaClaim& f;
  const ClaimContext& ctx;
  Tolerance tol, exact_tol;   // Monte Carlo (relative), exact against stated (relative plus 1e-12 absolute)
  double alpha_case = 0;      // ctx.alpha over the cases (Bonferroni)
  FormulaRun(const FormulaClaim& f, const ClaimContext& ctx);
  std::size_t looks = 1, confirmed = 0, refuted = 0, with_exact = 0;
  std::vector<std::string> undecided, inconsistent;            // cases for the summary, with why
  std::vector<std::string> sign_flipped;  // refuted cases whose weights with the prediction's sign flipped match
  std::optional<nlohmann::ordered_json> counterexample;        // the first refuted case's, where the kind gives one
};

// The Monte Carlo looks start at this many prompts and double up to the case's budget.
inline constexpr std::uint64_t kFormulaFirstLook = 4096;

// One case, set up as every kind needs it (formula.cpp: in this order, between_cases(), stated(case), model(case)).
struct FormulaCase {
  const FormulaClaim& f;
  const ClaimContext& ctx;
  const Case& c;
  int d = 0, n = 0, cov = 0;
  double noise = 0, stated = 0;
  Eigen::MatrixXd sigma;                     // the case's input covariance (the grid's cov or FormulaClaim::sigma)
  Eigen::MatrixXd sigma_w;                   // the linear task's Cov(w) (I unless FormulaClaim::w_cov)
  GaussianIclModel model;                    // the task with the case's covariance, weights' law and noise
  std::vector<GaussianIclModel> laws;        // the equally likely laws of the prompts: {model}, or w = +-theta0
  std::optional<NetworkModel> net;           // FormulaClaim::network's model of the case (w then has no layers)
  LsaStack w;                                // the case's weights (argmin: with argmin_over at the stated value)
  Transformer stack;                         // w's forward pass
  PromptShape shape;                         // the acds prompt
  std::vector<SingleLayerMoments> moments;   // each law's single-layer moments, computed at the first exact loss
  std::shared_ptr<AcdsPopulation> population; // the multi-layer exact engine, built at the first stack it serves
  std::string exact_basis;                   // which exact loss (set by exact_loss; declared before exact, which
                                             // exact_loss initialises)
  std::optional<double> exact;               // the exact loss of w, where the library integrates one
  std::uint64_t purpose = 0;                 // the case's random stream

  FormulaCase(const FormulaClaim& f, const ClaimContext& ctx, const Case& c);
  FormulaCase(const FormulaCase&) = delete;  // the Monte Carlo worker points into it
  FormulaCase& operator=(const FormulaCase&) = delete;
  // FormulaClaim::network's model of the case. Throws UsageError for a layout of another d or n, or no layers.
  NetworkModel network_at() const;
  // The exact loss of the network model where the library integrates it: one masked attention layer (one head or
  // several) on the acds, zfb or sja layout, after at most one bilinear layer on the sja layout (its output rows are
  // polynomials in x: exact/feature_moments.hpp bilinear_features), d within the task's exact range; nullopt
  // otherwise. Sets exact_basis.
  std::optional<double> network_exact();
  // The weights of the case; with x, of the case with argmin_over at x. Throws UsageError for a wrong d.
  LsaStack weights_at(std::optional<double> x) const;
  // The exact loss of weights of this case, where the library integrates one: one layer (d within the task's exact
  // range), or, on the noiseless linear task, a stack in acds's form (8) (L <= 4) or (11) (L <= 2): every layer one
  // masked head at scale 1/n with P = [B, 0; 0, 1], Q = [-A, 0; 0, 0] (exact/acds_population.hpp); nullopt
  // otherwise. Sets exact_basis.
  std::optional<double> exact_loss(const LsaStack& weights);
  // The forward pass's per-thread Monte Carlo worker (verdict/checks.hpp make_worker), over the case's laws.
  MixturePromptWorker worker() const;
};

bool has_param(const Case& c, const std::string& name);

// The decision rule equality and bounds share (above): writes the case's `stated`, `exact` and `mc`, its verdict and
// decisions, and names it among the run's undecided or inconsistent cases where it is inconclusive.
//   exact_vs_stated: the kind's exact decision (where the case has an exact loss); judge(estimate, alpha): Monte Carlo
//   against the stated value; edges: what the interval must do to decide (DecideAt: samples_to_decide).
Decision check_stated_value(FormulaRun& run, const FormulaCase& k, CaseJson& j, std::optional<Decision> exact_vs_stated,
                            const std::function<Decision(const Estimate&, double)>& judge, const DecideAt& edges);

// The refutation's sentence for a stated value (equality and bounds); `what` is "formula", "upper bound", ...
std::string stated_value_refutation(const FormulaClaim& f, const std::string& what);
// The first 5 of a summary's cases, "; and N more" after them.
std::string name_cases(const std::vector<std::string>& cases);

}  // namespace icl
