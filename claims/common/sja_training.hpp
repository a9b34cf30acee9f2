// The sja experiment claims' binding of the trained kind (lib/icl/claim/kinds/trained.hpp): sja.fig1, sja.fig2 and
// sja.fig4 train on sja's tasks (model/gaussian_model.hpp) embedded as sja's prompts (model/prompt.hpp sja_shape),
// under sja's loss, with the paper's training settings (App. J: Adam, lr 1e-3, batch 4000, 20000 steps, 5 trials)
// and the parameters every sja experiment claim takes. Everything else (trials, test losses, the comparisons'
// rules and their JSON) is the trained kind's, which the claims name as trained::.
#pragma once
#include "constructions/sja_forms.hpp"
#include "icl/claim/kinds/trained.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"

#include <optional>
#include <string>
#include <vector>

namespace icl::sja_train {

// The training settings a claim exposes as parameters, the paper's by default (Adam, lr 1e-3, batch 4000, 20000
// steps, 5 trials).
struct Settings : trained::Schedule {
  Settings();
  // Settings from a case's parameters "steps", "batch", "trials", "lr", "init_sd", "clip" (absent ones keep the
  // defaults).
  static Settings from_case(const Case& c);
  bool is_paper() const { return steps == 20000 && batch == 4000 && trials == 5 && learning_rate == 1e-3 && clip == 0; }
  // "batch 400 (paper 4000), 300 steps (paper 20000), 3 trials (paper 5)": what differs from the paper.
  std::string differences() const;
  trained::AgainstPaper against_paper() const { return {is_paper(), differences()}; }
};

// The deciding budget's training values of a claim that declares one (docs/budgets.md).
struct DecidingTraining {
  int steps = 0;
  int batch = 0;
  int trials = 0;
  double clip = 0;
  std::string why;  // where the values come from, said in the steps parameter's help
};
// `model` (the claim's model and grid parameters) followed by the training parameters every sja experiment claim
// takes, which Settings::from_case reads: steps, batch, trials, lr (the paper's 20000, 4000, 5, 1e-3), init_sd and clip
// (the paper states neither: N(0, 0.02^2) and none in every budget but the deciding one); with `deciding`, the deciding
// budget's values of all six and of every `model` parameter (its paper values: the deciding budget keeps the model).
// Last the budget setting `attention` (attention_of): full at quick and standard, label_row at paper and deciding.
std::vector<ParamSpec> with_training_params(std::vector<ParamSpec> model, const std::optional<DecidingTraining>& deciding = {});

// The bilinear models' attention (the setting `attention`, docs/budgets.md "The sja model question"): label_row (P
// trained in its label row only, the variant that trains at the paper's recipe) at the paper and deciding budgets,
// full (every entry of P, the paper's (2)) at quick and standard, whose reduced runs it keeps as they were.
learn::SjaAttention attention_of(const ClaimContext& ctx);
// "attention P trained in its label row only" or "attention P full (the paper's (2))": said in every verdict.
std::string attention_note(const ClaimContext& ctx);

// "Trained" (docs/budgets.md, "The sja model question", stated 3 December 2026 before the runs it decides): a trial
// of a bilinear model trained when its held-out loss at the training length is at most 0.1 E[y^2]; a trial of
// sja.fig1's linear Transformer when it is at most 1.1 x the best affine predictor's loss, below which no linear
// self-attention stack goes (its prediction is affine in the query, sja Sec. 3.1), linear_floor(d).
trained::TrainedGate bilinear_gate(const trained::TestLosses& at_training_length, double Ey2);
trained::TrainedGate linear_gate(const trained::TestLosses& at_training_length, int d);
// Per trial, the trials of a model at the level 1.1 x `floor` ("1.1 x <what> = ...").
trained::TrainedGate floor_gate(const trained::TestLosses& at_training_length, double floor, const std::string& what);
// The quadratic task's loss of the best affine predictor in x given the task's coefficients: the variance of its
// degree-2 part, d(d-1)/2 + 2d (9 at d = 3).
double linear_floor(int d);

// sja's prompts of `task` with embedding width dbar and n context examples, and its loss.
icl::PromptSource prompts(const GaussianIclModel& task, int dbar, int n);

// The trained kind's steps on sja's prompts and loss (trained.hpp), test prompts of length n_test.
learn::TrainConfig train_trials(const ClaimContext& ctx, trained::Model& model, const GaussianIclModel& task,
                                const PromptShape& shape, const Settings& s, const std::string& data_tag);
trained::TestLosses test_losses(const ClaimContext& ctx, const trained::Model& model, const GaussianIclModel& task, int dbar, int n_test,
                       int layers = 0);
std::vector<Estimate> paired_differences(const ClaimContext& ctx, const trained::Model& lower, const trained::Model& higher,
                                         const GaussianIclModel& task, int dbar, int n_test);
nlohmann::ordered_json training_block(const learn::TrainConfig& c, const Settings& s, const std::vector<std::uint64_t>& seeds,
                                      const std::string& claim_id, const std::string& extra_differences);

// E[y^2] of sja's quadratic task at x ~ N(0, I_d), every coefficient N(0, 1): 1 + d + d(d-1)/2 + 3d (16 at d = 3).
double quadratic_label_moment(int d);
// The heavy-tail rule's sides on sja's quadratic task at d with width dbar, capped at trained::kTailCap x E[y^2].
class TailedSides : public trained::TailedSides {
 public:
  TailedSides(const ClaimContext& ctx, const std::vector<trained::Model>& models, int d, int dbar);
};

}  // namespace icl::sja_train
