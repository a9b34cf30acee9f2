// Ahn, Cheng, Daneshmand, Sra (002), Appendix D (Figures 6-7): the baselines a trained L-layer form (8) is compared
// with at a point (n, L), d = 5, on the Sec. 4.3 distribution of one run (constructions/acds_training.hpp):
//   precond  L steps of GD preconditioned by Sigma^-1 with one step size eta for every step (A_i = eta Sigma^-1), eta
//            grid-searched on the exact population loss (exact/acds_family_loss.hpp ReducedFamilyLoss: on this family
//            the loss does not depend on Sigma) over 81 log-spaced values in [0.01, 3]; and the exact loss of the best
//            per-step step sizes a_i (the Thm. 3 family optimum, from its stationary equations:
//            exact/acds_family_loss.hpp reduced_family_optimum);
//   gd       L steps of plain GD (A_i = eta I), eta grid-searched over the same grid by Monte Carlo (2048 prompts of the
//            selection stream purpose(tag + "/gd-select"); its loss depends on Sigma);
//   ols      the minimum-norm least-squares fit of the n examples (0 for n >= d: the labels are noiseless);
// and the paired test: the trained network, precond and gd at their step sizes, and OLS, on the same ctx.samples fresh
// prompts of the stream purpose(tag + "/test").
#pragma once
#include "constructions/acds_training.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/learn/learn.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <functional>
#include <string>
#include <vector>

namespace icl::acds_exp {

// The step-size grid: 0.01 x 300^(k/80), k = 0..80.
std::vector<double> appD_eta_grid();

struct Baselines {
  double pre_eta = 0, pre_exact = INFINITY, per_step = INFINITY, gd_eta = 0;
};
// gd_family: learn::acds_family(5, L, I, false), whose network at eta's repeated L times is plain GD.
Baselines appD_baselines(const ClaimContext& ctx, int n, int L, const std::string& tag, const icl::PromptSource& source,
                         const icl::Parameterisation& gd_family);

// Per prompt: the three networks' losses (trained, precond, gd), OLS's, and trained - precond; estimates at 1 - alpha.
struct PairedTest {
  Estimate trained, pre, gd, ols, diff;
};
PairedTest appD_paired_test(const ClaimContext& ctx, int n, const std::string& tag, const icl::PromptSource& source,
                            const icl::Network (&nets)[3], double alpha);


// A point of Figs. 6-7 (its n, L and the part it judges), and the run's grid: the points (Fig. 6: every n of the cases
// at L = 3, part a; Fig. 7: every L at n = 20, part b), the trials per point and the training settings (the last
// case's; they are the same in every case). `authors` (the budget setting `protocol` = 1, the paper budget): each
// figure trains as the authors' code does (authors_appD_protocol: form (11), their steps, learning rate, schedule,
// betas, minibatch, clipping and the choice of the best of the last saved weights on a validation batch); else ours:
// form (8) with the grid's steps, minibatch and learning rate (halved every quarter of the steps), the Sec. 4.3
// resampling and clipping, Adam's common betas, A_i ~ N(0, 0.1^2), the final weights.
struct AppDPoint {
  int n, L;
  std::string part;
};
struct AppDGrid {
  std::vector<AppDPoint> points;
  int steps = 0, batch = 0;
  double lr = 0;
  int trials = 1;
  bool authors = false;
  bool paper_batch() const { return authors || batch == 20000; }  // Sec. 4.3's minibatch, which App. D takes over
};
AppDGrid appD_grid(const ClaimContext& ctx);

// One trial of a point: its training settings (RunSettings for trial `trial`: the protocol above), the trained
// model (train_run of acds_training.hpp on the stream tag "n=N, L=L" for trial 0, "n=N, L=L, trial=k" after it: its
// own U, initialisation, minibatches, validation and test prompts), its baselines (appD_baselines) and the paired
// test of the trained network, preconditioned GD and GD at their step sizes, and OLS (appD_paired_test at 1 - alpha).
// `trained` (issue 65, stated before the runs): the run finished and its weights' loss on the validation prompts
// (20000 of purpose(tag + "/validate"); with a selection, the selected weights' own) lies below E[y_q^2] = d, the
// loss of predicting 0: it learned in context. A trial that did not is reported and counts neither for nor against.
struct AppDTrial {
  RunOutcome o;
  Baselines b;
  PairedTest m;
  double validation_loss = NAN;
  bool trained = false;
};
RunSettings appD_settings(const AppDPoint& pt, const AppDGrid& gr);
std::string appD_tag(const AppDPoint& pt, int trial);
void appD_trial(const ClaimContext& ctx, const AppDPoint& pt, const AppDGrid& gr, int trial, double alpha, AppDTrial& t);

// A point's case without its decision and verdict (the claim's): the quantities (stated = the preconditioned
// baseline's exact loss, the bound; mc = the first trained trial's trained loss; the baselines and the paired
// difference of that trial), per trial its numbers and training curve (field `trials`), the count of trained trials;
// and its row of the figure (fig6 for part a, fig7 for part b: the means over the trained trials).
CaseJson appD_case(const AppDPoint& pt, const std::vector<AppDTrial>& trials);
nlohmann::ordered_json appD_figure_row(const AppDPoint& pt, const std::vector<AppDTrial>& trials);

// The run's extra["training"] (learn::training_json of the first point's settings, the trials, every difference from
// the paper's settings and the authors' protocol) and its training.svg (one curve per point, its first trial).
nlohmann::ordered_json appD_training_json(const ClaimContext& ctx, const AppDGrid& gr, const std::vector<RunOutcome>& outs);
std::string appD_training_svg(const AppDGrid& gr, const std::vector<RunOutcome>& outs);

// The run of Figs. 6-7 in r (made with one progress step per point): the grid's points in order, at alpha = ctx.alpha
// split over the points (one look each), each point's trials trained and measured (appD_trial) and judged by `judge`
// (the claim's decision at the point, from its trials); per point its case (appD_case, with the decision `decision` and
// the verdict resting on it) and its row of the figure (extra fig6 for part a, fig7 for part b); after them
// extra["training"] and training.svg.
using AppDJudge = std::function<Decision(const AppDPoint&, const std::vector<AppDTrial>&, double alpha, const AppDGrid&)>;
void appD_run(ClaimRun& r, const ClaimContext& ctx, const AppDGrid& gr, const std::string& decision,
              const AppDJudge& judge);

}  // namespace icl::acds_exp
