// Sun, Jadbabaie, Azizan (000), Proposition 1 and Appendix B (Proposition 11): linear Transformers (LSA layers only)
// against the best linear predictor, on the quadratic task.
//
// Prop1Setting: one case's distribution, x ~ N(0, test_covariance(d, cov)), w random (PolynomialTask::quadratic), the
// sja embedding with dbar = d + 2 rows (1, x, one zero row: room for deeper stacks to write into), its features'
// exact moments and Psi, the query's (conditional Monte Carlo, montecarlo/conditional_loss.hpp).
// The stacks judged (prop1_model, parameter `model`):
//   0     the exactly optimal single layer: P = e e^T, Q = diag(Gamma*, 0), Gamma* = optimal_sparse_gamma (exact loss
//         sparse_lsa_loss), with beside it the best full single layer the alternating exact solver reaches from 3
//         random starts (`general_best`);
//   1..4  the GD-style sparse stack of that depth: every layer Gamma = -Lam_u^+ (one preconditioned GD step on
//         (1, x)); depth 1 has its exact loss;
//   5..8  the depth-(model - 4) full stack (every entry of every P, Q: learn::full_lsa) the worst-case search finds
//         (prop1_search_stack).
// prop1_search_stack, on lib/icl/search: structured starts (0: the optimal single layer followed by identity
// (zero-weight) layers; 1: the GD-style sparse stack), refinement by SGD with each matrix's gradient clipped to norm 1
// on fresh minibatches of E[(yhat + y_q)^2] (the loss Proposition 1 bounds), repeated (continuation rounds at factor
// 1: more refinement from where the last one ended, the learning rate restarting), selection on one held-out set
// (minus its loss), and a final refinement of the winner. No random starts: small ones never came within 40% of the
// structured ones (measured; not run). The profile says whether the last quarter of the effort still lowered the
// held-out loss by more than 1% of E[y^2] (still_improving).
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/layers/network.hpp"
#include "icl/learn/learn.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/search/search.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icl::sja {

struct Prop1Setting {
  Prop1Setting(int d, int cov, int n);
  const int d, cov, n, dbar;  // dbar = d + 2
  const GaussianIclModel gm;
  const std::vector<Poly> u;  // sja_embedding_features(d, dbar)
  const FeatureMoments fm;    // model_feature_moments(gm, u)
  const Eigen::MatrixXd Psi;  // query_moment_matrix(gm, u)
  const PromptShape shape;    // sja_shape(d, dbar, n)
};

// "exactly optimal single layer", "GD-style sparse stack, depth L", "optimised full stack, depth L".
std::string prop1_model_name(int model);

// The search for the worst-case depth-L stack. The clipped SGD's settings: learning rate 0.01 (decay 0.4 every third
// of a refinement), batch 64 (quick) / 128, 30 / 60 steps per refinement, 2 continuation rounds, final refinement
// 2 x steps, held-out set 512 / 4096 prompts, all scaled by ctx.setting("search") (SearchBudget::scaled); streams
// ctx.purpose(label + "/held-out"), label + "/search k", label + "/starts".
struct StackSearch {
  Transformer stack;
  learn::TrainConfig config;
  learn::TrainResult shown;  // the winner's final refinement (its curve goes into the report)
  SearchResult search;
  Eigen::VectorXd theta;
  double best_test = INFINITY;  // the kept stack's held-out loss
};
StackSearch prop1_search_stack(const ClaimContext& ctx, const std::string& label, const Prop1Setting& s, int L);

// The stack a case judges (see above); the random starts of model 0's general single layer from the stream
// ctx.purpose(label + "/start").
struct Prop1Model {
  Transformer stack;
  std::optional<double> exact;
  std::optional<double> general_best;
  std::optional<StackSearch> search;
};
Prop1Model prop1_model(const ClaimContext& ctx, const std::string& label, const Prop1Setting& s, int model);

// The searches of a run's cases, for the report: the first search's training settings, and per depth the first
// case's kept run (its curve) and the smallest Monte Carlo loss relative to the bound (mc / bound - 1) over the cases.
struct Prop1SearchRuns {
  std::optional<learn::TrainConfig> training;
  std::map<int, double> best_by_depth;
  std::map<int, std::pair<std::string, learn::TrainResult>> shown;
  void add(const std::string& label, int depth, const StackSearch& s, double relative_gap);
  // res.extra["training"] (learn::training_json, its figure ctx.claim_id + ".training.svg") and res.files
  // ["training.svg"], the kept runs' curves by depth ("depth L (case label)"). Needs one search added.
  void write(const ClaimContext& ctx, ClaimResult& res) const;
  std::string best_by_depth_text() const;  // "depth 1: +0.12%, depth 2: +3.40%"
};

}  // namespace icl::sja
