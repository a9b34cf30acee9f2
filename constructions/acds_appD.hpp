// Ahn, Cheng, Daneshmand, Sra (002), Appendix D (Figures 6-7): the baselines a trained L-layer form (8) is compared
// with at a point (n, L), d = 5, on the Sec. 4.3 distribution of one run (constructions/acds_training.hpp):
//   precond  L steps of GD preconditioned by Sigma^-1 with one step size eta for every step (A_i = eta Sigma^-1), eta
//            grid-searched on the exact population loss (exact/acds_family_loss.hpp ReducedFamilyLoss: on this family
//            the loss does not depend on Sigma) over 81 log-spaced values in [0.01, 3]; and the exact loss of the best
//            per-step step sizes a_i (L-BFGS from the best common eta: the Thm. 3 family optimum);
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
Baselines appD_baselines(const ClaimContext& ctx, int n, int L, const std::string& tag, const learn::PromptSource& source,
                         const learn::Parameterisation& gd_family);

// Per prompt: the three networks' losses (trained, precond, gd), OLS's, and trained - precond; estimates at 1 - alpha.
struct PairedTest {
  Estimate trained, pre, gd, ols, diff;
};
PairedTest appD_paired_test(const ClaimContext& ctx, int n, const std::string& tag, const learn::PromptSource& source,
                            const learn::Network (&nets)[3], double alpha);


// A point of Figs. 6-7 (its n, L and the part it judges), and the run's grid: the points (Fig. 6: every n of the cases
// at L = 3, part a; Fig. 7: every L at n = 20, part b) and the training settings (the last case's; they are the same
// in every case).
struct AppDPoint {
  int n, L;
  std::string part;
};
struct AppDGrid {
  std::vector<AppDPoint> points;
  int steps = 0, batch = 0;
  double lr = 0;
  bool paper_batch() const { return batch == 20000; }  // Sec. 4.3's minibatch, which App. D takes over
};
AppDGrid appD_grid(const ClaimContext& ctx);

// One point: the trained L-layer form (8) (train_run of acds_training.hpp: run 0 of the tag "n=N, L=L", the grid's
// steps, batch and learning rate halved every quarter of the steps, 256 test prompts of its own, which the paired test
// replaces), its baselines (appD_baselines) and the paired test of the trained network, preconditioned GD and GD at
// their step sizes, and OLS (appD_paired_test at 1 - alpha).
void appD_point(const ClaimContext& ctx, const AppDPoint& pt, const AppDGrid& gr, double alpha, RunOutcome& o,
                Baselines& b, PairedTest& m);

// A point's case without its decision and verdict (the claim's): the quantities (stated = the preconditioned
// baseline's exact loss, the bound; mc = the trained loss; the baselines and the paired difference) and the training
// run's curve; and its row of the figure (fig6 for part a, fig7 for part b).
CaseJson appD_case(const AppDPoint& pt, const RunOutcome& o, const Baselines& b, const PairedTest& m);
nlohmann::ordered_json appD_figure_row(const AppDPoint& pt, const Baselines& b, const PairedTest& m);

// The run's extra["training"] (learn::training_json of the first point's settings, one seed per point, the number of
// trials and every difference from the paper's settings) and its training.svg (one curve per point).
nlohmann::ordered_json appD_training_json(const ClaimContext& ctx, const AppDGrid& gr, const std::vector<RunOutcome>& outs);
std::string appD_training_svg(const AppDGrid& gr, const std::vector<RunOutcome>& outs);

// The run of Figs. 6-7 in r (made with one progress step per point): the grid's points in order, at alpha = ctx.alpha
// split over the points (one look each), each trained and measured (appD_point) and judged by `judge` (the claim's
// decision at the point); per point its case (appD_case, with the decision `decision` and the verdict resting on it)
// and its row of the figure (extra fig6 for part a, fig7 for part b); after them extra["training"] and training.svg.
using AppDJudge = std::function<Decision(const AppDPoint&, const RunOutcome&, const Baselines&, const PairedTest&,
                                         double alpha, const AppDGrid&)>;
void appD_run(ClaimRun& r, const ClaimContext& ctx, const AppDGrid& gr, const std::string& decision,
              const AppDJudge& judge);

}  // namespace icl::acds_exp
