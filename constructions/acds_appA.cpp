#include "constructions/acds_appA.hpp"

#include "constructions/acds_forms.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/model/prompt.hpp"
#include "icl/verdict/matrix_check.hpp"

#include <fmt/format.h>

namespace icl::acds {

SingleLayerTraining train_single_layer(const ClaimContext& ctx, const std::string& label, const GaussianIclModel& model,
                                       int d, int n, const FeatureMoments& fm, const Eigen::MatrixXd& target) {
  SingleLayerTraining t;
  const icl::Parameterisation p = learn::acds_form8(d, 1);
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
  c.label = ctx.claim_id + " " + label;
  t.result = learn::train(p, icl::normal_theta(p, 0.1, ctx.seed, ctx.purpose(label + "/init")),
                          icl::gaussian_prompts(model, acds_shape(d, n)), icl::LossSpec::acds(), c);
  t.gamma = -p.group_matrix("A_0", t.result.theta);
  t.relative = (t.gamma - target).norm() / target.norm();
  t.exact_loss = sparse_lsa_loss(fm, t.gamma, n);
  return t;
}

argmin_gamma::Extra trained_check(const SingleLayerTraining& t, double tol) {
  argmin_gamma::Extra e;
  e.name = "trained_matrix";
  e.label = "Training";
  e.quantities = [&t](CaseJson& j) {
    j.quantity("trained_matrix", t.gamma).quantity("trained_relative_difference", t.relative);
    j.quantity("trained_exact_loss", t.exact_loss).field("training_run", learn::curve_json(t.result));
  };
  if (!t.result.ok()) {
    e.decision = {Verdict::inconclusive, tol, 0,
                  fmt::format("training {}: {}", learn::to_string(t.result.status), t.result.reason)};
    return e;
  }
  e.decision = judge_relative_difference(t.relative, tol,
                                         fmt::format("trained (Adam, {} steps, batch {}): ||trained - Q0 block||_F / "
                                                     "||Q0 block||_F", t.result.steps_done, t.config.batch));
  e.decision.why += fmt::format("; its exact loss {:.6g}", t.exact_loss);
  return e;
}

void report_training(ClaimRun& r, const SingleLayerTraining& t, const std::string& title) {
  r.extra("training") = learn::training_json(t.config, {r.ctx().seed}, false, r.ctx().claim_id + ".training.svg");
  r.result().files["training.svg"] = learn::training_svg(title, {{"A_0", &t.result}});
}

}  // namespace icl::acds
