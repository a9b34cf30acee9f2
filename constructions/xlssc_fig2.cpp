#include "constructions/xlssc_fig2.hpp"

#include "icl/execute/chunks.hpp"
#include "icl/execute/thread_pool.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/learn/training_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace icl::xlssc {

namespace {

nlohmann::ordered_json null_or(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); }

// Trial k of model m (k < the trials): trained from seed + k, then its loss against k examples measured.
void train_trial(const ClaimContext& ctx, const Fig2Settings& s, Fig2Model& m, int k, int threads) {
  gpt2::TrainSettings ts;
  ts.steps = s.steps, ts.batch = s.batch, ts.learning_rate = s.lr, ts.curve_points = 50;
  ts.threads = threads;
  const std::uint64_t samples = std::max<std::uint64_t>(ctx.samples, 256);
  const std::uint64_t seed = ctx.seed + static_cast<std::uint64_t>(k);
  const auto i = static_cast<std::size_t>(k);
  m.runs[i] = gpt2::train(m.spec, ts, seed, ctx.purpose("train"), ctx.purpose("init/" + m.spec.name()));
  Network net = gpt2::build(m.spec);
  gpt2::unpack(m.runs[i].theta, net);
  m.curves[i] = gpt2::loss_by_examples(net, m.spec, seed, ctx.purpose("test"), samples, threads);
  m.seeds[i] = seed;
}

}  // namespace

std::vector<Fig2Model> fig2_models(const Fig2Settings& s) {
  auto spec = [&](int layers, bool mask, gpt2::Pe pe) {
    gpt2::ModelSpec m;
    m.d = 5, m.D = s.D, m.p = s.p, m.heads = s.heads, m.layers = layers, m.mask = mask, m.pe = pe, m.lambda = s.lambda;
    return m;
  };
  std::vector<Fig2Model> models;
  for (const gpt2::ModelSpec& m : {spec(1, true, gpt2::Pe::none), spec(1, false, gpt2::Pe::none), spec(2, true, gpt2::Pe::none),
                             spec(2, false, gpt2::Pe::none), spec(2, false, gpt2::Pe::trainable), spec(2, true, gpt2::Pe::trainable),
                             spec(2, true, gpt2::Pe::sincos)})
    models.push_back(Fig2Model{m, 0, {}, {}, {}});
  return models;
}

void fig2_train(ClaimRun& r, const Fig2Settings& s, std::vector<Fig2Model>& models) {
  const ClaimContext& ctx = r.ctx();
  const auto T = static_cast<std::size_t>(s.trials);
  for (auto& m : models) {
    Network net = gpt2::build(m.spec);
    m.parameters = gpt2::parameter_count(net);
    m.runs.resize(T);
    m.curves.resize(T);
    m.seeds.resize(T);
  }
  std::vector<std::size_t> trained;  // the models this run trains (Settings::models)
  for (std::size_t i = 0; i < models.size(); ++i)
    if (s.trains(i)) trained.push_back(i);
    else models[i].runs.clear(), models[i].curves.clear(), models[i].seeds.clear();
  const std::size_t tasks = trained.size() * T;
  std::mutex mu;
  const int outer = learn::training_estimate_active() || execute::sharing_ranks() > 1 ? 1 : ctx.threads;
  execute::parallel_tasks(tasks, outer, [&] {
    return [&](std::uint64_t task) {
      train_trial(ctx, s, models[trained[task / T]], static_cast<int>(task % T), ctx.threads);
      std::lock_guard<std::mutex> lock(mu);
      r.step();  // one unit of progress per run (r counts models x trials)
    };
  });
}

nlohmann::ordered_json fig2_model_json(const Fig2Model& m, int D) {
  nlohmann::ordered_json j;
  j["model"] = m.spec.name();
  j["layers"] = m.spec.layers;
  j["mask"] = m.spec.mask;
  j["positional_encoding"] = gpt2::to_string(m.spec.pe);
  j["parameters"] = m.parameters;
  nlohmann::ordered_json mean = nlohmann::ordered_json::array(), sd = nlohmann::ordered_json::array();
  for (int k = 0; k <= D + 1; ++k) {
    const trained::TestLosses t = m.at(k);
    mean.push_back(null_or(t.mean()));
    sd.push_back(null_or(t.sd()));
  }
  nlohmann::ordered_json per = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < m.curves.size(); ++i) {
    nlohmann::ordered_json c = nlohmann::ordered_json::array();
    for (const auto& e : m.curves[i]) c.push_back(null_or(m.runs[i].ok ? e.mean : NAN));
    per.push_back(c);
  }
  j["loss_by_examples"] = {{"k", "0..D, then the mean over k"},
                           {"mean_over_trials", mean},
                           {"sd_over_trials", sd},
                           {"per_trial", per}};
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < m.runs.size(); ++i) {
    const auto& r = m.runs[i];
    nlohmann::ordered_json rj;
    rj["status"] = r.ok ? "finished" : "diverged";
    if (!r.reason.empty()) rj["reason"] = r.reason;
    rj["seed"] = m.seeds[i];
    rj["steps_done"] = r.steps_done;
    rj["seconds"] = r.seconds;
    rj["first_train_loss"] = null_or(r.first_loss);
    rj["final_train_loss"] = null_or(r.final_train_loss);
    rj["curve"] = {{"step", r.curve_step}, {"train_loss", r.curve_loss}};
    runs.push_back(rj);
  }
  j["runs"] = runs;
  return j;
}

std::vector<Estimate> fig2_paired_per_trial(const ClaimContext& ctx, const Fig2Model& a, int ka, const Fig2Model& b,
                                            int kb) {
  std::vector<Estimate> out;
  const std::uint64_t samples = std::max<std::uint64_t>(ctx.samples, 256);
  const std::size_t T = std::min(a.runs.size(), b.runs.size());
  for (std::size_t i = 0; i < T; ++i) {
    Estimate e;
    e.mean = e.ci_low = e.ci_high = e.stderr_ = e.sd = NAN;  // a trial that did not finish, or unpaired seeds
    if (a.runs[i].ok && b.runs[i].ok && a.seeds[i] == b.seeds[i]) {
      Network na = gpt2::build(a.spec), nb;
      gpt2::unpack(a.runs[i].theta, na);
      if (&a != &b) {  // two models of one trial; the same model at two k needs one network
        nb = gpt2::build(b.spec);
        gpt2::unpack(b.runs[i].theta, nb);
      }
      e = gpt2::paired_by_examples(na, a.spec, ka, &a == &b ? na : nb, b.spec, kb, a.seeds[i], ctx.purpose("test"),
                                   samples, ctx.threads);
    }
    if (!std::isfinite(e.mean) || !std::isfinite(e.stderr_)) e.mean = e.ci_low = e.ci_high = e.stderr_ = e.sd = NAN;
    out.push_back(e);
  }
  return out;
}

nlohmann::ordered_json fig2_training_json(const ClaimContext& ctx, const Fig2Settings& s,
                                          const std::vector<Fig2Model>& models, bool paper) {
  learn::TrainConfig tc;
  tc.optimizer = "adam";
  tc.learning_rate = s.lr;
  tc.batch = s.batch;
  tc.steps = s.steps;
  tc.resample_every = 1;
  auto training = learn::training_json(tc, models.front().seeds, paper, ctx.claim_id + ".training.svg");
  training.erase("test_batch");
  training["chunk"] = 16;
  training["paper_settings_differences"] = paper ? "none" : s.differences();
  training["model"] = fmt::format(
      "GPT-2-style (Garg et al.'s code): read-in (d+1 -> p = {}), positions ({} tokens), L blocks of LayerNorm, {}-head "
      "softmax attention (with or without the causal mask), residual, LayerNorm, GELU MLP ({} hidden), residual; final "
      "LayerNorm, read-out (p -> 1); d = 5, D = {}, sin-cos Lambda = {:g}",
      s.p, 2 * s.D + 1, s.heads, 4 * s.p, s.D, s.lambda);
  training["loss"] = "mean over the D+1 x-token columns 0, 2, ..., 2D of E_2 of (read-out - y)^2 (y_1..y_D, y_query), "
                     "then over the minibatch (Garg et al.'s mean_squared_error)";
  training["initialisation"] = "HF GPT-2: weights and trainable wpe ~ N(0, 0.02^2), c_proj ~ N(0, (0.02/sqrt(2L))^2), biases 0, "
                               "LayerNorm (1, 0); read-in and read-out: torch.nn.Linear's U(-1/sqrt(fan_in), 1/sqrt(fan_in))";
  training["trial_seeds"] = "trial k: seed + k (initialisation per model, minibatches shared by the models, test prompts)";
  training["test_prompts"] = std::max<std::uint64_t>(ctx.samples, 256);
  return training;
}

std::pair<PlotSpec, PlotSpec> fig2_plots(const Fig2Settings& s, const std::vector<Fig2Model>& models) {
  PlotSpec fig{"Loss against the number of in-context examples (mean over trials)",
               "in-context examples k", "squared error (E[y^2] = 1)", false, false, {}};
  PlotSpec curves{"Training loss (mean over the D+1 positions), trial 1", "step", "loss", false, true, {}};
  for (const auto& m : models) {
    if (m.runs.empty()) continue;  // not trained at this budget (Fig2Settings::models)
    PlotSeries ser{m.spec.name(), {}, {}, !m.spec.mask};
    for (int k = 0; k <= s.D; ++k) {
      ser.t.push_back(k);
      ser.y.push_back(m.at(k).mean());
    }
    fig.series.push_back(ser);
    PlotSeries c{m.spec.name(), {}, {}, !m.spec.mask};
    for (std::size_t i = 0; i < m.runs.front().curve_step.size(); ++i) {
      c.t.push_back(m.runs.front().curve_step[i]);
      c.y.push_back(m.runs.front().curve_loss[i]);
    }
    curves.series.push_back(c);
  }
  return {fig, curves};
}

}  // namespace icl::xlssc
