#include "constructions/acds_training.hpp"

#include "icl/exact/acds_family_loss.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/optimizers.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/model/prompt.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl::acds_exp {

namespace {

std::vector<Eigen::MatrixXd> group_list(const icl::Parameterisation& p, const Eigen::VectorXd& theta, char name, int count) {
  std::vector<Eigen::MatrixXd> out;
  for (int l = 0; l < count; ++l) out.push_back(p.group_matrix(fmt::format("{}_{}", name, l), theta));
  return out;
}

// The selection of RunSettings::select_last: the snapshots from the curve's theta columns, each measured on the case's
// validation prompts; the best (the latest among equals) becomes the run's weights; the theta columns are dropped.
void select_snapshot(const ClaimContext& ctx, const std::string& tag, const icl::Parameterisation& p,
                     const icl::PromptSource& source, const RunSettings& s, std::size_t dist_columns, RunOutcome& o) {
  learn::TrainCurve& cv = o.result.curve;
  const std::size_t P = static_cast<std::size_t>(p.size());
  double best = INFINITY;
  for (std::size_t i = 0; i < cv.step.size(); ++i) {
    if (cv.extra.size() < dist_columns + P || !std::isfinite(cv.extra[dist_columns][i])) continue;
    Eigen::VectorXd th(p.size());
    for (std::size_t k = 0; k < P; ++k) th[static_cast<Eigen::Index>(k)] = cv.extra[dist_columns + k][i];
    if (!th.allFinite()) continue;
    const double l = learn::mc_loss(p.network(th), source, icl::LossSpec::acds(), ctx.seed,
                                    ctx.purpose(tag + "/validate"), s.select_samples, ctx.threads).mean;
    o.select_losses.push_back(l);
    if (l <= best) best = l, o.selected_step = cv.step[i], o.result.theta = th;
  }
  cv.extra.resize(std::min(cv.extra.size(), dist_columns));
  cv.extra_names.resize(std::min(cv.extra_names.size(), dist_columns));
}

}  // namespace

Protocol authors_protocol(bool form11) {
  if (form11)
    return Protocol{100000, 0.1, 4000, 0.99, 0.9, 1e-4, 20000, 100, 0.01, 0, "'rotation demonstration-Adam.ipynb'",
                    "'rotation demonstration-Adam.ipynb' cells 1-2: lr 0.1, max_iters 100000, the learning rate halved "
                    "when t % 4000 == 0, AdamW betas (0.99, 0.9), var 0.0001"};
  return Protocol{30000, 0.02, 2000, 0.99, 0.9, 1e-4, 20000, 100, 0.01, 0, "'rotation demonstration-Adam-p0.ipynb'",
                  "'rotation demonstration-Adam-p0.ipynb' cells 1-2: lr 0.02, max_iters 30000, the learning rate halved "
                  "when t % 2000 == 0, AdamW betas (0.99, 0.9), var 0.0001"};
}

Protocol authors_appD_protocol(bool fig7, int n) {
  if (fig7)
    return Protocol{20000, 0.01, 4000, 0.99, 0.9, 1e-4, 20000, 100, 0.01, 20, "'variable_L_exp.ipynb'",
                    "'variable_L_exp.ipynb' cells 1-3: lr 0.01, max_iters 20000, halved when t % 4000 == 0, AdamW betas "
                    "(0.99, 0.9), var 0.0001, minibatch 20000 resampled every 100 steps, clip 0.01; the best of the last "
                    "20 saved weights (every 100 steps) on a validation batch"};
  return Protocol{8000, n < 5 ? 0.001 : 0.01, 2000, 0.99, 0.99, 1e-4, 40000, 1, 0.001, 10, "'variable_N_exp.ipynb'",
                  "'variable_N_exp.ipynb' cells 1-3: lr 0.001 for N < 5, else 0.01, max_iters 8000, halved when t % 2000 "
                  "== 0, AdamW betas (0.99, 0.99), var 0.0001, a fresh minibatch of 40000 every step, clip 0.001; the "
                  "best of the last 10 saved weights (every 100 steps) on a validation batch"};
}

RunOutcome train_run(const ClaimContext& ctx, const std::string& tag, int run, const RunSettings& s, double confidence) {
  RunOutcome o;
  const std::string rtag = fmt::format("{}/run{}", tag, run);
  o.U = random_orthogonal(s.d, ctx.seed, ctx.purpose(rtag + "/U"));
  o.sigma = paper_sigma(o.U);
  const Eigen::MatrixXd root = sqrt_psd(o.sigma);
  const GaussianIclModel model = inverse_weight_model(o.sigma);
  const icl::Parameterisation p = s.form11 ? learn::acds_form11(s.d, s.L) : learn::acds_form8(s.d, s.L);
  const int nB = s.form11 ? s.L - 1 : 0;  // B_{L-1} does not reach the prediction (acds footnote 4)

  learn::TrainConfig& c = o.config;
  c.optimizer = "adam";
  c.beta1 = s.beta1;
  c.beta2 = s.beta2;
  c.learning_rate = s.learning_rate;
  c.batch = s.batch;
  c.steps = s.steps;
  c.resample_every = s.resample;
  c.clip = s.clip;
  c.lr_decay = s.lr_decay;
  c.lr_decay_every = s.lr_decay_every;
  c.test_batch = 0;
  // With a selection, a curve point every select_every steps, so the snapshots are taken there (below).
  c.curve_points = s.select_last > 0 ? std::max(40, s.steps / std::max(1, s.select_every)) : 40;
  c.seed = ctx.seed;
  c.purpose = ctx.purpose(rtag + "/train");
  c.threads = ctx.threads;
  c.label = fmt::format("{} {} run {}", ctx.claim_id, tag, run);
  for (int l = 0; l < s.L; ++l) {
    c.observe_names.push_back(fmt::format("Dist(S^1/2 A_{} S^1/2, I)", l));
    c.observe_names.push_back(fmt::format("Dist(A_{}, I)", l));
  }
  for (int l = 0; l < nB; ++l) c.observe_names.push_back(fmt::format("Dist(B_{}, I)", l));
  // The snapshots of a selection ride in the curve as columns "theta[k]" (so a checkpoint keeps them and a resumed run
  // selects as an uninterrupted one), written only in the last select_last * select_every steps and removed below.
  const std::size_t dist_columns = c.observe_names.size();
  const int window_start = s.steps - s.select_last * s.select_every;
  if (s.select_last > 0)
    for (int k = 0; k < p.size(); ++k) c.observe_names.push_back(fmt::format("theta[{}]", k));
  // The trainer hands `values` sized to observe_names (filled with NaN): write by position.
  c.observe = [&p, &s, root, nB, dist_columns, window_start](int step, const Eigen::VectorXd& theta, std::vector<double>& values) {
    std::size_t k = 0;
    for (int l = 0; l < s.L; ++l) {
      const Eigen::MatrixXd A = p.group_matrix(fmt::format("A_{}", l), theta);
      values.at(k++) = dist_identity(root * A * root);
      values.at(k++) = dist_identity(A);
    }
    for (int l = 0; l < nB; ++l) values.at(k++) = dist_identity(p.group_matrix(fmt::format("B_{}", l), theta));
    if (s.select_last > 0 && step > window_start && step % s.select_every == 0)
      for (Eigen::Index j = 0; j < theta.size(); ++j) values.at(dist_columns + static_cast<std::size_t>(j)) = theta[j];
  };
  const Eigen::VectorXd theta0 = icl::normal_theta(p, s.init_sd, ctx.seed, ctx.purpose(rtag + "/init"));
  const icl::PromptSource source = icl::gaussian_prompts(model, acds_shape(s.d, s.n));
  {
    const auto A0 = group_list(p, theta0, 'A', s.L);
    for (const auto& A : A0) {
      o.dist_pre0.push_back(dist_identity(root * A * root));
      o.dist_raw0.push_back(dist_identity(A));
    }
  }
  o.result = learn::train(p, theta0, source, icl::LossSpec::acds(), c);
  c.observe = nullptr;  // the lambda refers to locals of this function
  if (s.select_last > 0) select_snapshot(ctx, tag, p, source, s, dist_columns, o);
  o.A = group_list(p, o.result.theta, 'A', s.L);
  if (s.form11) o.B = group_list(p, o.result.theta, 'B', s.L);
  for (const auto& A : o.A) {
    o.dist_pre.push_back(dist_identity(root * A * root));
    o.dist_raw.push_back(dist_identity(A));
    o.norm_A.push_back(A.norm());
  }
  for (int l = 0; l < nB; ++l) o.dist_B.push_back(dist_identity(o.B[l]));
  o.zero_loss = static_cast<double>(s.d);
  o.init_loss = o.result.curve.train_loss.empty() ? NAN : o.result.curve.train_loss.front();
  // The case's fixed test prompts: the same standard-normal draws for every run (each run's x = Sigma^1/2 z through
  // its own U), so the runs' held-out losses are measured on the same prompts, as the authors' fixed test batch.
  o.test_loss = learn::mc_loss(p.network(o.result.theta), source, icl::LossSpec::acds(), ctx.seed,
                               ctx.purpose(tag + "/test"), s.test_samples, ctx.threads, confidence);
  o.test_losses = learn::loss_distribution(p.network(o.result.theta), source, icl::LossSpec::acds(), ctx.seed,
                                           ctx.purpose(tag + "/test"), s.test_samples, ctx.threads);
  return o;
}

nlohmann::ordered_json run_json(const RunOutcome& r) {
  nlohmann::ordered_json j;
  j["status"] = learn::to_string(r.result.status);
  if (!r.result.ok()) j["reason"] = r.result.reason;
  j["zero_predictor_loss"] = r.zero_loss;
  j["init_loss"] = r.init_loss;
  j["final_train_loss"] = r.result.final_train_loss;
  j["test_loss"] = {{"mean", r.test_loss.mean},       {"stderr", r.test_loss.stderr_}, {"ci_low", r.test_loss.ci_low},
                    {"ci_high", r.test_loss.ci_high}, {"samples", r.test_loss.samples}, {"confidence", r.test_loss.confidence}};
  j["test_loss_distribution"] = r.test_losses.to_json();
  j["dist_pre_final"] = r.dist_pre;
  j["dist_raw_final"] = r.dist_raw;
  j["dist_pre_init"] = r.dist_pre0;
  j["dist_raw_init"] = r.dist_raw0;
  if (!r.dist_B.empty()) j["dist_B_final"] = r.dist_B;
  j["norm_A"] = r.norm_A;
  j["sigma_eigenvalues"] = {1, 1, 0.25, 0.0625, 1};
  j["training_run"] = learn::curve_json(r.result);
  return j;
}

double family_optimum(int d, int n, int L) { return reduced_family_optimum(d, n, L).loss; }

nlohmann::ordered_json experiment_training_json(const ClaimContext& ctx, bool form11, const learn::TrainConfig& config0,
                                                const std::vector<std::uint64_t>& seeds, bool paper,
                                                const std::string& differences) {
  nlohmann::ordered_json t = learn::training_json(config0, seeds, paper, ctx.claim_id + ".training.svg");
  t["trials"] = seeds.size();
  t["paper_settings_differences"] = differences;
  t["paper_optimizer_note"] =
      form11 ? "Sec. 5.1's text says Adam 'with the same setup as in Subsection 4.3'; Fig. 3c's caption and text plot "
               "'the in-context loss through the iterations of L-BFGS'. We train with Adam (the text); --set cannot "
               "switch the optimiser of this claim."
             : "Adam (Sec. 4.3).";
  return t;
}

std::string experiment_training_svg(bool form11, const std::vector<RunOutcome>& kept) {
  std::vector<std::pair<std::string, const learn::TrainResult*>> curves;
  for (std::size_t k = 0; k < kept.size(); ++k) curves.push_back({fmt::format("run {}", k), &kept[k].result});
  return learn::training_svg(
      fmt::format("Form ({}), d = 5, L = 3, first case, {} runs (each its own U)", form11 ? 11 : 8, kept.size()), curves);
}

}  // namespace icl::acds_exp
