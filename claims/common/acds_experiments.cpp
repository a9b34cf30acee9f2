#include "claims/common/acds_experiments.hpp"

#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/claim/kinds/trained.hpp"
#include "icl/exact/acds_family_loss.hpp"
#include "icl/verdict/decision.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <utility>

namespace icl::acds_exp {
namespace {

// Readings of the paper's words, fixed before any run (see the claims' headers for why).
constexpr double kAlmostZero = 0.1;  // held-out loss <= 10% of the zero predictor's loss E[y_q^2] = d
constexpr double kDistSmall = 0.1;   // "Dist -> 0": final Dist <= 0.1
// "Trained" (issue 65, stated before the runs at the authors' protocol; docs/budgets.md): a run trained when it
// finished and the median of its per-prompt loss on the case's fixed held-out prompts is at most kAlmostZero
// E[y_q^2]: the typical prompt's loss is almost 0, the state part (a) describes. The median, not the mean: these
// networks' per-prompt loss is so heavy-tailed (up to 99.9% of the summed loss in 0.1% of the prompts in the 5000-step
// runs of form (11)) that a mean over 20000 prompts measures a handful of them. Parts b, c, d are statements about trained models and are judged on the trained runs only; part e on
// the runs that also reached the end state of parts b and d (max_i Dist(S^1/2 A_i S^1/2, I) <= kDistSmall and, form
// (11), max(Dist(B_0, I), Dist(B_1, I)) <= kDistSmall), the state in which the paper reports the ordering. A run
// that did not train is reported (how many, why) and counts neither for nor against.
constexpr int kMinTrained = 2;  // fewer trained runs: parts b-d are not reproduced (inconclusive)

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
  std::vector<bool> trained, in_state;  // per run: trained (above), and in the end state of parts b and d
  std::vector<std::string> not_trained;  // per run that did not train: why
  std::vector<std::string> below_optimum;  // runs whose held-out interval lies wholly below the family optimum
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
  const int decay = static_cast<int>(ctx.setting("decay"));
  s.lr_decay_every = decay > 0 ? decay : s.steps / 4;
  s.lr_decay = 0.5;
  s.beta1 = ctx.setting("beta1");
  s.beta2 = ctx.setting("beta2");
  s.init_sd = ctx.setting("init_sd");
  s.test_samples = ctx.samples;
  return s;
}

// The case's runs judged against the trained criterion (finished; median held-out loss, above) and the
// end state of parts b and d; the family optimum as a check of the engine and of the run (a trained form (8) loss
// below the exact optimum of the Thm. 3 family it converges to, beyond its interval, is an internal inconsistency).
void classify_runs(CaseRuns& k) {
  for (std::size_t i = 0; i < k.outs.size(); ++i) {
    const auto& o = k.outs[i];
    const bool finished = o.result.ok();
    const bool low = k.rel_test_median[i] <= kAlmostZero;
    k.trained.push_back(finished && low);
    if (!finished)
      k.not_trained.push_back(fmt::format("run {} {}", i, learn::to_string(o.result.status)));
    else if (!low)
      k.not_trained.push_back(fmt::format("run {} held-out median loss {:.3g} E[y_q^2]", i, k.rel_test_median[i]));
    bool state = k.trained.back() && k.dist_pre_max[i] <= kDistSmall;
    if (k.s.form11) state = state && k.dist_B_max[i] <= kDistSmall;
    k.in_state.push_back(state);
    if (std::isfinite(k.fam_opt) && finished && o.test_loss.ci_high < k.fam_opt)
      k.below_optimum.push_back(fmt::format("run {} (held-out loss {:.4g}, interval [{:.4g}, {:.4g}], against {:.4g})", i,
                                            o.test_loss.mean, o.test_loss.ci_low, o.test_loss.ci_high, k.fam_opt));
  }
}

// The per-layer steps a_i of the Thm. 3 family optimum.
std::vector<double> family_optimum_steps(int d, int n, int L) {
  const FamilyOptimum o = reduced_family_optimum(d, n, L);
  return std::vector<double>(o.a.data(), o.a.data() + o.a.size());
}

// The values of the runs where `keep` holds.
std::vector<double> kept(const std::vector<double>& v, const std::vector<bool>& keep) {
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size() && i < keep.size(); ++i)
    if (keep[i]) out.push_back(v[i]);
  return out;
}

int count(const std::vector<bool>& v) { return static_cast<int>(std::count(v.begin(), v.end(), true)); }

// The runs that did not train, in words ("" when every run trained).
std::string not_trained_text(const CaseRuns& k) {
  if (k.not_trained.empty()) return "";
  return fmt::format("{} of {} runs did not train (left out: {})", k.not_trained.size(), k.runs, fmt::join(k.not_trained, "; "));
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
  // The authors' protocol (docs/budgets.md): what the paper budget takes from their code where the paper is silent.
  const Protocol a = authors_protocol(form11);
  if (s.steps < a.steps) k.diff.push_back(fmt::format("{} steps (the authors' code: {})", s.steps, a.steps));
  const bool same_optimizer = s.learning_rate == a.lr && s.lr_decay_every == a.decay_every && s.beta1 == a.beta1 &&
                              s.beta2 == a.beta2 && s.init_sd == a.init_sd;
  if (!same_optimizer)
    k.diff.push_back(fmt::format("Adam lr {} halved every {} steps, betas ({}, {}), init sd {} (the authors' code: lr {} "
                                 "halved every {}, betas ({}, {}), init sd {})",
                                 s.learning_rate, s.lr_decay_every, s.beta1, s.beta2, s.init_sd, a.lr, a.decay_every,
                                 a.beta1, a.beta2, a.init_sd));
  return k;
}

// The first case's statement of what differs from the paper (training.paper_settings_differences).
std::string settings_differences(const CaseRuns& k, bool form11) {
  const RunSettings& s = k.s;
  std::vector<std::string> all = k.diff;
  all.insert(all.end(), k.more.begin(), k.more.end());
  std::string differences = all.empty() ? "none from the paper's settings or the authors' protocol"
                                         : fmt::format("{}", fmt::join(all, "; "));
  differences += fmt::format(
      "; not stated by the paper, from the authors' code where it is theirs ({}): {} steps, Adam learning rate {} halved "
      "every {} steps, betas ({}, {}), initialisation A_i{} ~ N(0, {}^2) entrywise; held-out loss on {} fixed prompts "
      "per case (ours)",
      authors_protocol(form11).source, s.steps, s.learning_rate, s.lr_decay_every, s.beta1, s.beta2,
      form11 ? ", B_i" : "", s.init_sd, s.test_samples);
  return differences;
}

// One part's case (without progress: the unit of progress is the claim's case, all its parts), its decision settled
// against the paper (trained::settle_over_runs: the paper states neither the steps nor the learning rate, so no
// re-run refutes) unless `own_rule` (part e: d already follows its part's own rule); `also`, a decision recorded beside it.
void emit(ClaimRun& r, const Case& c, const CaseRuns& k, bool paper, double alpha, const std::string& part, Decision d,
          const std::string& name, const std::vector<double>& values, double bound, bool own_rule = false,
          const std::optional<std::pair<std::string, Decision>>& also = {}) {
  // A run that did not train counts neither for nor against (parts b-e are judged on the others); below the paper's
  // settings and the authors' protocol a refutation is "not reproduced" (trained::settle_over_runs).
  if (!own_rule)
    d = trained::settle_over_runs(std::move(d), "", {paper, fmt::format("{}", fmt::join(k.diff, "; "))}, "");
  if (!k.below_optimum.empty() && (part == "a" || part == "b"))
    d = unless_inconsistent(std::move(d), true,
                            fmt::format("a trained loss lies below the exact optimum of the Thm. 3 family ({}): the "
                                        "optimum or the run is wrong",
                                        fmt::join(k.below_optimum, "; ")));
  CaseJson j = values.size() >= 2 ? trained::over_runs_case(c, part, values, bound, alpha) : [&] {
    CaseJson e(c);
    e.part(part);
    e.quantity("bound", bound);
    e.field("per_run", values);
    return e;
  }();
  j.field("runs_counted", static_cast<int>(values.size()));
  if (part == "a") {
    j.quantity("zero_predictor_loss", static_cast<double>(k.s.d));
    if (!k.s.form11) j.quantity("family_optimum_loss", k.fam_opt);
    j.field("fresh_prompts_relative_mean", k.rel_test_mean);
    j.field("fresh_prompts_relative_median", k.rel_test_median);
    j.field("fresh_prompts_tail_share", k.tail_share);
    j.field("fresh_prompts_tail_fraction", k.outs.front().test_losses.tail_fraction);
    j.field("runs", k.runs_json);
    j.field("trained_runs", count(k.trained));
    j.field("runs_in_end_state", count(k.in_state));
    if (!k.not_trained.empty()) j.field("not_trained", k.not_trained);
  }
  if (part == "c") {
    j.quantity("dist_sigma_inverse", k.dist_sinv);
    j.field("gap_to_preconditioned_per_run", k.dist_gap);
  }
  if (also) j.decision(also->first, also->second);
  trained::over_runs_verdict(j, d, name);
  r.add_uncounted_case(j);
}

// A part about trained models judged on the trained runs (`keep`): by `judge` where at least kMinTrained runs count,
// else not reproduced (inconclusive), with the runs left out named either way.
Decision over_kept(const CaseRuns& k, const std::vector<bool>& keep, const std::string& who,
                   const std::function<Decision(const std::vector<double>&)>& judge, const std::vector<double>& all,
                   std::vector<double>& values) {
  values = kept(all, keep);
  Decision d;
  if (static_cast<int>(values.size()) < kMinTrained)
    d = Decision{Verdict::inconclusive, 0, 0,
                 fmt::format("not reproduced: {} of {} runs {} (at least {} needed)", values.size(), k.runs, who, kMinTrained)};
  else
    d = judge(values);
  const std::string left = not_trained_text(k);
  if (!left.empty()) d.why += "; " + left;
  return d;
}

// Parts a (loss almost 0, over every run: the training outcome), b (Dist(S^1/2 A_i S^1/2, I) -> 0 and decreasing), c
// (Dist(A_i, I) away from 0), and for form (11) d (Dist(B_i, I) -> 0), judged on the trained runs, and e (||A_0|| <
// ||A_1|| < ||A_2||) on the runs that reached the end state of b and d; one case each.
void judge_parts(ClaimRun& r, const Case& c, const CaseRuns& k, bool paper, double alpha) {
  auto put = [&](const std::string& part, Decision d, const std::string& name, const std::vector<double>& values,
                 double bound) { emit(r, c, k, paper, alpha, part, std::move(d), name, values, bound); };
  {
    // Part a on the fixed held-out prompts (never the heavy-tailed last minibatch), over every run: a run that did not
    // converge is what training gave. The last minibatch's loss is reported beside it, not decided on.
    Decision a = judge_bound_over_runs(k.rel_test_mean, kAlmostZero, true, alpha,
                                       "held-out loss / E[y_q^2] on the case's fixed test prompts");
    double mmax = 0, medmax = 0, tmax = 0;
    for (std::size_t i = 0; i < k.rel_loss.size(); ++i)
      mmax = std::max(mmax, k.rel_loss[i]), medmax = std::max(medmax, k.rel_test_median[i]), tmax = std::max(tmax, k.tail_share[i]);
    a.why += fmt::format(". Beside it (not decided on): the last minibatch's loss / E[y_q^2] up to {:.4g}; on the {} "
                         "held-out prompts the median up to {:.4g}, and the largest {:.2g}% of prompts carry up to {:.3g}% "
                         "of the summed loss. {} of {} runs trained (finished, held-out median loss <= {} E[y_q^2])",
                         mmax, k.outs.front().test_losses.samples, medmax, 100 * k.outs.front().test_losses.tail_fraction,
                         100 * tmax, count(k.trained), k.runs, kAlmostZero);
    put("a", a, "loss_almost_zero", k.rel_test_mean, kAlmostZero);
  }
  std::vector<double> v;
  {
    std::vector<double> drop;
    const Decision b = over_kept(k, k.trained, "trained", [&](const std::vector<double>& x) {
      const Decision small = judge_bound_over_runs(x, kDistSmall, true, alpha, "max_i Dist(S^1/2 A_i S^1/2, I) at the end");
      const Decision fell = judge_bound_over_runs(kept(k.dist_pre_drop, k.trained), 0.0, false, alpha,
                                                  "min_i [Dist(S^1/2 A_i S^1/2, I) at init - at the end]");
      return both(small, fell, small.why + ". Decrease from init: " + fell.why);
    }, k.dist_pre_max, v);
    put("b", b, "dist_preconditioned_small", v, kDistSmall);
  }
  {
    // Part c as the paper states it: the red line Dist(A_i, I) stays away from 0, i.e. above the band the claim
    // calls "-> 0" in parts b and d (kDistSmall): the trained network is not plain gradient descent. Whether
    // A_i is nearer Sigma^-1 than I is part b's statement; the paired gap is reported beside, not decided on.
    Decision dc = over_kept(k, k.trained, "trained", [&](const std::vector<double>& x) {
      Decision d = judge_bound_over_runs(x, kDistSmall, false, alpha, "min_i Dist(A_i, I) at the end");
      const std::vector<double> gaps = kept(k.dist_gap, k.trained);
      const Estimate g = over_runs(gaps, 1 - alpha);
      d.why += fmt::format(". Beside it (not decided on; part b's question): min_i [Dist(A_i, I) - Dist(S^1/2 A_i "
                           "S^1/2, I)] per trained run, mean {:.4g} (sd {:.3g}); at A_i proportional to Sigma^-1, Dist(A_i, "
                           "I) would be {:.4g}",
                           g.mean, g.sd, k.dist_sinv);
      return d;
    }, k.dist_raw_min, v);
    put("c", dc, "dist_plain_away_from_zero", v, kDistSmall);
  }
  if (k.s.form11) {
    const Decision dd = over_kept(k, k.trained, "trained", [&](const std::vector<double>& x) {
      return judge_bound_over_runs(x, kDistSmall, true, alpha, "max_i Dist(B_i, I), i = 0, 1, at the end");
    }, k.dist_B_max, v);
    put("d", dd, "dist_B_small", v, kDistSmall);
    // Part e by the rule stated before the runs that decide it (docs/budgets.md): among the runs that trained AND
    // reached the end state of parts b and d (the state in which the paper reports the ordering), how many end with
    // both inequalities; exact binomial tests (judge_most_runs: most runs have it, or more runs lack it than a failure
    // fraction of 1/4 allows), at least 15 such runs. Runs outside that state count neither for nor against; with
    // fewer than 15 in it the part is not reproduced. A refutation below the paper's settings is not one. Per run: min
    // of the two log ratios.
    int counted = 0, holds = 0, first = 0;
    std::vector<double> mins;
    for (std::size_t i = 0; i < k.ratio01.size(); ++i) {
      mins.push_back(std::min(k.ratio01[i], k.ratio12[i]));
      if (!k.in_state[i]) continue;
      ++counted;
      if (k.ratio01[i] > 0 && k.ratio12[i] > 0) ++holds;
      if (k.ratio01[i] > 0) ++first;
    }
    Decision e = judge_most_runs(holds, counted, 0.25, alpha, 15, "||A_0|| < ||A_1|| < ||A_2|| at the end");
    e.why += fmt::format(" ({} of {} runs trained and reached the end state of parts b and d: held-out median loss / "
                         "E[y_q^2] <= {}, max_i Dist(S^1/2 A_i S^1/2, I) <= {}, max(Dist(B_0, I), Dist(B_1, I)) <= {}; the "
                         "others counted neither for nor against)",
                         counted, k.runs, kAlmostZero, kDistSmall, kDistSmall);
    if (counted < 15) {
      e.verdict = Verdict::inconclusive;
      e.why = fmt::format("not reproduced: the ordering is reported in the end state of parts b and d, which {} of {} "
                          "runs reached (at least 15 needed); ",
                          counted, k.runs) + e.why;
    }
    if (e.verdict == Verdict::refuted && !paper) {
      e.verdict = Verdict::inconclusive;
      e.why = fmt::format("not a refutation at reduced settings ({}): ", fmt::join(k.diff, "; ")) + e.why;
    }
    // The correction offered where e is refuted (its first inequality alone), judged by the same rule on the same runs.
    const Decision first_pair = judge_most_runs(first, counted, 0.25, alpha, 15, "||A_0|| < ||A_1|| at the end");
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
    classify_runs(k);
    k.dist_sinv = dist_identity(k.outs.front().sigma.inverse());  // the same for every U
    k.runs_json = nlohmann::ordered_json::array();
    for (const auto& o : k.outs) k.runs_json.push_back(run_json(o));
    judge_parts(r, c, k, paper, alpha);
    if (ci == 0) {
      for (std::size_t i = 0; i < k.outs.size(); ++i) seeds.push_back(ctx.seed);
      kept = std::move(k.outs);
      if (!form11)
        r.finding(fmt::format(
            "{}: the exact population loss of the Thm. 3 family optimum (A_i = a_i Sigma^-1, the optimal per-layer a_i from "
            "the family's stationary equations, a = ({:.3f})) is {:.4g}, {:.3g} of E[y_q^2] = {} (the same for every U): the "
            "reference for the trained loss (per run: runs[].test_loss); a trained loss wholly below it is flagged as an "
            "internal inconsistency.",
            c.label(), fmt::join(family_optimum_steps(k.s.d, k.s.n, L), ", "), k.fam_opt, k.fam_opt / k.s.d, k.s.d));
    }
    r.step();
  }
  write_training(r, form11, config0, seeds, paper, differences, kept);
  // The findings block is written (empty for form (11)) where it always stood, after error_rates.
  r.extra("findings") = nlohmann::ordered_json::array();
  for (const auto& id : part_ids)
    if (id == "e")
      r.part(id).on_refuted(Refutation{RefutationClass::substantive,
                                       "at the paper's settings and the authors' protocol, among the runs that reached "
                                       "the end state of parts b and d (where the paper reports the ordering), more lack "
                                       "it than a failure fraction of 1/4 allows (docs/budgets.md)",
                                       {},
                                       all_confirmed(r.cases(), "first_pair_increases")
                                           ? "||A_0|| < ||A_1|| at the end of training (the first two layers' norms "
                                             "increase; ||A_1|| < ||A_2|| is not reliable at this setup)"
                                           : ""});
    else
      r.part(id).on_refuted(Refutation{RefutationClass::substantive,
                                     "at the paper's settings and the authors' protocol the re-run does not reproduce "
                                     "the asserted outcome in the trained runs (see the part's case: the interval over "
                                     "runs excludes it)",
                                     {},
                                     ""});
  return r.finish([&](Verdict v) {
    // Each part's verdict (one case per part and case of the grid), then what refutes it in its own words.
    std::vector<std::string> parts;
    for (const auto& id : part_ids) {
      std::vector<std::string> vs;
      for (const auto& c : r.cases())
        if (c.value("part", "") == id) vs.push_back(c.value("verdict", ""));
      parts.push_back(fmt::format("{} {}", id, fmt::join(vs, "/")));
    }
    return fmt::format("{}: {} trained three-layer form ({}) runs per case; parts: {}{}", to_string(v), kept.size(),
                       form11 ? 11 : 8, fmt::join(parts, ", "),
                       v == Verdict::refuted ? "; " + refuted_cases_text(r.cases()) : "");
  });
}

std::vector<ParamSpec> training_experiment_params(int paper_n) {
  const Protocol a = authors_protocol(paper_n == 10);
  const std::string from = fmt::format("paper budget: the authors' code, {} (docs/budgets.md)", a.notebook);
  return {ParamSpec{"n", {static_cast<double>(paper_n)}, {static_cast<double>(paper_n)}, 2, 1000, true,
                    fmt::format("context length (paper: {})", paper_n)},
          as_replications(with_paper(ParamSpec{"runs", {5}, {3}, 2, 100, true, "training runs, each with its own U and initialisation (paper: 5)"}, {5})),
          // acds.exp51 (paper n = 10) trains longer at the standard budget (about 3 min on 2 threads): at 300 steps
          // of minibatch 1000 its A_i norms had not separated (part e held in 4 of 5 runs); at 3000 steps of 4000 it
          // held in 5 of 5 (November 2026, docs/budgets.md).
          with_paper(ParamSpec{"steps", {paper_n == 10 ? 3000.0 : 300.0}, {100}, 10, 1e7, true, fmt::format("Adam steps (not stated by the paper; {})", from)}, {static_cast<double>(a.steps)}),
          with_paper(ParamSpec{"batch", {paper_n == 10 ? 4000.0 : 1000.0}, {300}, 64, 1e6, true, "minibatch size (paper: 20000)"}, {20000}),
          with_paper(ParamSpec{"resample", {100}, {100}, 1, 1e7, true, "steps between minibatch resamples (paper: 100)"}, {100}),
          with_paper(ParamSpec{"lr", {0.02}, {0.02}, 1e-6, 1, false, fmt::format("Adam learning rate (not stated by the paper; standard and quick: 0.02, ours; {})", from)}, {a.lr}),
          // The optimiser's other settings: budget settings (one value per run, not grid coordinates, so they move no
          // random stream and name no case: the runs of a case at the same steps, batch and lr keep their streams).
          with_paper(ParamSpec{"decay", {0}, {0}, 0, 1e7, true, fmt::format("steps between halvings of the learning rate (0: a quarter of the steps, ours; {})", from), true}, {static_cast<double>(a.decay_every)}),
          with_paper(ParamSpec{"beta1", {0.9}, {0.9}, 0, 0.999999, false, fmt::format("Adam's beta1 (standard and quick: 0.9, the common default; {})", from), true}, {a.beta1}),
          with_paper(ParamSpec{"beta2", {0.999}, {0.999}, 0, 0.999999, false, fmt::format("Adam's beta2 (standard and quick: 0.999; {})", from), true}, {a.beta2}),
          with_paper(ParamSpec{"init_sd", {0.1}, {0.1}, 0, 10, false, fmt::format("standard deviation of the i.i.d. Gaussian initial entries (the paper: 'i.i.d. Gaussian'; standard and quick: 0.1, ours; {})", from), true}, {a.init_sd})};
}

}  // namespace icl::acds_exp
