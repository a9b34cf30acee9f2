// The trained kind: a claim about models that training finds (models x trials, comparisons between them), the shape
// of the catalogue's training experiments (sja's Figs. 1, 2 and 4, xlssc's Fig. 2). A claim binds its task, prompts
// and the paper's training settings (e.g. claims/common/sja_training.hpp); this file holds what every such claim
// does with them: training a model several times with the project's trainer (lib/icl/learn), measuring each trained
// model's test loss by Monte Carlo on fresh prompts, and judging an asserted comparison over the trials, with the
// report's JSON for each.
//
// Trials. Trial k of a model trains from its own initialisation (theta ~ N(0, init_sd^2), stream
// (seed + k, purpose("init/" + model name))) on minibatches of the stream (seed + k, purpose("train/" + data_tag)),
// Adam, batch fresh prompts every step. Models trained on the same data tag see the same minibatches at the same
// trial (common random numbers; the comparisons below do not rely on it). A run that finishes with a held-out loss
// above kBlowUp times its first value is marked diverged (its weights stayed below the trainer's bound but its
// outputs exploded) and left out of every comparison.
//
// Test losses. Trial k's trained weights are evaluated through the forward pass on `samples` fresh prompts of length
// n_test from the stream (seed + k, purpose("test/n=<n_test>")), never used in training, with a Student-t interval:
// one number per trial and test length.
//
// Comparisons "A has lower loss than B", at level alpha (verdict/over_trials.hpp):
//   quick and standard budgets: a one-sided Welch t-test on the per-trial test losses (judge_less_over_trials), or a
//     paired t-test on per-trial differences when both numbers come from the same trained model;
//   deciding and paper budgets (paired_rule): on paired test prompts per trial (paired_differences,
//     judge_paired_every_trial), or, where a model's per-prompt loss is heavy-tailed, by the heavy-tail rule per trial
//     (tailed_losses, judge_tailed_every_trial: B's capped mean's lower bound above A's upper bound), every trial.
//   confirmed     the test rejects "A >= B";
//   reversed      the opposite test rejects "A <= B": refuted at the paper's own settings, inconclusive at a reduced
//                 budget (a reduced run does not re-run the experiment);
//   inconclusive  neither (too noisy to decide, or too few finished trials).
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/learn/learn.hpp"
#include "icl/verdict/decision.hpp"
#include "icl/verdict/over_trials.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace icl::trained {

// The trainer's schedule for each trial of a model (a claim sets the paper's values and its budgets').
struct Schedule {
  int steps = 0;
  std::uint64_t batch = 0;
  int trials = 0;
  double learning_rate = 1e-3;
  double init_sd = 0.02;
  double clip = 0.0;  // per-matrix gradient-norm bound (0: none)
};

// Whether a run's settings are the paper's, and what differs where they are not ("batch 400 (paper 4000), ...").
struct AgainstPaper {
  bool paper = false;
  std::string differences;
};

constexpr double kBlowUp = 100.0;

struct Model {
  std::string name;  // "bilinear L=2", "linear 6 layers", ...
  icl::Parameterisation params;
  std::vector<learn::TrainResult> runs;  // one per trial
  std::vector<std::uint64_t> seeds;
};

// Trains `model.params` `s.trials` times on prompts from `src` under `loss`; fills runs and seeds. `data_tag` names
// the training stream (models compared on the same data share it).
learn::TrainConfig train_trials(const ClaimContext& ctx, Model& model, const icl::PromptSource& src,
                                const icl::LossSpec& loss, const Schedule& s, const std::string& data_tag);

// Per-trial test losses at test length n_test (finished trials only; diverged trials give NaN).
struct TestLosses {
  int n_test = 0;
  std::vector<Estimate> per_trial;  // NaN mean for a diverged trial
  std::vector<double> means() const;
  double mean() const;              // over finished trials
  double sd() const;                // between finished trials
  int finished() const;
};
// `src` draws prompts of length n_test. `layers` > 0: the sub-network of the model's first `layers` layers, its
// prediction read where the full model's is (the same test prompts, so per trial the two are paired).
TestLosses test_losses(const ClaimContext& ctx, const Model& model, const icl::PromptSource& src,
                       const icl::LossSpec& loss, int n_test, int layers = 0);

// Paired test prompts: per trial k, the mean over the SAME test prompts (those test_losses uses) of lower's loss minus
// higher's loss, trial k of both models, with its Student-t interval (learn::mc_loss_difference); NaN where either
// trial did not finish.
std::vector<Estimate> paired_differences(const ClaimContext& ctx, const Model& lower, const Model& higher,
                                         const icl::PromptSource& src, const icl::LossSpec& loss, int n_test);
// The paired and heavy-tail rules apply at the deciding and paper budgets (docs/budgets.md, "Decision rules of the
// deciding budget"); the quick and standard budgets keep the t over the trials' mean losses.
bool paired_rule(const ClaimContext& ctx);
Decision paired_decision(const ClaimContext& ctx, const AgainstPaper& p, const std::vector<Estimate>& differences,
                         double alpha, const std::string& what);

// The heavy-tail rule (docs/budgets.md, "Heavy tails"): the cap is kTailCap x E[y^2] of the task.
inline constexpr double kTailCap = 100;
// Per trial, one side at test length n_test on test_losses' prompts (so `full` is test_losses' estimate bit for bit),
// capped at `cap`; a trial that did not finish gives NaN estimates. `layers` as test_losses.
std::vector<TailedLoss> tailed_losses(const ClaimContext& ctx, const Model& model, const icl::PromptSource& src,
                                      const icl::LossSpec& loss, int n_test, double cap, int layers = 0);
// The sides of a claim's comparisons under the heavy-tail rule, each model at each test length and depth computed once
// (a model meets several comparisons): get(i, n_test, layers) is tailed_losses of models[i] on prompts(n_test).
// `models` must outlive it.
class TailedSides {
 public:
  TailedSides(const ClaimContext& ctx, const std::vector<Model>& models,
              std::function<icl::PromptSource(int n_test)> prompts, icl::LossSpec loss, double cap);
  const std::vector<TailedLoss>& get(std::size_t i, int n_test, int layers = 0);

 private:
  const ClaimContext* ctx_;
  const std::vector<Model>* models_;
  std::function<icl::PromptSource(int)> prompts_;
  icl::LossSpec loss_;
  double cap_;
  std::map<std::tuple<std::size_t, int, int>, std::vector<TailedLoss>> memo_;
};
// A side that is a number, not a trained model (a stated limit): per trial, `value` with no error and no tail.
std::vector<TailedLoss> constant_side(double value, std::size_t trials);
Decision tailed_decision(const ClaimContext& ctx, const AgainstPaper& p, const std::vector<TailedLoss>& lower,
                         const std::vector<TailedLoss>& higher, double alpha, const std::string& what);
// The rule in words, for a report's error_rates "tests" entry.
std::string tailed_rule_text();

// ---- A part decided on one number per trained run (judge_bound_over_runs, judge_most_runs) ----

// d made inconclusive where it may not stand: a run did not finish (`unfinished` describes it, e.g. "run 3 diverged:
// ..."), or d refutes below the paper's settings (p.differences says what the run reduces) or where the paper leaves
// the training open (`open`, non-empty: the words said before d's own).
Decision settle_over_runs(Decision d, const std::string& unfinished, const AgainstPaper& p, const std::string& open);
// A part's case decided over runs: the bound, the interval of the per-run values at 1 - alpha (`over_runs`) and the
// values (`per_run`). The claim adds its own fields, then over_runs_verdict.
CaseJson over_runs_case(const Case& c, const std::string& part, const std::vector<double>& values, double bound, double alpha);
// The case's verdict: d, resting on itself (recorded as the decision `name`), or inconclusive with d's words.
void over_runs_verdict(CaseJson& j, const Decision& d, const std::string& name);

// ---- The report (JSON fields, quantities, the training block and the curves) ----

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
// One comparison "lower has lower loss than higher" as a case, decided by the budget's rule (above):
//   quick and standard budgets: judge_less_over_trials on the sides' per-trial test losses (paired over trials where
//     `same_model`: both sides are one trained model, at two test lengths or depths);
//   deciding and paper budgets (paired_rule): paired_decision on `differences` where the claim gives them (two models'
//     paired test prompts; the field paired_difference_per_trial), else tailed_decision on the sides' tailed losses
//     (the field heavy_tail_rule_per_trial).
// At the deciding and paper budgets a trial counts only where it trained on both sides (Side::gate): the others are
// named in the decision's words and count neither for nor against; with no trial left the comparison is inconclusive,
// "not reproduced". The case is comparison_case's (with the field trained_per_trial where a side has a gate); `own`
// adds the claim's own quantities before the rule's field.
// "Trained" (docs/budgets.md, "The sja model question": the levels stated before the runs they decide): per trial
// of a model, whether it reached its claim's stated level, i.e. it finished and its held-out loss at the training
// length (test_losses' fixed test prompts) is at most `level`; for one that did not, why.
struct TrainedGate {
  std::vector<bool> trained;        // per trial
  std::vector<std::string> why_not;  // per trial: "" where it trained
  double level = 0;
  std::string level_text;            // "0.1 E[y^2] = 1.6"
};
TrainedGate trained_gate(const TestLosses& at_training_length, double level, const std::string& level_text);

struct Side {
  std::string name;                  // "dense": the quantity <name>_mean_loss and the field <name>_test_loss
  const TestLosses& losses;
  std::vector<TailedLoss> tailed{};  // under the heavy-tail rule: its tailed losses on the same prompts
  // At the deciding and paper budgets (paired_rule), the trials of its model that trained: a trial counts in the
  // comparison only where it trained on both sides; null: every finished trial counts (a stated number's side).
  const TrainedGate* gate = nullptr;
};
struct Comparison {
  nlohmann::ordered_json params;
  std::string part, decision_name, what;
  bool same_model = false;
  // Two models' paired test prompts per trial (paired_differences), where the deciding rule compares them so.
  std::optional<std::vector<Estimate>> differences{};
};
CaseJson compare(const ClaimContext& ctx, const AgainstPaper& p, double alpha, Comparison c, const Side& lower,
                 const Side& higher, const std::function<void(CaseJson&)>& own = {});
// The error_rates "interval" entry (the level of the intervals over trials of comparison_case's mean losses, which
// the tables' notes name): "99.92% Student-t".
std::string interval_over_trials(double alpha);
// A trained experiment's error_rates block: family_alpha (ctx.alpha), comparisons, alpha_per_comparison (alpha: the
// Bonferroni split), interval (interval_over_trials) and tests (the rule in words), in this order; a claim adds its
// own keys after them.
nlohmann::ordered_json error_rates_block(const ClaimContext& ctx, std::size_t comparisons, double alpha,
                                         const std::string& tests);
// "mean [sd] over k trials" of a model's test losses, and the per-trial estimates with their intervals.
nlohmann::ordered_json losses_json(const TestLosses& t);
// One model's training runs (curve_json per trial).
nlohmann::ordered_json runs_json(const Model& m);
// A model's entry of the report's `models` block: name, trained parameter count, test losses, runs.
nlohmann::ordered_json model_json(const Model& m, const std::map<int, TestLosses>& losses);
// A claim-level 'training' block: the trainer config, trial seeds and the statement of what differs from the paper
// (p's differences, then extra_differences).
nlohmann::ordered_json training_block(const learn::TrainConfig& c, const AgainstPaper& p, double init_sd,
                                      const std::vector<std::uint64_t>& seeds, const std::string& claim_id,
                                      const std::string& extra_differences);
// Curves of the first trial of each model (the curve SVG).
std::string curves_svg(const std::string& title, const std::vector<const Model*>& models);

}  // namespace icl::trained
