#include "claims/common/sja_training.hpp"

#include <fmt/format.h>

namespace icl::sja_train {

Settings::Settings() {
  steps = 20000;
  batch = 4000;
  trials = 5;
  learning_rate = 1e-3;
  init_sd = 0.02;  // small: a 6-layer LSA stack is cubic per layer and explodes from N(0, 0.1^2) at n = 200
  clip = 0.0;      // the paper states none
}

Settings Settings::from_case(const Case& c) {
  Settings s;
  for (const auto& [k, v] : c.params) {
    if (k == "steps") s.steps = static_cast<int>(v);
    if (k == "batch") s.batch = static_cast<std::uint64_t>(v);
    if (k == "trials") s.trials = static_cast<int>(v);
    if (k == "lr") s.learning_rate = v;
    if (k == "init_sd") s.init_sd = v;
    if (k == "clip") s.clip = v;
  }
  return s;
}

std::vector<ParamSpec> with_training_params(std::vector<ParamSpec> model, const std::optional<DecidingTraining>& deciding) {
  const std::string steps_help =
      deciding ? fmt::format("Adam steps (paper 20000; deciding {}, {})", deciding->steps, deciding->why) : "Adam steps (paper 20000)";
  std::string clip_help = "per-matrix gradient-norm clipping, 0 for none (the paper states none";
  clip_help += deciding && deciding->clip > 0
                   ? fmt::format("; deciding {:g}: without it the models froze in the pilots at batch 64 and 128, bench/deciding_pilots.md)", deciding->clip)
                   : ")";
  std::vector<ParamSpec> training = {
      with_paper(ParamSpec{"steps", {200}, {40}, 1, 1e6, true, steps_help}, {20000}),
      with_paper(ParamSpec{"batch", {200}, {64}, 1, 1e6, true, "prompts per step, fresh every step (paper 4000)"}, {4000}),
      with_paper(ParamSpec{"trials", {3}, {3}, 2, 20, true, "training runs per model (paper 5)"}, {5}),
      with_paper(ParamSpec{"lr", {1e-3}, {1e-3}, 1e-6, 1, false, "Adam learning rate (paper 1e-3)"}, {1e-3}),
      ParamSpec{"init_sd", {0.02}, {0.02}, 1e-6, 1, false,
                "every trained entry starts ~ N(0, init_sd^2) (the paper does not state its initialisation)"},
      ParamSpec{"clip", {0}, {0}, 0, 1e6, false, clip_help},
      with_paper(with_names(ParamSpec{"attention", {0}, {0}, 0, 1, true,
                                      "the bilinear blocks' attention: full (every entry of P, the paper's (2)) or label_row "
                                      "(P trained in its label row only, as the constructions (5); the variant that trains at "
                                      "the paper's recipe, docs/budgets.md): label_row at the paper and deciding budgets",
                                      true},
                            {{0, "full"}, {1, "label_row"}}),
                 {1})};
  if (deciding) {
    for (auto& p : model) p = with_deciding(p, p.paper.empty() ? p.defaults : p.paper);
    training[0] = with_deciding(training[0], {static_cast<double>(deciding->steps)});
    training[1] = with_deciding(training[1], {static_cast<double>(deciding->batch)});
    training[2] = with_deciding(training[2], {static_cast<double>(deciding->trials)});
    training[3] = with_deciding(training[3], {1e-3});
    if (deciding->clip > 0) training[5] = with_deciding(training[5], {deciding->clip});
    training[6] = with_deciding(training[6], {1});
  }
  model.insert(model.end(), training.begin(), training.end());
  return model;
}

std::string Settings::differences() const {
  std::vector<std::string> parts;
  if (batch != 4000) parts.push_back(fmt::format("batch {} (paper 4000)", batch));
  if (steps != 20000) parts.push_back(fmt::format("{} steps (paper 20000)", steps));
  if (trials != 5) parts.push_back(fmt::format("{} trials (paper 5)", trials));
  if (learning_rate != 1e-3) parts.push_back(fmt::format("learning rate {:g} (paper 1e-3)", learning_rate));
  if (clip > 0) parts.push_back(fmt::format("gradient clipping at norm {:g} per matrix (paper: none stated)", clip));
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

learn::SjaAttention attention_of(const ClaimContext& ctx) {
  return ctx.setting("attention") == 1 ? learn::SjaAttention::label_row : learn::SjaAttention::full;
}

std::string attention_note(const ClaimContext& ctx) {
  return attention_of(ctx) == learn::SjaAttention::label_row ? "attention P trained in its label row only"
                                                             : "attention P full (the paper's (2))";
}

trained::TrainedGate floor_gate(const trained::TestLosses& at_training_length, double floor, const std::string& what) {
  return trained::trained_gate(at_training_length, 1.1 * floor, fmt::format("1.1 x {} = {:.4g}", what, 1.1 * floor));
}

trained::TrainedGate bilinear_gate(const trained::TestLosses& at_training_length, double Ey2) {
  return trained::trained_gate(at_training_length, 0.1 * Ey2, fmt::format("0.1 E[y^2] = {:.4g}", 0.1 * Ey2));
}

trained::TrainedGate linear_gate(const trained::TestLosses& at_training_length, int d) {
  return floor_gate(at_training_length, linear_floor(d), "the best affine predictor's loss");
}

double linear_floor(int d) { return d * (d - 1) / 2.0 + 2.0 * d; }

icl::PromptSource prompts(const GaussianIclModel& task, int dbar, int n) {
  return icl::gaussian_prompts(task, sja_shape(task.d, dbar, n));
}

learn::TrainConfig train_trials(const ClaimContext& ctx, trained::Model& model, const GaussianIclModel& task,
                                const PromptShape& shape, const Settings& s, const std::string& data_tag) {
  return trained::train_trials(ctx, model, icl::gaussian_prompts(task, shape), icl::LossSpec::sja(), s, data_tag);
}

trained::TestLosses test_losses(const ClaimContext& ctx, const trained::Model& model, const GaussianIclModel& task, int dbar, int n_test,
                       int layers) {
  return trained::test_losses(ctx, model, prompts(task, dbar, n_test), icl::LossSpec::sja(), n_test, layers);
}

std::vector<Estimate> paired_differences(const ClaimContext& ctx, const trained::Model& lower, const trained::Model& higher,
                                         const GaussianIclModel& task, int dbar, int n_test) {
  return trained::paired_differences(ctx, lower, higher, prompts(task, dbar, n_test), icl::LossSpec::sja(), n_test);
}

nlohmann::ordered_json training_block(const learn::TrainConfig& c, const Settings& s, const std::vector<std::uint64_t>& seeds,
                                      const std::string& claim_id, const std::string& extra_differences) {
  return trained::training_block(c, s.against_paper(), s.init_sd, seeds, claim_id, extra_differences);
}

double quadratic_label_moment(int d) { return 1.0 + d + d * (d - 1) / 2.0 + 3.0 * d; }

TailedSides::TailedSides(const ClaimContext& ctx, const std::vector<trained::Model>& models, int d, int dbar)
    : trained::TailedSides(
          ctx, models,
          [task = GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d)),
           dbar](int n_test) { return prompts(task, dbar, n_test); },
          icl::LossSpec::sja(), trained::kTailCap * quadratic_label_moment(d)) {}

}  // namespace icl::sja_train
