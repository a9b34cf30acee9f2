#include "claims/common/acds_experiments.hpp"

#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/trained.hpp"
#include "icl/verdict/decision.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace icl::acds_exp {
namespace {

// Readings of the paper's words, fixed before any run (see the claims' headers for why).
constexpr double kAlmostZero = 0.1;  // final training loss <= 10% of the zero predictor's loss E[y_q^2] = d
constexpr double kDistSmall = 0.1;   // "Dist -> 0": final Dist <= 0.1

// One case's runs and the per-run numbers its parts are judged on.
struct CaseRuns {
  RunSettings s;
  int runs = 0;
  std::vector<RunOutcome> outs;
  std::string diverged;           // the first run that did not finish, or empty
  std::vector<std::string> diff;  // what the run reduces from the paper's stated settings
  std::vector<std::string> more;  // what it takes beyond them (more runs): not a reduction
  std::vector<double> rel_loss, rel_test_mean, rel_test_median, tail_share, dist_pre_max, dist_pre_drop, dist_gap,
      dist_raw_min, dist_B_max, ratio01, ratio12;
  double fam_opt = NAN, dist_sinv = NAN;
  nlohmann::ordered_json runs_json;
};

// The case's settings: its parameters, the rest the Sec. 4.3 schedule.
RunSettings case_settings(const ClaimContext& ctx, const Case& c, bool form11, int L) {
  RunSettings s;
  s.form11 = form11;
  s.n = c.geti("n");
  s.L = L;
  s.steps = c.geti("steps");
  s.batch = static_cast<std::uint64_t>(c.geti("batch"));
  s.resample = c.geti("resample");
  s.learning_rate = c.get("lr");
  s.lr_decay_every = s.steps / 4;
  s.lr_decay = 0.5;
  s.test_samples = ctx.samples;
  return s;
}

// Per-run numbers of the parts (part a is what the paper plots, Figs. 1d, 3c: the training loss, i.e. the minibatch
// loss of the last curve window; the fresh-prompt mean of these networks is heavy-tailed (a few prompts carry it), so
// the fresh prompts' mean, median and tail share are reported beside it, not decided on).
void per_run_numbers(CaseRuns& k, int L, bool form11) {
  for (const auto& o : k.outs) {
    k.rel_loss.push_back(o.result.final_train_loss / o.zero_loss);
    k.rel_test_mean.push_back(o.test_loss.mean / o.zero_loss);
    k.rel_test_median.push_back(o.test_losses.median / o.zero_loss);
    k.tail_share.push_back(o.test_losses.tail_share);
    double pre = 0, drop = INFINITY, gap = INFINITY, raw = INFINITY;
    for (int l = 0; l < L; ++l) {
      pre = std::max(pre, o.dist_pre[l]);
      drop = std::min(drop, o.dist_pre0[l] - o.dist_pre[l]);
      gap = std::min(gap, o.dist_raw[l] - o.dist_pre[l]);
      raw = std::min(raw, o.dist_raw[l]);
    }
    k.dist_pre_max.push_back(pre);
    k.dist_pre_drop.push_back(drop);
    k.dist_gap.push_back(gap);
    k.dist_raw_min.push_back(raw);
    if (form11) {
      double b = 0;
      for (double x : o.dist_B) b = std::max(b, x);
      k.dist_B_max.push_back(b);
      k.ratio01.push_back(std::log(o.norm_A[1] / o.norm_A[0]));
      k.ratio12.push_back(std::log(o.norm_A[2] / o.norm_A[1]));
    }
  }
}

// Trains the case's runs and computes what its parts are judged on.
CaseRuns train_case(const ClaimContext& ctx, const Case& c, bool form11, int L, double conf_loss) {
  CaseRuns k;
  RunSettings& s = k.s;
  s = case_settings(ctx, c, form11, L);
  k.runs = c.geti("runs");
  const std::string tag = c.label();
  for (int r = 0; r < k.runs; ++r) {
    k.outs.push_back(train_run(ctx, tag, r, s, conf_loss));
    if (!k.outs.back().result.ok() && k.diverged.empty())
      k.diverged = fmt::format("run {} {}: {}", r, learn::to_string(k.outs.back().result.status), k.outs.back().result.reason);
  }
  if (s.batch != 20000) k.diff.push_back(fmt::format("minibatch {} (paper 20000)", s.batch));
  if (s.resample != 100) k.diff.push_back(fmt::format("resampled every {} steps (paper 100)", s.resample));
  if (k.runs < 5) k.diff.push_back(fmt::format("{} runs (paper 5)", k.runs));
  if (k.runs > 5) k.more.push_back(fmt::format("{} runs (paper 5; more runs are not a reduction)", k.runs));
  if (s.n != (form11 ? 10 : 20)) k.diff.push_back(fmt::format("n = {} (paper {})", s.n, form11 ? 10 : 20));
  return k;
}

// The first case's statement of what differs from the paper (training.paper_settings_differences).
std::string settings_differences(const CaseRuns& k, bool form11) {
  const RunSettings& s = k.s;
  std::vector<std::string> all = k.diff;
  all.insert(all.end(), k.more.begin(), k.more.end());
  std::string differences = all.empty() ? "none stated by the paper" : fmt::format("{}", fmt::join(all, "; "));
  differences += fmt::format(
      "; not stated by the paper (ours): {} steps, Adam learning rate {} halved every {} steps, initialisation "
      "A_i{} ~ N(0, {}^2) entrywise, final test loss on {} fresh prompts",
      s.steps, s.learning_rate, s.lr_decay_every, form11 ? ", B_i" : "", s.init_sd, s.test_samples);
  return differences;
}

// One part's case (without progress: the unit of progress is the claim's case, all its parts), its decision settled
// against the paper (trained::settle_over_runs: the paper states neither the steps nor the learning rate, so no
// re-run refutes) unless `own_rule` (part e: d already follows its part's own rule); `also`, a decision recorded beside it.
void emit(ClaimRun& r, const Case& c, const CaseRuns& k, bool paper, double alpha, const std::string& part, Decision d,
          const std::string& name, const std::vector<double>& values, double bound, bool own_rule = false,
          const std::optional<std::pair<std::string, Decision>>& also = {}) {
  if (!own_rule)
    d = trained::settle_over_runs(
        std::move(d), k.diverged, {paper, fmt::format("{}", fmt::join(k.diff, "; "))},
        fmt::format("not reproduced after {} steps at learning rate {} (the paper's minibatch and runs; its number of steps and "
                    "learning rate are not stated, these are ours), which cannot refute the paper's run: ",
                    k.s.steps, k.s.learning_rate));
  CaseJson j = trained::over_runs_case(c, part, values, bound, alpha);
  if (part == "a") {
    j.quantity("zero_predictor_loss", static_cast<double>(k.s.d));
    if (!k.s.form11) j.quantity("family_optimum_loss", k.fam_opt);
    j.field("fresh_prompts_relative_mean", k.rel_test_mean);
    j.field("fresh_prompts_relative_median", k.rel_test_median);
    j.field("fresh_prompts_tail_share", k.tail_share);
    j.field("fresh_prompts_tail_fraction", k.outs.front().test_losses.tail_fraction);
    j.field("runs", k.runs_json);
  }
  if (part == "c") {
    j.quantity("dist_sigma_inverse", k.dist_sinv);
    j.field("gap_to_preconditioned_per_run", k.dist_gap);
  }
  if (also) j.decision(also->first, also->second);
  trained::over_runs_verdict(j, d, name);
  r.add_uncounted_case(j);
}

// Parts a (loss almost 0), b (Dist(S^1/2 A_i S^1/2, I) -> 0 and decreasing), c (Dist(A_i, I) away from 0), and for
// form (11) d (Dist(B_i, I) -> 0) and e (||A_0|| < ||A_1|| < ||A_2||), one case each.
void judge_parts(ClaimRun& r, const Case& c, const CaseRuns& k, bool paper, double alpha) {
  auto put = [&](const std::string& part, Decision d, const std::string& name, const std::vector<double>& values,
                 double bound) { emit(r, c, k, paper, alpha, part, std::move(d), name, values, bound); };
  {
    Decision a = judge_bound_over_runs(k.rel_loss, kAlmostZero, true, alpha, "final training (minibatch) loss / E[y_q^2]");
    double mmax = 0, medmax = 0, tmax = 0;
    for (std::size_t i = 0; i < k.rel_loss.size(); ++i)
      mmax = std::max(mmax, k.rel_test_mean[i]), medmax = std::max(medmax, k.rel_test_median[i]), tmax = std::max(tmax, k.tail_share[i]);
    a.why += fmt::format(". Beside it, on {} fresh prompts per run (not decided on): mean loss / E[y_q^2] up to {:.4g}, "
                         "median up to {:.4g}; the largest {:.2g}% of prompts carry up to {:.3g}% of the summed loss",
                         k.outs.front().test_losses.samples, mmax, medmax, 100 * k.outs.front().test_losses.tail_fraction,
                         100 * tmax);
    put("a", a, "loss_almost_zero", k.rel_loss, kAlmostZero);
  }
  {
    const Decision small = judge_bound_over_runs(k.dist_pre_max, kDistSmall, true, alpha, "max_i Dist(S^1/2 A_i S^1/2, I) at the end");
    const Decision drop = judge_bound_over_runs(k.dist_pre_drop, 0.0, false, alpha,
                                                "min_i [Dist(S^1/2 A_i S^1/2, I) at init - at the end]");
    put("b", both(small, drop, small.why + ". Decrease from init: " + drop.why), "dist_preconditioned_small",
        k.dist_pre_max, kDistSmall);
  }
  {
    // Part c as the paper states it: the red line Dist(A_i, I) stays away from 0, i.e. above the band the claim
    // calls "-> 0" in parts b and d (kDistSmall): the trained network is not plain gradient descent. Whether
    // A_i is nearer Sigma^-1 than I is part b's statement; the paired gap is reported beside, not decided on.
    Decision dc = judge_bound_over_runs(k.dist_raw_min, kDistSmall, false, alpha, "min_i Dist(A_i, I) at the end");
    const Estimate g = over_runs(k.dist_gap, 1 - alpha);
    dc.why += fmt::format(". Beside it (not decided on; part b's question): min_i [Dist(A_i, I) - Dist(S^1/2 A_i "
                          "S^1/2, I)] per run, mean {:.4g} (sd {:.3g}); at A_i proportional to Sigma^-1, Dist(A_i, I) "
                          "would be {:.4g}",
                          g.mean, g.sd, k.dist_sinv);
    put("c", dc, "dist_plain_away_from_zero", k.dist_raw_min, kDistSmall);
  }
  if (k.s.form11) {
    put("d", judge_bound_over_runs(k.dist_B_max, kDistSmall, true, alpha, "max_i Dist(B_i, I), i = 0, 1, at the end"),
        "dist_B_small", k.dist_B_max, kDistSmall);
    // Part e by the rule stated before the runs that decide it (docs/budgets.md): among the converged runs (part a's
    // bound, per run), how many end with both inequalities; exact binomial tests (judge_most_runs: most runs have
    // it, or more runs lack it than a failure fraction of 1/4 allows), at least 15 converged runs. A refutation at
    // reduced settings (fewer runs, a smaller minibatch) is not one. Per run: min of the two log ratios.
    int converged = 0, holds = 0, first = 0;
    std::vector<double> mins;
    for (std::size_t i = 0; i < k.ratio01.size(); ++i) {
      mins.push_back(std::min(k.ratio01[i], k.ratio12[i]));
      if (!k.outs[i].result.ok() || !(k.rel_loss[i] <= kAlmostZero)) continue;
      ++converged;
      if (k.ratio01[i] > 0 && k.ratio12[i] > 0) ++holds;
      if (k.ratio01[i] > 0) ++first;
    }
    Decision e = judge_most_runs(holds, converged, 0.25, alpha, 15, "||A_0|| < ||A_1|| < ||A_2|| at the end");
    e.why += fmt::format(" ({} of {} runs converged: final training loss / E[y_q^2] <= {}; the others left out)",
                         converged, k.runs, kAlmostZero);
    if (e.verdict == Verdict::refuted && !paper) {
      e.verdict = Verdict::inconclusive;
      e.why = fmt::format("not a refutation at reduced settings ({}): ", fmt::join(k.diff, "; ")) + e.why;
    }
    // The correction offered where e is refuted (its first inequality alone, seen in every run of the first look),
    // judged by the same rule on the same runs.
    const Decision first_pair = judge_most_runs(first, converged, 0.25, alpha, 15, "||A_0|| < ||A_1|| at the end");
    emit(r, c, k, paper, alpha, "e", e, "norms_increase", mins, 0.0, true, {{"first_pair_increases", first_pair}});
  }
}

// The report's training block and figure (constructions/acds_training.hpp), the thresholds and the error rates.
void write_training(ClaimRun& r, bool form11, const learn::TrainConfig& config0, const std::vector<std::uint64_t>& seeds,
                    bool paper, const std::string& differences, const std::vector<RunOutcome>& kept) {
  r.extra("training") = experiment_training_json(r.ctx(), form11, config0, seeds, paper, differences);
  r.result().files["training.svg"] = experiment_training_svg(form11, kept);
  r.extra("thresholds") = {{"almost_zero_relative_loss", kAlmostZero}, {"dist_small", kDistSmall}};
  r.error_rates(Tolerance{});
}

}  // namespace

ClaimResult run_training_experiment(const ClaimContext& ctx, bool form11) {
  ClaimRun r(ctx);
  const std::vector<std::string> part_ids =
      form11 ? std::vector<std::string>{"a", "b", "c", "d", "e"} : std::vector<std::string>{"a", "b", "c"};
  // One decision family per part and case, +1 per case: Dist decreases (part b).
  const double alpha = r.split_alpha(ctx.cases.size() * (part_ids.size() + 1));
  r.note_looks(1);
  const double conf_loss = 1 - alpha;
  std::vector<RunOutcome> kept;  // the first case's runs, for the figure
  learn::TrainConfig config0;
  std::vector<std::uint64_t> seeds;
  bool paper = true;
  std::string differences;
  const int L = 3;
  for (std::size_t ci = 0; ci < ctx.cases.size(); ++ci) {
    const Case& c = ctx.cases[ci];
    CaseRuns k = train_case(ctx, c, form11, L, conf_loss);
    if (!k.diff.empty()) paper = false;
    if (ci == 0) {
      config0 = k.outs.front().config;
      differences = settings_differences(k, form11);
    }
    per_run_numbers(k, L, form11);
    k.fam_opt = form11 ? NAN : family_optimum(k.s.d, k.s.n, L);
    k.dist_sinv = dist_identity(k.outs.front().sigma.inverse());  // the same for every U
    k.runs_json = nlohmann::ordered_json::array();
    for (const auto& o : k.outs) k.runs_json.push_back(run_json(o));
    judge_parts(r, c, k, paper, alpha);
    if (ci == 0) {
      for (std::size_t i = 0; i < k.outs.size(); ++i) seeds.push_back(ctx.seed);
      kept = std::move(k.outs);
      if (!form11)
        r.finding(fmt::format(
            "{}: the exact population loss of the Thm. 3 family optimum (A_i = a_i Sigma^-1, optimal a_i) is {:.4g}, {:.3g} "
            "of E[y_q^2] = {} (the same for every U): the reference for the trained loss (per run: runs[].test_loss).",
            c.label(), k.fam_opt, k.fam_opt / k.s.d, k.s.d));
    }
    r.step();
  }
  write_training(r, form11, config0, seeds, paper, differences, kept);
  // The findings block is written (empty for form (11)) where it always stood, after error_rates.
  r.extra("findings") = nlohmann::ordered_json::array();
  for (const auto& id : part_ids)
    if (id == "e")
      r.part(id).on_refuted(Refutation{RefutationClass::missing_assumption,
                                       "at the paper's stated setup (with our choice of the steps and learning rate it "
                                       "does not state) training does not reliably give the ordering: more runs lack it "
                                       "than a failure fraction of 1/4 allows (docs/budgets.md); the statement holds at "
                                       "best under settings the paper leaves out",
                                       {},
                                       all_confirmed(r.cases(), "first_pair_increases")
                                           ? "||A_0|| < ||A_1|| at the end of training (the first two layers' norms "
                                             "increase; ||A_1|| < ||A_2|| is not reliable at this setup)"
                                           : ""});
    else
      r.part(id).on_refuted(Refutation{RefutationClass::substantive,
                                     "at the paper's stated settings the re-run does not reproduce the asserted outcome "
                                     "(see the part's case: the interval over runs excludes it)",
                                     {},
                                     ""});
  return r.finish([&](Verdict v) {
    return fmt::format("{}: {} trained three-layer form ({}) runs per case; {}", to_string(v), kept.size(), form11 ? 11 : 8,
                       v == Verdict::refuted ? refuted_cases_text(r.cases())  // what refutes it, in its own words
                                             : tally_decisions(r.cases(), form11 ? "dist_B_small" : "loss_almost_zero"));
  });
}

std::vector<ParamSpec> training_experiment_params(int paper_n) {
  return {ParamSpec{"n", {static_cast<double>(paper_n)}, {static_cast<double>(paper_n)}, 2, 1000, true,
                    fmt::format("context length (paper: {})", paper_n)},
          as_replications(with_paper(ParamSpec{"runs", {5}, {3}, 2, 100, true, "training runs, each with its own U and initialisation (paper: 5)"}, {5})),
          // acds.exp51 (paper n = 10) trains longer at the standard budget (about 3 min on 2 threads): at 300 steps
          // of minibatch 1000 its A_i norms had not separated (part e held in 4 of 5 runs); at 3000 steps of 4000 it
          // held in 5 of 5 (November 2026, docs/budgets.md).
          with_paper(ParamSpec{"steps", {paper_n == 10 ? 3000.0 : 300.0}, {100}, 10, 1e7, true, "Adam steps (the paper does not state its number; its paper budget is our choice, 5000: 50 minibatch resamples of 100 steps)"}, {5000}),
          with_paper(ParamSpec{"batch", {paper_n == 10 ? 4000.0 : 1000.0}, {300}, 64, 1e6, true, "minibatch size (paper: 20000)"}, {20000}),
          with_paper(ParamSpec{"resample", {100}, {100}, 1, 1e7, true, "steps between minibatch resamples (paper: 100)"}, {100}),
          with_paper(ParamSpec{"lr", {0.02}, {0.02}, 1e-6, 1, false, "Adam learning rate, halved every steps/4 (not stated by the paper; 0.02, our choice, in every budget)"}, {0.02})};
}

}  // namespace icl::acds_exp
