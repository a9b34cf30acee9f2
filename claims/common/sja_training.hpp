// Shared by the sja experiment claims (sja.fig1, sja.fig2, sja.fig4): training a model several times with
// the project's trainer (lib/icl/learn), measuring each trained model's test loss by Monte Carlo on fresh
// prompts, and judging an asserted comparison statistically over the trials.
//
// Trials. Trial k of a model trains from its own initialisation (theta ~ N(0, init_sd^2), stream
// (seed + k, purpose(tag + "/init"))) on minibatches of the stream (seed + k, purpose("train/" + data_tag)),
// Adam, batch fresh prompts every step (sja App. J). Models trained on the same data tag see the same
// minibatches at the same trial (common random numbers; the comparisons below do not rely on it).
//
// Test losses. Trial k's trained weights are evaluated through the forward pass on `samples` fresh prompts
// of length n_test from the stream (seed + k, purpose("test/n=<n_test>")), never used in training, with a
// Student-t interval: one number per trial and test length.
//
// Comparisons. "A has lower loss than B" is judged over the trials by a one-sided Welch t-test on the
// per-trial test losses (independent trials; each trial's number includes its own Monte Carlo noise, so the
// trial-to-trial spread covers both sources), or by a one-sided paired t-test on per-trial differences when
// both numbers come from the same trained model (e.g. two test lengths). At level alpha:
//   confirmed     the one-sided test rejects "mean(A) >= mean(B)";
//   reversed      the opposite one-sided test rejects "mean(A) <= mean(B)": refuted at the paper's own
//                 settings, inconclusive at a reduced budget (a reduced run does not re-run the experiment);
//   inconclusive  neither (too noisy to decide, or fewer than 2 finished trials on a side).
// The decision reports the smallest difference detected with power 0.8 ((t_{1-alpha} + t_{0.8}) * se).
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/learn/learn.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/verdict/decision.hpp"
#include "icl/verdict/over_trials.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace icl::sja_train {

// The training settings a claim exposes as parameters (the paper's: Adam, lr 1e-3, batch 4000, 20000 steps,
// 5 trials).
struct Settings {
  int steps = 20000;
  std::uint64_t batch = 4000;
  int trials = 5;
  double learning_rate = 1e-3;
  double init_sd = 0.02;  // small: a 6-layer LSA stack is cubic per layer and explodes from N(0, 0.1^2) at n = 200
  double clip = 0.0;      // per-matrix gradient-norm bound (0: none; the paper states none)
  // Settings from a case's parameters "steps", "batch", "trials", "lr", "init_sd", "clip" (absent ones keep the
  // defaults).
  static Settings from_case(const Case& c);
  bool is_paper() const { return steps == 20000 && batch == 4000 && trials == 5 && learning_rate == 1e-3 && clip == 0; }
  // "batch 400 (paper 4000), 300 steps (paper 20000), 3 trials (paper 5)": what differs from the paper.
  std::string differences() const;
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
std::vector<ParamSpec> with_training_params(std::vector<ParamSpec> model, const std::optional<DecidingTraining>& deciding = {});

// A run that finishes with a held-out loss above kBlowUp times its first value is marked diverged (its
// weights stayed below the trainer's bound but its outputs exploded) and left out of every comparison.
constexpr double kBlowUp = 100.0;

struct Model {
  std::string name;  // "bilinear L=2", "linear 6 layers", ...
  learn::Parameterisation params;
  std::vector<learn::TrainResult> runs;  // one per trial
  std::vector<std::uint64_t> seeds;
};

// Trains `model.params` `s.trials` times on prompts of `task` embedded with `shape`; fills runs and seeds.
// `data_tag` names the training stream (models compared on the same data share it).
learn::TrainConfig train_trials(const ClaimContext& ctx, Model& model, const GaussianIclModel& task,
                                const PromptShape& shape, const Settings& s, const std::string& data_tag);

// Per-trial test losses at test length n_test (finished trials only; diverged trials give NaN).
struct TestLosses {
  int n_test = 0;
  std::vector<Estimate> per_trial;  // NaN mean for a diverged trial
  std::vector<double> means() const;
  double mean() const;              // over finished trials
  double sd() const;                // between finished trials
  int finished() const;
};
// `layers` > 0: the sub-network of the model's first `layers` layers, its prediction read where the full model's
// is (App. I reads the first 2l layers of a trained bilinear model as l block-coordinate-descent steps); the same
// test prompts as the full model's, so per trial the two are paired.
TestLosses test_losses(const ClaimContext& ctx, const Model& model, const GaussianIclModel& task, int dbar, int n_test,
                       int layers = 0);

// Comparisons over trials: verdict/over_trials.hpp judge_less_over_trials.

// Paired test prompts: per trial k, the mean over the SAME test prompts of length n_test (stream (seed + k,
// purpose("test/n=<n_test>")), the prompts test_losses uses) of lower's loss minus higher's loss, trial k of both
// models, with its Student-t interval (learn::mc_loss_difference); NaN where either trial did not finish. Decided with
// verdict/over_trials.hpp judge_paired_every_trial.
std::vector<Estimate> paired_differences(const ClaimContext& ctx, const Model& lower, const Model& higher,
                                         const GaussianIclModel& task, int dbar, int n_test);
// The paired rule (docs/budgets.md, "Decision rules of the deciding budget"): at the deciding and paper budgets a
// comparison between two trained models is decided on paired test prompts per trial, then over the trials (every
// trial, at least 2: judge_paired_every_trial); a refutation only at the paper's settings. The quick and standard
// budgets keep the t over the trials' mean losses.
bool paired_rule(const ClaimContext& ctx);
Decision paired_decision(const ClaimContext& ctx, const Settings& s, const std::vector<Estimate>& differences, double alpha,
                         const std::string& what);
// The heavy-tail rule (docs/budgets.md, "Heavy tails"): where a trained model's per-prompt loss is heavy-tailed, a
// comparison "E[lower] < E[higher]" is decided per trial by higher's capped mean's lower bound against lower's upper
// bound (verdict/over_trials.hpp judge_tailed_every_trial), every trial. The cap is kTailCap x E[y^2] of the task.
inline constexpr double kTailCap = 100;
// E[y^2] of sja's quadratic task at x ~ N(0, I_d), every coefficient N(0, 1): 1 + d + d(d-1)/2 + 3d (16 at d = 3).
double quadratic_label_moment(int d);
// Per trial, one side at test length n_test on test_losses' prompts (so `full` is test_losses' estimate bit for bit),
// capped at `cap`; a trial that did not finish gives NaN estimates. `layers` > 0: the sub-network of the first
// `layers` layers, as test_losses.
std::vector<TailedLoss> tailed_losses(const ClaimContext& ctx, const Model& model, const GaussianIclModel& task, int dbar,
                                      int n_test, double cap, int layers = 0);
// The sides of a claim's comparisons under the heavy-tail rule, each model at each test length and depth computed once
// (a model meets several comparisons): get(i, n_test, layers) is tailed_losses of models[i] at the cap kTailCap x
// E[y^2] of the quadratic task. `models` must outlive it.
class TailedSides {
 public:
  TailedSides(const ClaimContext& ctx, const std::vector<Model>& models, int d, int dbar);
  const std::vector<TailedLoss>& get(std::size_t i, int n_test, int layers = 0);

 private:
  const ClaimContext* ctx_;
  const std::vector<Model>* models_;
  GaussianIclModel task_;
  int dbar_;
  double cap_;
  std::map<std::tuple<std::size_t, int, int>, std::vector<TailedLoss>> memo_;
};
// A side that is a number, not a trained model (a stated limit): per trial, `value` with no error and no tail, as the
// heavy-tail rule's either side.
std::vector<TailedLoss> constant_side(double value, std::size_t trials);
Decision tailed_decision(const ClaimContext& ctx, const Settings& s, const std::vector<TailedLoss>& lower,
                         const std::vector<TailedLoss>& higher, double alpha, const std::string& what);
// The rule in words, for a report's error_rates "tests" entry.
std::string tailed_rule_text();
// Per trial: {lower: {mean, upper, tail_share}, higher: {capped_mean, lower, cap}} or null.
nlohmann::ordered_json tailed_json(const std::vector<TailedLoss>& lower, const std::vector<TailedLoss>& higher, double alpha);

// The per-trial paired differences as a report field: [{mean, stderr, ci_low, ci_high, samples} or null].
nlohmann::ordered_json paired_json(const std::vector<Estimate>& d);

// The quantity `mc`: the first finished trial's Monte Carlo test loss (none when no trial finished).
void first_trial_mc(CaseJson& j, const TestLosses& t);
// The quantity `name`: over at least 2 finished trials, the mean test loss with its two-sided Student-t interval over
// trials at confidence 1 - alpha; over one, its value; over none, nothing.
void mean_loss_quantity(CaseJson& j, const std::string& name, const TestLosses& t, double alpha);
// One comparison case "lower < higher" (part `part`): the params, mc (lower's first trial), both sides' mean
// losses as quantities <lower_name>_mean_loss / <higher_name>_mean_loss (mean_loss_quantity at the comparison's
// alpha), their per-trial losses as fields <name>_test_loss, the decision under `decision_name` and the verdict
// resting on it. The caller may add quantities before take().
CaseJson comparison_case(nlohmann::ordered_json params, const std::string& part, const std::string& decision_name,
                         const Decision& dec, double alpha, const std::string& lower_name, const TestLosses& lower,
                         const std::string& higher_name, const TestLosses& higher);
// The error_rates "interval" entry (the level of the intervals over trials of comparison_case's mean losses, which
// the tables' notes name): "99.92% Student-t".
std::string interval_over_trials(double alpha);
// A model's entry of the report's `models` block: name, trained parameter count, test losses, runs.
nlohmann::ordered_json model_json(const Model& m, const std::map<int, TestLosses>& losses);

// "mean [sd] over k trials" of a model's test losses, and the per-trial estimates with their intervals.
nlohmann::ordered_json losses_json(const TestLosses& t);
// One model's training runs (curve_json per trial).
nlohmann::ordered_json runs_json(const Model& m);
// A claim-level 'training' block: the trainer config, trial seeds and the statement of what differs.
nlohmann::ordered_json training_block(const learn::TrainConfig& c, const Settings& s, const std::vector<std::uint64_t>& seeds,
                                      const std::string& claim_id, const std::string& extra_differences);
// Curves of the first trial of each model (the curve SVG).
std::string curves_svg(const std::string& title, const std::vector<const Model*>& models);

}  // namespace icl::sja_train
