// A claim of one's own (formula.hpp): the description's checks, the setup of each case, the decision rule equality
// and bounds share, the run that hands each case to its kind (equality.cpp, bound.cpp, argmin.cpp) and the summary.
#include "icl/claim/kinds/formula.hpp"

#include "icl/claim/kinds/argmin.hpp"
#include "icl/claim/kinds/bound.hpp"
#include "icl/claim/kinds/equality.hpp"
#include "icl/claim/kinds/identity.hpp"
#include "icl/claim/kinds/rate.hpp"
#include "icl/claim/usage_error.hpp"
#include "icl/model/task_law.hpp"
#include "icl/exact/limits.hpp"
#include "icl/exact/acds_population.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/io/printable.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/verdict/checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

namespace icl {

FormulaRun::FormulaRun(const FormulaClaim& f_, const ClaimContext& ctx_)
    : f(f_),
      ctx(ctx_),
      tol{f.tolerance, 0.0},
      exact_tol{f.exact_tolerance, 1e-12},
      alpha_case(ctx.alpha / static_cast<double>(ctx.cases.size())) {}

bool has_param(const Case& c, const std::string& name) {
  return std::any_of(c.params.begin(), c.params.end(), [&](const auto& p) { return p.first == name; });
}

namespace {

// The stated value of a case; a value that is not a finite number is a UsageError.
double stated_at(const FormulaClaim& f, const Case& c) {
  const double stated = f.stated(c);
  if (!std::isfinite(stated))
    throw UsageError(fmt::format("{}: the stated value at {} is {} (not a finite number)", f.id, c.label(), stated));
  return stated;
}

// A covariance of one's own at case c: d x d, finite, symmetric and positive definite, else a UsageError naming it.
// (model/gaussian_model.hpp covariance_fault, as eval's check_covariance; here also the symmetrised matrix's smallest
// eigenvalue must be positive.)
Eigen::MatrixXd own_covariance(const FormulaClaim& f, const Case& c, const std::string& what, Eigen::MatrixXd m, int d) {
  const std::string at = fmt::format("{}: {} at {}", f.id, what, c.label());
  switch (covariance_fault(m, d)) {
    case CovarianceFault::none: break;
    case CovarianceFault::shape:
      throw UsageError(fmt::format("{} is {} x {}, not d x d = {} x {}", at, m.rows(), m.cols(), d, d));
    case CovarianceFault::non_finite: throw UsageError(fmt::format("{} has a non-finite entry", at));
    case CovarianceFault::not_symmetric: throw UsageError(fmt::format("{} is not symmetric", at));
    case CovarianceFault::not_positive_definite: throw UsageError(fmt::format("{} is not positive definite", at));
  }
  m = 0.5 * (m + m.transpose());
  if (Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(m).eigenvalues().minCoeff() <= 0)
    throw UsageError(fmt::format("{} is not positive definite", at));
  return m;
}

// The case's input covariance: the grid's cov, or sigma(case).
Eigen::MatrixXd case_sigma(const FormulaClaim& f, const Case& c, int d, int cov) {
  return f.sigma ? own_covariance(f, c, "sigma", f.sigma(c), d) : test_covariance(d, cov);
}

// The linear task's Cov(w): I, or w_cov(case, Sigma).
Eigen::MatrixXd case_sigma_w(const FormulaClaim& f, const Case& c, int d, const Eigen::MatrixXd& sigma) {
  if (!f.w_cov) return Eigen::MatrixXd::Identity(d, d);
  if (f.task != "linear") throw UsageError(fmt::format("{}: w_cov is for the linear task (task='linear')", f.id));
  return own_covariance(f, c, "w_cov", f.w_cov(c, sigma), d);
}

// The task of a case: x ~ N(0, sigma), the weights' law (w ~ N(0, I), or with w_cov N(0, sigma_w): y = <C u, x> with
// u ~ N(0, I) and C C^T = sigma_w, i.e. the basis (C^T x)_m) and label noise.
GaussianIclModel task_model(const FormulaClaim& f, const Eigen::MatrixXd& sigma, const Eigen::MatrixXd& sigma_w,
                            double noise) {
  try {
    return task_law_model(f.task, sigma, f.w_cov ? &sigma_w : nullptr, noise);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", f.id, e.what()));
  }
}

// The case's laws of the prompts: the task model, or under FormulaClaim::theta0 the linear task with w fixed at
// +theta0 and at -theta0 (two equally likely laws).
std::vector<GaussianIclModel> case_laws(const FormulaClaim& f, const Case& c, const GaussianIclModel& model, int d) {
  if (!f.theta0) return {model};
  const Eigen::VectorXd t = f.theta0(c);
  const std::string at = fmt::format("{}: theta0 at {}", f.id, c.label());
  if (t.size() != d) throw UsageError(fmt::format("{} has {} entries, not d = {}", at, t.size(), d));
  if (!t.allFinite()) throw UsageError(at + " has a non-finite entry");
  if (t.isZero(0)) throw UsageError(at + " is zero (every label 0)");
  std::vector<GaussianIclModel> laws(2, model);
  for (int s = 0; s < 2; ++s) {
    laws[s].random_w = false;
    laws[s].fixed_w = s ? Eigen::VectorXd(-t) : t;
    laws[s].name = fmt::format("{}, w = {}theta0", model.name, s ? "-" : "+");
  }
  return laws;
}

// One layer's exact loss under the case's equally likely laws: the mean of each law's (moments[k]); `basis` gets the
// mixture's words where there are several.
double mean_over_laws(const std::vector<SingleLayerMoments>& moments, const Eigen::MatrixXd& coefficients,
                      int n, std::string& basis) {
  if (moments.size() > 1) basis += fmt::format(", the mean over the {} laws of w", moments.size());
  double loss = 0;
  for (const SingleLayerMoments& m : moments) loss += single_layer_loss(m, coefficients, n);
  return loss / static_cast<double>(moments.size());
}

LsaStack no_layers(int d) {  // a network model's case: its weights are no LSA stack
  LsaStack w;
  w.d = d;
  return w;
}

// The prediction -Z[D-1, n] of one layer is linear in P's last row: negating it flips the prediction's sign (zfb's
// convention yhat = +Z[D-1, n] read in the library's, or a Q built with the opposite sign).
void flip_prediction(LinearSelfAttention& h) { h.P.row(h.P.rows() - 1) *= -1.0; }

}  // namespace

FormulaCase::FormulaCase(const FormulaClaim& f_, const ClaimContext& ctx_, const Case& c_)
    : f(f_),
      ctx(ctx_),
      c(c_),
      d(c.geti("d")),
      n(c.geti("n")),
      cov(has_param(c, "cov") ? c.geti("cov") : 0),
      noise(has_param(c, "noise") ? c.get("noise") : 0.0),
      stated(f.kind == "identity" ? 0.0 : stated_at(f, c)),
      sigma(case_sigma(f, c_, d, cov)),
      sigma_w(case_sigma_w(f, c_, d, sigma)),
      model(task_model(f, sigma, sigma_w, noise)),
      laws(case_laws(f, c_, model, d)),
      net(f.network ? std::optional<NetworkModel>(network_at()) : std::nullopt),
      w(net ? no_layers(d) : weights_at(f.kind == "argmin" ? std::optional<double>(stated) : std::nullopt)),
      stack(net ? net->net : w.transformer()),
      shape(net ? net->shape : acds_shape(d, n)),
      exact(net ? network_exact() : exact_loss(w)),
      purpose(ctx.purpose(c.label())) {}

NetworkModel FormulaCase::network_at() const {
  NetworkModel m = f.network(c);
  if (m.shape.d != d || m.shape.n != n)
    throw UsageError(fmt::format("{}: the model at {} reads prompts of d = {}, n = {}; the case has d = {}, n = {}", f.id,
                                 c.label(), m.shape.d, m.shape.n, d, n));
  if (m.net.size() < 1) throw UsageError(fmt::format("{}: the model at {} has no layers", f.id, c.label()));
  return m;
}

std::optional<double> FormulaCase::network_exact() {
  const Network& nt = net->net;
  if (d > exact_max_d(f.task) || net->shape.embedding == Embedding::unstructured) return std::nullopt;
  const int p = net->shape.rows() - 1;  // the features: every row but the label's
  std::vector<Poly> u;
  int first = 0;
  if (net->shape.embedding == Embedding::sja) {
    if (const auto* b = dynamic_cast<const layers::Bilinear*>(&nt.layer(0))) {
      u = bilinear_features(b->spec(), d, p);
      first = 1;
    } else {
      u = sja_embedding_features(d, p);
    }
  } else {
    u = identity_features(d);
  }
  if (nt.size() - first != 1) return std::nullopt;
  std::vector<LinearSelfAttention> heads;
  if (const auto* a = dynamic_cast<const layers::Lsa*>(&nt.layer(first)))
    heads = {a->spec()};
  else if (const auto* hs = dynamic_cast<const layers::LsaHeads*>(&nt.layer(first)))
    heads = hs->spec().heads;
  else
    return std::nullopt;
  for (auto& h : heads) {
    if (!h.masked) return std::nullopt;
    if (net->sign < 0) flip_prediction(h);  // zfb's (yhat - y)^2 is (-yhat + y)^2
  }
  exact_basis = first ? "the bilinear layer's output rows as polynomials in x (exact/feature_moments.hpp "
                        "bilinear_features), then the attention layer's single-layer moments"
                      : "the single-layer moments (exact/feature_moments.hpp)";
  std::vector<SingleLayerMoments> per_law;
  for (const GaussianIclModel& law : laws) per_law.push_back(single_layer_moments(law, u));
  return mean_over_laws(per_law, single_layer_coefficients(heads, p, n), n, exact_basis);
}

LsaStack FormulaCase::weights_at(std::optional<double> x) const {
  Case k = c;
  if (x) k.params.emplace_back(f.argmin_over, *x);
  const LsaStack wk = f.model(k);
  if (wk.d != d || wk.num_layers() < 1)
    throw UsageError(fmt::format("{}: the model at {} has d = {}, the case d = {}", f.id, k.label(), wk.d, d));
  return wk;
}

namespace {

// A stack in acds's form (8) or (11) (formula.hpp exact_loss): A_l, B_l, and whether any B_l is nonzero.
struct AcdsForm {
  std::vector<Eigen::MatrixXd> A, B;
  bool form11 = false;
};
std::optional<AcdsForm> acds_form_of(const LsaStack& w, int d, int n) {
  AcdsForm f;
  for (const auto& layer : w.layers) {
    if (layer.size() != 1) return std::nullopt;
    const LinearSelfAttention& h = layer.front();
    if (!h.masked || (h.scale != 0 && h.scale != 1.0 / n) || h.P.rows() != d + 1 || h.Q.rows() != d + 1) return std::nullopt;
    if (h.P(d, d) != 1 || !h.P.row(d).head(d).isZero(0) || !h.P.col(d).head(d).isZero(0)) return std::nullopt;
    if (!h.Q.row(d).isZero(0) || !h.Q.col(d).isZero(0)) return std::nullopt;
    f.A.push_back(-h.Q.topLeftCorner(d, d));
    f.B.push_back(h.P.topLeftCorner(d, d));
    f.form11 = f.form11 || !f.B.back().isZero(0);
  }
  return f;
}

}  // namespace

std::optional<double> FormulaCase::exact_loss(const LsaStack& weights) {
  const int L = weights.num_layers();
  if (L == 1 && d <= exact_max_d(f.task)) {
    if (moments.empty())
      for (const GaussianIclModel& law : laws) moments.push_back(single_layer_moments(law, identity_features(d)));
    exact_basis = "the single-layer moments (exact/feature_moments.hpp)";
    return mean_over_laws(moments, single_layer_coefficients(weights.layers[0], d, n), n, exact_basis);
  }
  if (L < 2 || f.task != "linear" || noise != 0 || f.theta0) return std::nullopt;  // acds_population: w Gaussian
  const std::optional<AcdsForm> form = acds_form_of(weights, d, n);
  if (!form || L > (form->form11 ? 2 : 4)) return std::nullopt;
  if (!population || population->form11() != form->form11)
    population = std::make_shared<AcdsPopulation>(sigma, sigma_w, n, L, form->form11);
  exact_basis = fmt::format("the population loss of acds's form ({}), L = {} (exact/acds_population.hpp)",
                            form->form11 ? 11 : 8, L);
  return population->loss(form->A, form->B);
}

MixturePromptWorker FormulaCase::worker() const {
  return MixturePromptWorker(stack, laws, shape, ctx.seed, purpose, net ? net->sign : +1.0);
}

Decision check_stated_value(FormulaRun& run, const FormulaCase& k, CaseJson& j, std::optional<Decision> exact_vs_stated,
                            const std::function<Decision(const Estimate&, double)>& judge, const DecideAt& edges) {
  j.quantity("stated", k.stated);
  if (k.exact) j.quantity("exact", *k.exact);
  const EqualityOutcome o = exact_first_check(run.ctx, run.alpha_case, exact_vs_stated, k.exact, judge, edges, run.tol,
                                              1, 0, kFormulaFirstLook, [&] { return k.worker(); });
  run.looks = std::max(run.looks, o.looks_planned);
  j.quantity("mc", o.mc);
  const Decision v = o.verdict;
  j.verdict(v);
  j.decisions(o);
  if (v.verdict == Verdict::inconclusive) {
    if (o.mc_vs_exact && o.mc_vs_exact->verdict == Verdict::refuted)
      run.inconsistent.push_back(k.c.label());
    else
      run.undecided.push_back(o.samples_to_decide
                                  ? fmt::format("{} (about {} prompts would decide it; {} used, interval +/- {:.3g})",
                                                k.c.label(), *o.samples_to_decide, o.mc.samples,
                                                0.5 * (o.mc.ci_high - o.mc.ci_low))
                                  : fmt::format("{} (its Monte Carlo mean sits on the edge of the tolerance: no sample "
                                                "count decides it)",
                                                k.c.label()));
  }
  return v;
}

std::string name_cases(const std::vector<std::string>& cases) {
  std::string s;
  for (std::size_t i = 0; i < cases.size() && i < 5; ++i) s += (i ? "; " : "") + cases[i];
  if (cases.size() > 5) s += fmt::format("; and {} more", cases.size() - 5);
  return s;
}

std::string stated_value_refutation(const FormulaClaim& f, const std::string& what) {
  return fmt::format("the stated {} fails: the library's exact loss of the model excludes the stated value "
                     "(within {:.3g} relative), and Monte Carlo through the forward pass does not exclude the "
                     "exact loss, or, where there is no exact loss, Monte Carlo excludes the stated value "
                     "(within {:.3g}%).",
                     what, f.exact_tolerance, 100 * f.tolerance);
}

namespace {

// Whether the case's one-layer weights with the prediction's sign flipped (every head's P last row negated: the
// prediction -Z[d, n] is linear in it) have, exactly, the stated loss: the usual slip of building Q with +Gamma where
// the library's convention wants P[d, d] = 1, Q = -Gamma (or the zfb convention yhat = +Z[d, n]).
bool sign_flip_matches(FormulaCase& k) {
  LsaStack flipped = k.w;
  for (auto& layer : flipped.layers)
    for (auto& h : layer) flip_prediction(h);
  const std::string basis = k.exact_basis;
  const std::optional<double> e = k.exact_loss(flipped);
  k.exact_basis = basis;
  return e && std::abs(*e - k.stated) <= k.f.exact_tolerance * std::abs(k.stated) + 1e-12;
}

std::string sign_hint_text() {
  return "the weights with the prediction's sign flipped (P's last row negated) have exactly the stated loss: the "
         "library predicts yhat = -Z[d, n], so a GD step of preconditioner Gamma > 0 is P[d, d] = 1 with "
         "Q = diag(-Gamma, 0), or P[d, d] = -1 with Q = diag(Gamma, 0) (optimal_gamma returns the negative definite "
         "block for P[d, d] = 1); check the sign";
}

ClaimResult run_formula(const FormulaClaim& f, const ClaimContext& ctx) {
  ClaimResult res;
  FormulaRun run(f, ctx);
  const bool equality = f.kind == "equality", upper = f.kind == "upper_bound", argmin = f.kind == "argmin",
             identity = f.kind == "identity";
  std::size_t done = 0;
  for (const auto& c : ctx.cases) {
    if (f.between_cases) f.between_cases();
    FormulaCase k(f, ctx, c);
    run.with_exact += k.exact.has_value();
    CaseJson j(c);
    j.field("covariance", f.sigma ? std::string("sigma of one's own") : covariance_name(k.cov, k.d));
    if (f.w_cov) j.field("w_law", "w ~ N(0, w_cov) of one's own");
    if (k.net) j.field("model", k.net->what);
    if (k.exact) j.field("exact_basis", k.exact_basis);
    const Decision v = equality   ? equality_case(run, k, j)
                       : argmin   ? argmin_case(run, k, j)
                       : identity ? identity_case(run, k, j)
                                  : bound_case(run, k, j, upper);
    if (equality && v.verdict == Verdict::refuted && k.exact && k.w.num_layers() == 1 && sign_flip_matches(k))
      run.sign_flipped.push_back(c.label()), j.field("sign_hint", sign_hint_text());
    run.confirmed += v.verdict == Verdict::confirmed;
    run.refuted += v.verdict == Verdict::refuted;
    res.cases.push_back(j.take());
    if (ctx.progress) ctx.progress(++done, ctx.cases.size());
  }
  const std::string what = equality ? "formula"
                           : upper  ? "upper bound"
                           : argmin ? "minimiser"
                           : identity ? "prediction"
                                      : "lower bound";
  std::optional<ProposedCorrection> proposal;
  if (equality && run.refuted > 0 && f.propose) proposal = search_correction(f, ctx);
  if (run.refuted > 0)
    res.parts["a"].on_refuted(Refutation{RefutationClass::substantive,
                                         argmin     ? argmin_refutation(f)
                                         : identity ? identity_refutation(f)
                                                    : stated_value_refutation(f, what),
                                         run.counterexample ? *run.counterexample : nlohmann::ordered_json::object(),
                                         proposal ? correction_sentence(*proposal) : std::string()});
  // identity: no Monte Carlo decides (every prompt is compared), so no error rate applies
  res.extra["error_rates"] =
      identity ? nlohmann::ordered_json{{"decision", fmt::format("deterministic: the prediction on each of {} prompts "
                                                                 "per case compared with the reference; no "
                                                                 "statistical test",
                                                                 f.prompts)},
                                        {"tolerance", fmt::format("{:.3g} relative plus 1e-12 absolute", f.exact_tolerance)}}
               : error_rates_json(ctx.alpha, ctx.cases.size(), run.looks, run.tol);
  if (argmin) res.extra["quantity_meanings"] = argmin_quantity_meanings(f);
  if (identity) res.extra["quantity_meanings"] = identity_quantity_meanings(f);
  const std::size_t mc_only = identity ? 0 : ctx.cases.size() - run.with_exact;
  std::string how;
  if (identity)
    how = fmt::format("each on {} prompts of its stream: the forward pass's prediction against the reference, within "
                      "{:.3g} relative",
                      f.prompts, f.exact_tolerance);
  else if (run.with_exact > 0)
    how = fmt::format("{} with the library's exact loss, which decides{}", run.with_exact,
                      argmin ? " the minimiser" : ", Monte Carlo through the forward pass checking it");
  if (mc_only > 0)
    how += fmt::format("{}{} without one: {}", how.empty() ? "" : "; ", mc_only,
                       argmin ? "the search on the Monte Carlo loss, the excess decided on fresh paired prompts"
                              : "Monte Carlo through the forward pass decides");
  res.summary = fmt::format("{}: of {} cases, {} confirm the stated {} and {} refute it ({})",
                            to_string(claim_verdict(ctx, res)), ctx.cases.size(), run.confirmed, what, run.refuted, how);
  if (!run.inconsistent.empty())
    res.summary += fmt::format("; INTERNAL INCONSISTENCY (Monte Carlo through the forward pass excludes the library's "
                               "exact loss; no verdict on the claim) at {}",
                               name_cases(run.inconsistent));
  if (!run.undecided.empty()) res.summary += "; undecided: " + name_cases(run.undecided);
  if (!run.sign_flipped.empty())
    res.summary += fmt::format("; at {}: {}", name_cases(run.sign_flipped), sign_hint_text());
  if (proposal) add_correction(res, *proposal);
  return res;
}

void check_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || !std::all_of(id.begin(), id.end(), [](unsigned char ch) {
        return std::isalnum(ch) || ch == '.' || ch == '_' || ch == '-';
      }) || id.front() == '.' || id.front() == '-')
    throw UsageError(fmt::format("claim id '{}': use 1 to 64 letters, digits, '.', '_' or '-' (it names the report files)",
                                 printable_line(id, 80)));
  // A word the command line reads as something else: 'all' (every claim of the catalogue) or a subcommand.
  for (const char* word : {"all", "list", "run", "report", "eval", "help"})
    if (id == word)
      throw UsageError(fmt::format("claim id '{}' is a word of the command line ('all' runs the whole catalogue); "
                                   "choose another name",
                                   id));
}

}  // namespace

Claim formula_claim(const FormulaClaim& f) {
  check_id(f.id);
  if (f.statement.empty()) throw UsageError(f.id + ": a statement is required (what is claimed, in words)");
  if (f.kind != "equality" && f.kind != "upper_bound" && f.kind != "lower_bound" && f.kind != "argmin" &&
      f.kind != "identity" && f.kind != "rate")
    throw UsageError(fmt::format("{}: kind '{}' is not equality, upper_bound, lower_bound, argmin, identity or rate",
                                 f.id, printable_line(f.kind, 40)));
  if (f.kind == "argmin") {
    check_argmin_fields(f);
  } else if (!f.argmin_over.empty() || f.argmin_range) {
    throw UsageError(fmt::format("{}: argmin_over and argmin_range belong to kind 'argmin', not '{}'", f.id, f.kind));
  }
  if (std::string why; named_task_degree(f.task, why) < 0) throw UsageError(fmt::format("{}: {}", f.id, why));
  if (f.model && f.network) throw UsageError(f.id + ": give the model as LSA weights or as a network, not both");
  if (f.theta0 && (f.w_cov || f.task != "linear" || f.kind == "argmin"))
    throw UsageError(f.id + ": theta0 (w = +-theta0) is a law of w on the linear task: not with w_cov, another task, "
                            "or kind 'argmin'");
  if (f.network && f.kind == "argmin")
    throw UsageError(f.id + ": kind 'argmin' takes LSA weights (P1, Q1, ...), not a network of layers");
  const bool has_model = f.model || f.network;
  if (f.kind == "identity") {
    if (!f.reference || !has_model) throw UsageError(f.id + ": kind 'identity' needs the reference and the model");
    if (f.prompts < 1 || f.prompts > 100000000) throw UsageError(f.id + ": prompts must be in [1, 1e8]");
  } else if (!f.stated || !has_model) {
    throw UsageError(f.id + ": both the stated value and the model are required");
  } else if (f.reference) {
    throw UsageError(fmt::format("{}: a reference belongs to kind 'identity', not '{}'", f.id, f.kind));
  }
  if (!(f.tolerance > 0 && f.tolerance < 1)) throw UsageError(f.id + ": tolerance must be in (0, 1)");
  if (!(f.exact_tolerance >= 0 && f.exact_tolerance < 1)) throw UsageError(f.id + ": exact_tolerance must be in [0, 1)");
  if (f.samples < 1) throw UsageError(f.id + ": samples must be >= 1");
  if (!(f.propose_budget_s > 0 && f.propose_budget_s <= 86400))
    throw UsageError(f.id + ": propose_budget_s must be in (0, 86400] seconds");
  std::set<std::string> names;
  for (const auto& p : f.grid) {
    if (!names.insert(p.name).second) throw UsageError(fmt::format("{}: grid parameter '{}' given twice", f.id, p.name));
    if (p.defaults.empty()) throw UsageError(fmt::format("{}: grid parameter '{}' has no values", f.id, p.name));
    for (double v : p.defaults) {
      if (!std::isfinite(v) || v < p.min || v > p.max || (p.integer && v != std::round(v)))
        throw UsageError(fmt::format("{}: grid parameter {} = {:g} is outside [{:g}, {:g}]{}", f.id, p.name, v, p.min,
                                     p.max, p.integer ? " or not a whole number" : ""));
    }
  }
  for (const char* need : {"d", "n"})
    if (!names.count(need)) throw UsageError(fmt::format("{}: the grid must give '{}'", f.id, need));
  if (f.kind == "rate") check_rate_fields(f);

  Claim c;
  c.id = f.id;
  c.title = f.title.empty() ? f.statement : f.title;
  if (f.title.empty() && c.title.size() > 100) c.title.replace(97, std::string::npos, "...");
  c.source = f.source.empty() ? std::string("stated by the user") : f.source;
  c.statement = f.statement;
  c.params = f.grid;
  for (auto& p : c.params) p.quick = p.defaults;
  c.default_samples = f.kind == "identity" ? f.prompts : f.samples;  // identity: the prompts compared
  c.quick_samples = c.default_samples;
  c.memory_bytes = [](const Case& k, int threads) { return threads * acds_shape(k.geti("d"), k.geti("n")).workspace_bytes(); };
  c.parts = {PartSpec{"a",
                      f.kind == "equality"      ? equality_part()
                      : f.kind == "upper_bound" ? bound_part(true)
                      : f.kind == "argmin"      ? argmin_part(f)
                      : f.kind == "identity"    ? identity_part()
                      : f.kind == "rate"        ? rate_part(f)
                                                : bound_part(false),
                      Strength::theorem}};
  if (f.kind == "argmin") c.table = argmin_table(f);
  if (f.kind == "identity") c.table = identity_table();
  if (f.kind == "rate") c.table = rate_table(f);
  c.run = [f](const ClaimContext& ctx) { return f.kind == "rate" ? run_rate(f, ctx) : run_formula(f, ctx); };
  return c;
}

}  // namespace icl
