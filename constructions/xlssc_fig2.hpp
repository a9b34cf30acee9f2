// Xing, Lin, Suh, Song, Cheng (004), Figure 2 (Sec. 4.1, App. C): the seven GPT-2-style models (lib/icl/learn/gpt2.hpp:
// Garg et al.'s code) trained on unstructured prompts E_2 (d = 5, D = 30 in the paper), each `trials` times, and their
// loss against the number of in-context examples: the paper's settings and the ones a run reduces, the models, the
// training of every (model, trial) run on the library's pool, and a model's report block.
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/trained.hpp"
#include "icl/learn/gpt2.hpp"
#include "icl/io/svg_plot.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace icl::xlssc {

// Which of the seven models a run trains (the budget setting `models`): all seven; the three two-layer masked models
// (parts b and e: what a reduced budget can confirm); or the positive control alone (part b). A model not trained
// leaves its parts' cases inconclusive ("not trained at this budget").
constexpr int kAllModels = 7, kMaskedModels = 3, kControlOnly = 1;

// A run's settings (the claim's parameters p, heads, D, steps, trials, batch, lr, lambda and the budget setting
// `models`), whether they are the paper's (p = 64, h = 8, D = 30, 500k steps, batch >= 64, lr 1e-4 (Garg et al.), 5
// trials, all seven models), and how they differ from it, in words.
struct Fig2Settings {
  int p = 64, heads = 8, D = 30, steps = 500000, trials = 5;
  std::uint64_t batch = 64;
  double lr = 1e-4, lambda = 10000;
  int models = kAllModels;
  static Fig2Settings from_case(const Case& c) {
    Fig2Settings s;
    s.p = c.geti("p"), s.heads = c.geti("heads"), s.D = c.geti("D"), s.steps = c.geti("steps");
    s.trials = c.geti("trials"), s.batch = static_cast<std::uint64_t>(c.get("batch")), s.lr = c.get("lr");
    s.lambda = c.get("lambda");
    return s;
  }
  // Whether model i of fig2_models() is trained under `models`.
  bool trains(std::size_t i) const {
    if (models == kControlOnly) return i == 2;
    if (models == kMaskedModels) return i == 2 || i == 5 || i == 6;
    return true;
  }
  bool is_paper() const {
    return p == 64 && heads == 8 && D == 30 && steps >= 500000 && batch >= 64 && lr == 1e-4 && trials >= 5 &&
           models == kAllModels;
  }
  std::string differences() const {
    std::vector<std::string> d;
    if (p != 64) d.push_back(fmt::format("p = {} (paper 64)", p));
    if (heads != 8) d.push_back(fmt::format("h = {} (paper 8)", heads));
    if (D != 30) d.push_back(fmt::format("D = {} (paper 30)", D));
    if (steps < 500000) d.push_back(fmt::format("{} steps (paper 500k)", steps));
    if (batch < 64) d.push_back(fmt::format("batch {} (Garg et al. 64)", batch));
    if (lr != 1e-4) d.push_back(fmt::format("learning rate {:g} (Garg et al. 1e-4)", lr));
    if (trials < 5) d.push_back(fmt::format("{} trials (5 at the paper budget)", trials));
    if (models == kMaskedModels)
      d.push_back("only the three two-layer masked models trained (parts b and e; the paper trains all seven)");
    if (models == kControlOnly) d.push_back("only the positive control trained (part b; the paper trains all seven)");
    std::string out;
    for (std::size_t i = 0; i < d.size(); ++i) out += (i ? ", " : "") + d[i];
    return out;
  }
};

// A model and its trials: per trial the training run, its seed and its loss against k = 0..D examples (then the mean
// over k, index D+1).
struct Fig2Model {
  gpt2::ModelSpec spec;
  int parameters = 0;
  std::vector<gpt2::TrainRun> runs;
  std::vector<std::uint64_t> seeds;
  std::vector<std::vector<Estimate>> curves;  // per trial: k = 0..D, then the mean over k (index D+1)
  // Per-trial estimates at index k (k = D+1: the curve's mean over k), NaN for a diverged trial.
  trained::TestLosses at(int k) const {
    trained::TestLosses t;
    t.n_test = k;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      Estimate e = curves[i][static_cast<std::size_t>(k)];
      if (!runs[i].ok || !std::isfinite(e.mean)) e.mean = e.ci_low = e.ci_high = e.stderr_ = e.sd = NAN;
      t.per_trial.push_back(e);
    }
    return t;
  }
};

// The seven models of Fig. 2, untrained: 1 layer with and without the mask, 2 layers with and without the mask (no PE),
// 2 layers without the mask and trainable PE, 2 layers with the mask and trainable PE, 2 layers with the mask and
// sin-cos PE; d = 5.
std::vector<Fig2Model> fig2_models(const Fig2Settings& s);

// Trains the models s.trains: every (model, trial) run is one task of the library's pool, all of them on ctx.threads threads at once; each run's
// minibatch chunks and test prompts go to whatever threads are idle (nested calls). Every run's numbers depend on
// its seed only (trial k: seed + k
// for the initialisation, the minibatches shared by the models, the test prompts: max(samples, 256)), so they are the same whichever thread runs it and however many there are. Under --estimate the
// runs go one after another, so that each one's step price is measured alone, and so they do under MPI (a run
// inside the pool would not share its minibatches with the other ranks).
void fig2_train(ClaimRun& r, const Fig2Settings& s, std::vector<Fig2Model>& models);

// A model's report block: its name, layers, mask, positional encoding, parameters, the loss by examples (mean and sd
// over trials, per trial) and its runs (status, seed, steps, seconds, training losses and curve).
nlohmann::ordered_json fig2_model_json(const Fig2Model& m, int D);

// The report's extra "training": the training protocol (Adam, the settings, Garg et al.'s GPT-2 model, loss and
// initialisation, the trials' seeds and test prompts) and the differences from the paper's settings.
nlohmann::ordered_json fig2_training_json(const ClaimContext& ctx, const Fig2Settings& s,
                                          const std::vector<Fig2Model>& models, bool paper);

// The figure (each trained model's mean loss over trials against k = 0..D examples, dashed without the mask) and the
// training curves (trial 1's training loss of each trained model).
std::pair<PlotSpec, PlotSpec> fig2_plots(const Fig2Settings& s, const std::vector<Fig2Model>& models);

// Per trial of a (and b): the paired difference of a's loss against ka examples minus b's against kb on that trial's
// test prompts (gpt2::paired_by_examples, max(ctx.samples, 256) of them), NaN where a trial did not finish, the two
// trials' seeds differ or the estimate is not finite. a and b may be the same model (k = D against k = 0).
std::vector<Estimate> fig2_paired_per_trial(const ClaimContext& ctx, const Fig2Model& a, int ka, const Fig2Model& b,
                                            int kb);

}  // namespace icl::xlssc
