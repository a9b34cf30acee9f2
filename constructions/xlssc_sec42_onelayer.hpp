// Xing, Lin, Suh, Song, Cheng (004), Sec. 4.2: one-layer attention yhat_q = v^T E phi(E^T K e_q + M) (xlssc_sec4.hpp
// onelayer) on unstructured prompts E_2 under the symmetric law theta = s theta0 with a fair sign s, x ~ N(0, I),
// y = x^T theta, the look-ahead mask: the prompt, the evenness of the prediction in theta, the best scaled candidates
// for a linear phi, and the worst-case search over softmax weights (the best prediction over weights at one D).
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/softmax_attention.hpp"
#include "icl/montecarlo/worst_case.hpp"
#include "icl/search/search.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace icl::xlssc {

// One prompt's storage: X (d x (D+1)), Z the E_2 prompt (d+1 x 2D+1), y = x^T theta, yq = y at the query.
struct OneLayerPrompt {
  Eigen::MatrixXd X, Z;
  Eigen::RowVectorXd y;
  double yq = 0;
};
OneLayerPrompt onelayer_prompt(int d, int D);  // sized for (d, D)
// Draws x ~ N(0, I), theta = s theta0 with a fair sign s (from rng, the sign first), y = x^T theta; Z the E_2 prompt.
void draw_sign_prompt(PromptRng& rng, const Eigen::VectorXd& theta0, int D, OneLayerPrompt& p);
// The layer's prediction at the query of Z (Z left as it was).
double predict_query(const SoftmaxAttention& layer, Eigen::MatrixXd& Z);

// Evenness in theta for random weights: per prompt i (stream purpose ^ 0x5157) a layer with v, K ~ N(0, 1) (K scaled
// by 1/sqrt(d+1)) and the relative gap |yhat(theta0) - yhat(-theta0)| / (|yhat(theta0)| + |yhat(-theta0)|); the worst
// over max(samples / 16, 256) prompts.
WorstCase evenness_worst(const ClaimContext& ctx, int d, int D, SoftmaxAttention::Activation act,
                         const Eigen::VectorXd& theta0, std::uint64_t purpose);

// The worst-case search over one-layer softmax attention (V, K full, the look-ahead mask: learn::softmax_stack) for
// the weights that predict best at one (d, D), under the symmetric law (theta0 given) or the Gaussian law theta ~
// N(0, I/d) (theta0 empty): it maximises the gain E[y_q^2] - loss = 1 - loss (E[y_q^2] = 1 under both laws) on
// select_n held-out prompts (the same for every candidate: a paired comparison), from structured starts (sign probes,
// the near-tie family, the denominator families) and the budget's random ones, refining by Adam on fresh prompts with
// K's steps relative to its scale above |K| = 200, continuing in the scores' scale (the inverse temperature).
// Streams: ctx.purpose(tag + "/select"), "/starts", "/refine/k". `chosen` is the best layer (the first structured
// start where every path diverged, its best_start saying so).
struct SoftSearch {
  SearchResult search;
  SoftmaxAttention chosen;
};
SoftSearch search_softmax(const ClaimContext& ctx, int d, int D, const Eigen::VectorXd& theta0, const SearchBudget& budget,
                          const std::string& tag, std::uint64_t select_n);

// The weights a case tests, and how they were chosen.
struct Chosen {
  SoftmaxAttention layer;
  std::string what;
  double best_train = NAN, best_alpha = NAN;
  std::optional<SoftSearch> found;
};
// Linear phi: 6 sign probes (beta 0.25..8) and 12 random layers, each with its best scale alpha* = E[g y_q] / E[g^2]
// in closed form on a training stream (stream purpose ^ 0x7124, max(samples / 4, 2048) prompts); the best by
// training loss, scaled.
Chosen fit_linear_candidates(const ClaimContext& ctx, int d, int D, SoftmaxAttention::Activation act,
                             const Eigen::VectorXd& theta0, std::uint64_t purpose);

}  // namespace icl::xlssc
