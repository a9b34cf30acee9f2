#include "icl/cli/eval.hpp"

#include "icl/claim/case_json.hpp"
#include "icl/claim/parts.hpp"
#include "icl/cli/output_folder.hpp"
#include "icl/execute/thread_pool.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/task_law.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/report/report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace icl {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxD = kEvalMaxD;
const Tolerance kTol{0.05, 0.0};  // Monte Carlo against the exact loss (relative standard deviations of 2-4 per prompt)

// Whether the single-layer moments of the task are integrated exactly at this d.
bool moments_feasible(const std::string& task, int d) { return d <= exact_max_d(task); }

// The optimum of one layer and the layer's own exact loss.
struct OneLayerExact {
  double optimum = 0;
  Eigen::MatrixXd C_opt;      // the optimum's coefficients (D^2 x d)
  Eigen::MatrixXd gamma_opt;  // its GD block: b_D * A[0:d, :]
  SingleLayerMoments moments;
};

OneLayerExact one_layer_optimum(const GaussianIclModel& model, int d, int n) {
  OneLayerExact r;
  const auto u = identity_features(d);
  r.moments = single_layer_moments(model, u);
  const FeatureMoments fm = model_feature_moments(model, u);
  Eigen::VectorXd b;
  Eigen::MatrixXd A;
  sparse_as_general(optimal_sparse_gamma(fm, n), b, A);
  const SingleLayerOptimum o = alternating_single_layer(r.moments, n, b, A);
  r.optimum = o.loss;
  Eigen::MatrixXd P, Q;
  general_layer_weights(o.b, o.A, Eigen::MatrixXd::Zero(d + 1, d + 1), P, Q);
  r.C_opt = single_layer_coefficients({LinearSelfAttention{P, Q}}, d, n);
  r.gamma_opt = o.b[d] * o.A.topRows(d);
  return r;
}

Eigen::MatrixXd gd_block(const std::vector<LinearSelfAttention>& heads, int d, int n) {
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(d, d);
  for (const auto& h : heads) g += (h.scale != 0 ? h.scale * n : 1.0) * h.P(d, d) * h.Q.topLeftCorner(d, d);
  return g;
}

std::string number(double v) { return format_number(v); }

// The sentence a case gets when the weights fit far better read with the opposite sign: a model trained to predict
// +Z[d, n] (the zfb convention), evaluated in this one (yhat = -Z[d, n], acds/sja).
std::string sign_convention_note(double flipped, double loss, bool exact) {
  return fmt::format("SIGN CONVENTION: read with the opposite sign, yhat = +Z[d, n] (the zfb convention) instead of "
                     "-Z[d, n] (acds/sja, this report's), the weights' loss is {} instead of {} ({}): they were "
                     "probably trained to predict +Z[d, n]; negating every P (one layer) evaluates them in this "
                     "report's convention.",
                     number(flipped), number(loss), exact ? "both exact" : "both by Monte Carlo");
}

ClaimResult run_eval(const LsaStack& w, const EvalOptions& o, const std::optional<Eigen::MatrixXd>& sigma_given,
                     const ClaimContext& ctx) {
  ClaimResult res;
  const double alpha_case = ctx.alpha / static_cast<double>(ctx.cases.size());
  const Transformer stack = w.transformer();
  std::string summary;
  std::size_t done = 0, confirmed = 0, refuted = 0;
  std::optional<nlohmann::ordered_json> first_refuted;
  for (const auto& c : ctx.cases) {
    const int d = c.geti("d"), n = c.geti("n");
    const double noise = c.get("noise");
    const int cov = sigma_given ? -1 : c.geti("cov");
    const Eigen::MatrixXd sigma = sigma_given ? *sigma_given : test_covariance(d, cov);
    const Eigen::MatrixXd sigma_w = o.w_cov_inverse ? inverse_law(sigma) : o.w_cov.value_or(Eigen::MatrixXd());
    const GaussianIclModel model =
        task_law_model(o.task, sigma, o.w_cov_inverse || o.w_cov ? &sigma_w : nullptr, noise);

    // Monte Carlo through the forward pass of the weights.
    const PromptShape shape = acds_shape(d, n);
    const std::uint64_t purpose = ctx.purpose(c.label());
    MonteCarlo mc(1, ctx.threads);
    mc.extend_to(ctx.samples, [&] { return ModelPromptWorker(stack, model, shape, ctx.seed, purpose, +1.0); });
    const Estimate est = make_estimate(mc.total(), 0, 1 - alpha_case);

    CaseJson j(c);
    j.field("covariance", sigma_given ? std::string("given (--sigma)") : covariance_name(cov));
    if (o.w_cov_inverse || o.w_cov) j.field("w_law", o.w_cov_inverse ? "w ~ N(0, Sigma^-1)" : "w ~ N(0, w_cov) given");
    const std::string mc_text = fmt::format("Monte Carlo {} ± {}", number(est.mean), number((est.ci_high - est.ci_low) / 2));
    std::optional<OneLayerExact> opt;
    if (moments_feasible(o.task, d)) opt = one_layer_optimum(model, d, n);
    std::string evidence, line;
    Decision v;
    if (opt && w.num_layers() == 1) {
      const Eigen::MatrixXd C = single_layer_coefficients(w.layers[0], d, n);
      const double exact = single_layer_loss(opt->moments, C, n);
      // The same layer read in the opposite sign convention (yhat = +Z[d, n]): its coefficients negated.
      const double flipped = single_layer_loss(opt->moments, -C, n);
      const int D = d + 1;
      const Eigen::MatrixXd Cs = symmetrised_coefficients(C, D), Co = symmetrised_coefficients(opt->C_opt, D);
      const double dist = (Cs - Co).norm() / Co.norm();
      const Eigen::MatrixXd gamma = gd_block(w.layers[0], d, n);
      const double gamma_dist = opt->gamma_opt.norm() > 0 ? (gamma - opt->gamma_opt).norm() / opt->gamma_opt.norm() : 0.0;
      const double excess = exact - opt->optimum;
      const double rel = opt->optimum > 0 ? excess / opt->optimum : 0.0;
      // The consistency check: Monte Carlo through the real forward pass against the exact loss.
      const Decision mc_check = judge_mc_equal(est, exact, kTol, alpha_case);
      // The verdict on the weights: exact excess over the exact single-layer optimum, within the tolerance.
      Decision near;
      near.band = Tolerance{o.tolerance, 0.0}.band(opt->optimum);
      near.verdict = excess <= near.band ? Verdict::confirmed : Verdict::refuted;
      near.why = fmt::format("exact excess over the single-layer optimum {} ({:.3g}% of the optimum {}) {} the tolerance "
                             "{:.3g}% ({})",
                             number(excess), 100 * rel, number(opt->optimum),
                             near.verdict == Verdict::confirmed ? "is within" : "exceeds", 100 * o.tolerance,
                             number(near.band));
      if (mc_check.verdict == Verdict::refuted) {
        v.verdict = Verdict::inconclusive;
        v.why = "INTERNAL INCONSISTENCY: Monte Carlo through the forward pass excludes the exact loss (" + mc_check.why +
                "); no verdict on the weights";
      } else {
        v = near;
      }
      evidence = fmt::format(
          "{}. The weights' exact in-context loss is {}; the best single layer on this task reaches {}. Their "
          "prediction differs from the optimum's by a relative {:.3g} (the distance between the two layers' loss "
          "coefficients over the size of the optimum's: 0 means the same prediction on every prompt), and their "
          "effective preconditioner Gamma (the d x d matrix the layer's gradient-descent step applies) lies a relative "
          "{:.3g} from the optimum's. Monte Carlo check of the exact loss through the forward pass: {}.",
          v.why, number(exact), number(opt->optimum), dist, gamma_dist, mc_check.why);
      if (flipped < 0.5 * exact)
        evidence += " " + sign_convention_note(flipped, exact, true);
      j.quantity("exact", exact);
      j.quantity("mc", est);
      j.quantity("optimum", opt->optimum);
      j.quantity("excess", excess);
      j.quantity("relative_excess", rel);
      j.quantity("distance_to_optimum", dist);
      j.quantity("gamma", gamma);
      j.quantity("optimum_gamma", opt->gamma_opt);
      j.quantity("gamma_distance", gamma_dist);
      j.quantity("flipped_sign_exact", flipped);
      j.decision("excess_vs_tolerance", near);
      j.decision("mc_vs_exact", mc_check);
      line = fmt::format("{}: exact loss {} ({}), {:.3g}% above the best single layer's {}; prediction a relative {:.3g} "
                         "from the optimum's",
                         c.label(), number(exact), mc_text, 100 * rel, number(opt->optimum), dist);
      if (flipped < 0.5 * exact)
        line += fmt::format("; with the opposite sign convention (yhat = +Z[d, n]) the loss would be {}", number(flipped));
      if (v.verdict == Verdict::refuted && !first_refuted) first_refuted = c.to_json();
    } else {
      v.why = w.num_layers() > 1
                  ? fmt::format("{} layers: no exact value (the loss is a polynomial of degree {} in the prompt's "
                                "entries); Monte Carlo only",
                                w.num_layers(), 2 * static_cast<long long>(std::pow(3.0, w.num_layers())))
                  : fmt::format("d = {} is beyond the exact moments of the {} task (d <= {}); Monte Carlo only", d,
                                o.task, o.task == "linear" ? kExactMaxDLinear : kExactMaxDQuadratic);
      evidence = v.why + ". " + mc_text + " (the weights' in-context loss through the forward pass).";
      j.quantity("mc", est);
      line = fmt::format("{}: loss {}", c.label(), mc_text);
      // The opposite sign convention (yhat = +Z[d, n]), by Monte Carlo on the same prompts.
      MonteCarlo flip(1, ctx.threads);
      flip.extend_to(ctx.samples, [&] { return ModelPromptWorker(stack, model, shape, ctx.seed, purpose, -1.0); });
      const Estimate fe = make_estimate(flip.total(), 0, 1 - alpha_case);
      j.quantity("flipped_sign_mc", fe);
      if (fe.ci_high < 0.5 * est.ci_low) {
        evidence += " " + sign_convention_note(fe.mean, est.mean, false);
        line += fmt::format("; with the opposite sign convention (yhat = +Z[d, n]) the loss would be {}", number(fe.mean));
      }
      if (opt) {
        evidence += fmt::format(" The best single layer reaches {} exactly (for reference).", number(opt->optimum));
        j.quantity("one_layer_optimum", opt->optimum);
        line += fmt::format(" (best single layer {})", number(opt->optimum));
      }
    }
    if (summary.size() < 600) summary += (summary.empty() ? "" : "; ") + line;
    if (sigma_given) j.quantity("sigma", sigma);
    j.verdict(v.verdict, evidence,
              v.verdict == Verdict::inconclusive ? std::vector<std::string>{} : std::vector<std::string>{"excess_vs_tolerance"});
    confirmed += v.verdict == Verdict::confirmed;
    refuted += v.verdict == Verdict::refuted;
    res.cases.push_back(j.take());
    if (ctx.progress) ctx.progress(++done, ctx.cases.size());
  }
  res.summary = fmt::format("{}{}. Cases within {:.3g}% of the single-layer optimum (exact): {} of {}; beyond it: {}.",
                            summary, summary.size() >= 600 ? "; ..." : "", 100 * o.tolerance, confirmed,
                            ctx.cases.size(), refuted);
  if (first_refuted)
    res.parts["a"].on_refuted(Refutation{
        RefutationClass::substantive,
        fmt::format("the weights' exact loss exceeds the exact single-layer optimum by more than {:.3g}% of it.",
                    100 * o.tolerance),
        *first_refuted, ""});
  res.extra["error_rates"] = error_rates_json(ctx.alpha, ctx.cases.size(), 1, kTol);
  return res;
}

// Refuses an output folder that cannot be created or written, before anything runs.
void check_output_folder(const std::string& out) {
  fs::path p = fs::absolute(out);
  std::error_code ec;
  while (!fs::exists(p, ec)) {
    if (!p.has_parent_path() || p.parent_path() == p) throw UsageError(fmt::format("--out {}: cannot be created", out));
    p = p.parent_path();
  }
  if (!fs::is_directory(p, ec)) throw UsageError(fmt::format("--out {}: {} is not a folder", out, p.string()));
  if (::access(p.c_str(), W_OK | X_OK) != 0) throw UsageError(fmt::format("--out {}: {} is not writable", out, p.string()));
}


// The layout of eval's LaTeX table (claim/table.hpp): the weights' loss against the exact single-layer optimum.
ClaimTable eval_table() {
  return {TableKind::equality,
          "",
          "In-context loss of trained linear-attention weights",
          {{"exact", "Exact", "the weights' exact loss"},
           mc_column(),
           {"optimum|one_layer_optimum", "Optimum", "the exact single-layer optimum on the task"},
           {"relative_excess", "Excess", "(exact $-$ optimum) / optimum"},
           {"distance_to_optimum", "Distance", "relative distance of the loss coefficients to the optimum's"}}};
}

// What the report writer reads of eval's reports (claim "eval", built per call below, never registered): the
// covariance's names and the table, also when `icl-verify report` rebuilds them later. Registered from this file, the
// one of eval_command and evaluate_weights: a static library leaves out an object nothing references, and every
// program that writes eval reports (the command, the Python module) references this one.
Claim eval_report_claim() {
  Claim c;
  c.id = "eval";
  c.params = {eval_param("cov")};
  c.table = eval_table();
  return c;
}
const RegisterUnlistedClaim kEvalReports{eval_report_claim()};

}  // namespace

nlohmann::ordered_json eval_quantity_meanings() {
  nlohmann::ordered_json m;
  m["exact"] = "the weights' in-context loss E[(yhat - y_q)^2], yhat = -Z[d, n] after the layers (acds/sja "
               "convention), integrated exactly over the prompt's Gaussian inputs and tasks (one layer only)";
  m["mc"] = "the same loss estimated by Monte Carlo through the real forward pass: mean, standard error and "
            "confidence interval over `samples` fresh prompts";
  m["optimum"] = "the smallest loss any single linear-attention layer reaches on this task (exact): the yardstick "
                 "of the verdict";
  m["one_layer_optimum"] = "for weights of several layers: the single-layer optimum, for reference only";
  m["excess"] = "exact - optimum: how much worse than the best single layer the weights are, in loss units";
  m["relative_excess"] = "excess / optimum (0.2: 20% above the optimum); the verdict compares it with --tolerance";
  m["distance_to_optimum"] =
      "how far the weights' prediction is from the optimum's: the Frobenius distance between the two layers' "
      "(symmetrised) loss coefficients over the norm of the optimum's; 0 means the same prediction on every prompt, 1 "
      "as far as predicting 0; unchanged when P is scaled by g and Q by 1/g";
  m["gamma"] = "the weights' effective preconditioner Gamma (d x d): the sum over heads of P[d, d] Q[0:d, 0:d] "
               "(times n x the head's scale where one is set); the layer predicts like one gradient-descent step "
               "preconditioned by it where P and Q have the sparse form";
  m["optimum_gamma"] = "the optimum's Gamma (acds Theorem 1's for the linear task without noise)";
  m["gamma_distance"] = "||gamma - optimum_gamma||_F / ||optimum_gamma||_F (0: the optimum's preconditioner)";
  m["flipped_sign_exact"] = "the exact loss of the same weights read with the opposite sign, yhat = +Z[d, n] (the "
                            "zfb convention): far below `exact`, the weights were trained in that convention";
  m["flipped_sign_mc"] = "the same by Monte Carlo (several layers: no exact value)";
  m["sigma"] = "the input covariance given with --sigma";
  return m;
}

void check_covariance(const Eigen::MatrixXd& s, int d, const std::string& what) {
  switch (covariance_fault(s, d)) {
    case CovarianceFault::none: return;
    case CovarianceFault::shape:
      throw UsageError(fmt::format("{}: the covariance is {}x{}, the weights have d = {}", what, s.rows(), s.cols(), d));
    case CovarianceFault::non_finite: throw UsageError(fmt::format("{}: the covariance has a non-finite entry", what));
    case CovarianceFault::not_symmetric: throw UsageError(fmt::format("{}: the covariance is not symmetric", what));
    case CovarianceFault::not_positive_definite:
      throw UsageError(fmt::format("{}: the covariance is not positive definite", what));
  }
}


ParamSpec eval_param(const std::string& name) {
  if (name == "d") return ParamSpec{"d", {1}, {1}, 1, kEvalMaxD, true, "input dimension (must match the weights)"};
  if (name == "n") return ParamSpec{"n", {20}, {20}, 1, kEvalMaxN, true, "context length"};
  if (name == "cov")  // the coded covariance of test_covariance(), by number or name (--set cov=rotated)
    return with_names(ParamSpec{"cov", {0}, {0}, 0, 3, true,
                                "covariance: 0 isotropic, 1 diagonal, 2 rotated, 3 rotated ill-conditioned (kappa 100)"},
                      test_covariance_names());
  if (name == "noise") return ParamSpec{"noise", {0}, {0}, 0, kEvalMaxNoise, false, "label noise standard deviation"};
  throw std::invalid_argument("eval has no parameter '" + name + "'");
}

nlohmann::ordered_json evaluate_weights(const LsaStack& w, const EvalOptions& o,
                                        const std::optional<Eigen::MatrixXd>& sigma) {
  if (o.task != "linear" && o.task != "quadratic")
    throw UsageError(fmt::format("eval: unknown task '{}' (linear, quadratic)", o.task));
  if (w.d < 1 || w.num_layers() < 1) throw UsageError("eval: the weights have no layers");
  if (w.d > kMaxD) throw UsageError(fmt::format("eval: d = {} is larger than {}", w.d, kMaxD));
  if (o.threads < 0) throw UsageError("--threads must be >= 1");
  if (o.samples && *o.samples < 1) throw UsageError("--samples must be >= 1");
  if (!(o.alpha > 0 && o.alpha < 1)) throw UsageError("--alpha must be in (0, 1)");
  if (!(o.tolerance >= 0 && o.tolerance < 1e6)) throw UsageError("--tolerance must be a number >= 0 (0.01: 1%)");
  if (sigma) check_covariance(*sigma, w.d, "--sigma");
  if ((o.w_cov || o.w_cov_inverse) && o.task != "linear") throw UsageError("eval: w_cov is for the linear task");
  if (o.w_cov) check_covariance(*o.w_cov, w.d, "w_cov");

  Claim c;
  c.id = "eval";
  c.title = fmt::format("In-context loss of trained linear-attention weights ({} layer{}, {} head{}, d = {})",
                        w.num_layers(), w.num_layers() == 1 ? "" : "s", w.num_heads(), w.num_heads() == 1 ? "" : "s", w.d);
  c.source = o.weights.empty() ? std::string("weights given in memory") : o.weights;
  c.statement = fmt::format(
      "The in-context loss E[(yhat - y_q)^2], yhat = -Z[d, n] after the {} layer(s) (acds/sja convention: Z <- Z + (1/n) "
      "sum_h P_h Z M Z^T Q_h Z, the query not a key), on the {} task with x ~ N(0, Sigma), w ~ N(0, I); exact where it "
      "is a Gaussian polynomial the project integrates (one layer), Monte Carlo through the forward pass always. The "
      "verdict is on the weights: their exact loss exceeds the exact optimum of a single layer on the same task by at "
      "most {:.3g}% of it (--tolerance); Monte Carlo excluding the exact loss leaves a case inconclusive.",
      w.num_layers(), o.task, 100 * o.tolerance);
  ParamSpec d_param = eval_param("d");
  d_param.defaults = d_param.quick = {static_cast<double>(w.d)};
  c.params = {d_param, eval_param("n")};
  if (!sigma) c.params.push_back(eval_param("cov"));
  c.params.push_back(eval_param("noise"));
  c.default_samples = 200000;
  c.quick_samples = 20000;
  c.parts = {PartSpec{"a",
                      fmt::format("the weights' in-context loss is within {:.3g}% of the single-layer optimum on the "
                                  "task (excess over the optimum, exact, relative to it)",
                                  100 * o.tolerance),
                      Strength::empirical}};

  const auto sets = parse_sets(resolve_value_names(o.sets, {"eval"}));
  for (const auto& [key, values] : sets) {
    bool known = false;
    for (const auto& p : c.params) known |= p.name == key;
    if (!known)
      throw UsageError(key == "cov" ? std::string("--set cov: not with --sigma (one covariance at a time)")
                                    : fmt::format("--set {}: eval has no parameter '{}' (d, n, cov, noise)", key, key));
  }
  if (auto it = sets.find("d"); it != sets.end())
    for (double d : it->second)
      if (d != w.d) throw UsageError(fmt::format("--set d={:g}: the weights have d = {}", d, w.d));

  PlannedClaim p{&c, {}};
  p.ctx.claim_id = "eval";
  p.ctx.seed = o.seed;
  p.ctx.threads = o.threads > 0 ? o.threads : default_thread_count();
  p.ctx.quick = o.quick;
  p.ctx.budget = o.quick ? Budget::quick : Budget::standard;
  p.ctx.samples = o.samples ? static_cast<std::uint64_t>(*o.samples) : c.samples(p.ctx.budget);
  p.ctx.alpha = o.alpha;
  p.ctx.cases = build_cases(c, sets, p.ctx.budget);
  const double mem = available_memory_bytes();
  for (const auto& k : p.ctx.cases) {
    const double need = p.ctx.threads * acds_shape(w.d, k.geti("n")).workspace_bytes();
    if (need > 0.8 * mem)
      throw UsageError(fmt::format("eval: case {} needs about {:.1f} GiB, only {:.1f} GiB available", k.label(),
                                   need / (1 << 30), mem / (1 << 30)));
  }
  c.run = [&](const ClaimContext& ctx) { return run_eval(w, o, sigma, ctx); };

  RunOptions ro;
  ro.seed = o.seed;
  ro.threads = p.ctx.threads;
  ro.quick = o.quick;
  ro.alpha = o.alpha;
  ro.command = o.command;
  nlohmann::ordered_json r = run_claim(p, ro);
  nlohmann::ordered_json weights;
  weights["file"] = c.source;
  weights["layout"] = w.layout;
  weights["layers"] = w.num_layers();
  weights["heads"] = w.num_heads();
  weights["d"] = w.d;
  weights["tolerance"] = o.tolerance;
  if (!w.names.empty()) {
    nlohmann::ordered_json names = nlohmann::ordered_json::object();
    for (const auto& [canonical, own] : w.names) names[canonical] = own;
    weights["names"] = names;
    weights["unused_arrays"] = w.unused;
  }
  nlohmann::ordered_json out;
  for (auto it = r.begin(); it != r.end(); ++it) {
    if (it.key() == "cases") {
      out["weights"] = weights;
      out["task"] = o.task;
      out["quantity_meanings"] = eval_quantity_meanings();
    }
    out[it.key()] = it.value();
  }
  if (!w.unused.empty()) {
    std::string list;
    for (const auto& k : w.unused) list += (list.empty() ? "" : ", ") + k;
    out["findings"].push_back(fmt::format("Arrays of the weights not named in the name map, left out: {}.", list));
  }
  return out;
}

void stage_eval_report(const nlohmann::ordered_json& r, const std::string& out) {
  StagedFiles staged(out);
  staged.add("eval.json", r.dump(2) + "\n");
  staged.add("eval.md", markdown_claim(r));
  staged.add("eval.tex", latex_table(r));
  if (execute::cancel_requested()) throw execute::Cancelled();  // stopped (Ctrl-C): nothing is moved in
  staged.commit();
}

void write_eval_report(const nlohmann::ordered_json& r, const std::string& out) {
  check_output_folder(out);
  CreatedFolders created;
  created.add(prepare_output_folder(out, "out"));
  const FolderLock lock(out, "out");
  stage_eval_report(r, out);
  created.keep();
}

int eval_command(const EvalOptions& o) {
  if (o.weights.empty()) throw UsageError("eval: --weights FILE is required");
  LsaStack w;
  std::optional<Eigen::MatrixXd> sigma;
  try {
    w = read_lsa_stack(o.weights, o.names);
    if (o.sigma_file) {
      const NpyArray s = read_npy(*o.sigma_file);
      if (s.shape.size() != 2) throw UsageError(fmt::format("--sigma {}: shape {} is not (d, d)", *o.sigma_file, s.shape_text()));
      Eigen::MatrixXd m(s.shape[0], s.shape[1]);
      for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index k = 0; k < m.cols(); ++k) m(i, k) = s.data[static_cast<std::size_t>(i * m.cols() + k)];
      check_covariance(m, w.d, "--sigma " + *o.sigma_file);
      sigma = m;
    }
  } catch (const ArrayFileError& e) {
    throw UsageError(e.what());
  }
  check_output_folder(o.out);
  // The folder is made and held (one run at a time: output_folder.hpp) before the evaluation, and removed again if
  // the evaluation refuses its input (evaluate_weights validates everything before any work); the three files
  // appear together or not at all.
  CreatedFolders created;
  created.add(prepare_output_folder(o.out, "--out"));
  const FolderLock lock(o.out, "--out");
  const nlohmann::ordered_json r = evaluate_weights(w, o, sigma);
  stage_eval_report(r, o.out);
  created.keep();
  const std::string v = r["verdict"].get<std::string>();
  std::printf("%-14s %-12s %6.1f s  %s\n", "eval", v.c_str(), r["elapsed_s"].get<double>(),
              summary_after_verdict(r["summary"].get<std::string>(), v).c_str());
  std::printf("report written to %s (eval.json, eval.md, eval.tex)\n", o.out.c_str());
  return 0;
}

}  // namespace icl
