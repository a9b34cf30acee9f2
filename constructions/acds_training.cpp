#include "constructions/acds_training.hpp"

#include "icl/exact/acds_family_loss.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/optimizers.hpp"
#include "icl/learn/prompts.hpp"
#include "icl/model/prompt.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl::acds_exp {

namespace {

std::vector<Eigen::MatrixXd> group_list(const learn::Parameterisation& p, const Eigen::VectorXd& theta, char name, int count) {
  std::vector<Eigen::MatrixXd> out;
  for (int l = 0; l < count; ++l) out.push_back(p.group_matrix(fmt::format("{}_{}", name, l), theta));
  return out;
}

}  // namespace

RunOutcome train_run(const ClaimContext& ctx, const std::string& tag, int run, const RunSettings& s, double confidence) {
  RunOutcome o;
  const std::string rtag = fmt::format("{}/run{}", tag, run);
  o.U = random_orthogonal(s.d, ctx.seed, ctx.purpose(rtag + "/U"));
  o.sigma = paper_sigma(o.U);
  const Eigen::MatrixXd root = sqrt_psd(o.sigma);
  const GaussianIclModel model = inverse_weight_model(o.sigma);
  const learn::Parameterisation p = s.form11 ? learn::acds_form11(s.d, s.L) : learn::acds_form8(s.d, s.L);
  const int nB = s.form11 ? s.L - 1 : 0;  // B_{L-1} does not reach the prediction (acds footnote 4)

  learn::TrainConfig& c = o.config;
  c.optimizer = "adam";
  c.learning_rate = s.learning_rate;
  c.batch = s.batch;
  c.steps = s.steps;
  c.resample_every = s.resample;
  c.clip = s.clip;
  c.lr_decay = s.lr_decay;
  c.lr_decay_every = s.lr_decay_every;
  c.test_batch = 0;
  c.curve_points = 40;
  c.seed = ctx.seed;
  c.purpose = ctx.purpose(rtag + "/train");
  c.threads = ctx.threads;
  c.label = fmt::format("{} {} run {}", ctx.claim_id, tag, run);
  for (int l = 0; l < s.L; ++l) {
    c.observe_names.push_back(fmt::format("Dist(S^1/2 A_{} S^1/2, I)", l));
    c.observe_names.push_back(fmt::format("Dist(A_{}, I)", l));
  }
  for (int l = 0; l < nB; ++l) c.observe_names.push_back(fmt::format("Dist(B_{}, I)", l));
  // The trainer hands `values` sized to observe_names (filled with NaN): write by position.
  c.observe = [&p, &s, root, nB](int, const Eigen::VectorXd& theta, std::vector<double>& values) {
    std::size_t k = 0;
    for (int l = 0; l < s.L; ++l) {
      const Eigen::MatrixXd A = p.group_matrix(fmt::format("A_{}", l), theta);
      values.at(k++) = dist_identity(root * A * root);
      values.at(k++) = dist_identity(A);
    }
    for (int l = 0; l < nB; ++l) values.at(k++) = dist_identity(p.group_matrix(fmt::format("B_{}", l), theta));
  };
  const Eigen::VectorXd theta0 = learn::normal_theta(p, s.init_sd, ctx.seed, ctx.purpose(rtag + "/init"));
  const learn::PromptSource source = learn::gaussian_prompts(model, acds_shape(s.d, s.n));
  {
    const auto A0 = group_list(p, theta0, 'A', s.L);
    for (const auto& A : A0) {
      o.dist_pre0.push_back(dist_identity(root * A * root));
      o.dist_raw0.push_back(dist_identity(A));
    }
  }
  o.result = learn::train(p, theta0, source, learn::LossSpec::acds(), c);
  c.observe = nullptr;  // the lambda refers to locals of this function
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
  o.test_loss = learn::mc_loss(p.network(o.result.theta), source, learn::LossSpec::acds(), ctx.seed,
                               ctx.purpose(rtag + "/test"), s.test_samples, ctx.threads, confidence);
  o.test_losses = learn::loss_distribution(p.network(o.result.theta), source, learn::LossSpec::acds(), ctx.seed,
                                           ctx.purpose(rtag + "/test"), s.test_samples, ctx.threads);
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

double family_optimum(int d, int n, int L) {
  const ReducedFamilyLoss fam(d, n, L, false);
  const learn::Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& th, Eigen::VectorXd& g) { return fam(th, g); };
  double best = INFINITY;
  for (double a0 : {0.3, 0.6, 1.0}) {
    learn::LbfgsOptions o;
    o.max_iterations = 300;
    o.gradient_tolerance = 1e-12;
    best = std::min(best, learn::minimize_lbfgs(f, Eigen::VectorXd::Constant(L, a0), o).loss);
  }
  return best;
}

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
