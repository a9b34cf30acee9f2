// Xing, Lin, Suh, Song, Cheng (004), Section 4 and Appendix A: attention on unstructured prompts E_2.
//
// Two-layer construction (Sec. 4.3, eqs. (4)-(5), App. A):
//   layer 1: softmax attention, W^K = W^Q = 0, W^V = I_{d+1} (and W_out = I): with the look-ahead mask,
//            token t becomes E_t + (1/t) sum_{k<=t} E_k (eq. (4));
//   layer 2: linear attention (phi = identity), (W^K)^T W^Q = [I_d / log D, 0; 0, 0], last row of
//            W_out W^V = (0, ..., 0, 1) (other rows 0);
//   claimed: yhat_q ~ x_q^T (sum_i (1/i - 1/(2D)) x_i x_i^T) theta / log D + eps / log D ~ y_q.
// The construction measured at one D (measure_twolayer) on Sec. 3's setting: x ~ N(0, I_d), theta ~ N(0, I_d / d),
// y = x^T theta.
// One-layer attention (Sec. 4.2): yhat_q = v^T E phi(E^T K e_q + M) with v the last row of W_out W^V.
#pragma once
#include "icl/layers/network.hpp"
#include "icl/model/softmax_attention.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/verdict/bound_checks.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <cstdint>

namespace icl::xlssc {

Network twolayer(int d, int D);  // two layers::SoftmaxAttention
// yhat of eq. (5) without the cross terms: x_q^T (sum_i (1/i - 1/(2D)) x_i x_i^T) theta / log D.
double eq5_main_term(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& theta);
// The slope E[m y_q] / E[y_q^2] of that main term m in expectation over the context: (H_D - 1/2) / log D, H_D the
// D-th harmonic number (summed 1/1 + ... + 1/D in that order).
double eq5_slope(int D);

// twolayer(d, D) through its real forward pass on unstructured prompts (embed_unstructured) of Sec. 3's setting,
// prompt i from PromptRng(plan.seed, purpose, i) (theta first, then X; y = theta^T X). Per prompt, with m =
// eq5_main_term: kLoss (yhat - y_q)^2, kExcess (yhat - y_q)^2 - y_q^2 (paired: below 0 iff yhat beats predicting 0),
// kY2 y_q^2, kCross yhat y_q, kEq5Loss (m - y_q)^2, kEps (yhat - m)^2.
enum TwoLayerComponent : int { kLoss = 0, kExcess, kY2, kCross, kEq5Loss, kEps, kTwoLayerComponents };
// Measured in looks of doubling size from 2048 prompts to max(plan.samples, 2048) (sequential_bound, plan.threads),
// the excess judged against 0 as an upper bound with no band (judge_mc_upper_bound) at alpha_case / looks, stopping
// at the first look of at least 8192 prompts that decides it.
struct TwoLayerAtD {
  int d = 0, D = 0;
  BoundOutcome excess;  // the excess's estimate and decision, the looks, and every component of the last look (total)
  Estimate loss;        // E(yhat - y_q)^2 at the same level as the excess
  double slope = 0;     // E[yhat y_q] / E[y_q^2]
  double eq5_main_loss = 0, eps_share = 0;  // E(m - y_q)^2, E(yhat - m)^2
  double slope_eq5 = 0;                     // eq5_slope(D)
  double loss_times_logD = 0;               // loss.mean * log D
  // The measurement as a report row: params as given, then loss, zero_predictor_loss (E[y_q^2] = 1),
  // excess_over_predicting_zero, vs_predicting_zero (the excess's decision), slope, slope_eq5, eq5_main_loss,
  // eps_share, loss_times_logD.
  nlohmann::ordered_json row(nlohmann::ordered_json params) const;
};
TwoLayerAtD measure_twolayer(const SamplingPlan& plan, double alpha_case, int d, int D, std::uint64_t purpose);
// One layer whose output row is v (V = e_last v^T) and score matrix K.
SoftmaxAttention onelayer(const Eigen::VectorXd& v, const Eigen::MatrixXd& K, SoftmaxAttention::Activation act);
// The family that beats the zero predictor with softmax (see claims/xlssc_onelayer.cpp): values
// alpha theta0^T x on the x tokens, scores -beta y_i theta0^T x_q on the y tokens, 0 elsewhere.
SoftmaxAttention onelayer_sign_probe(const Eigen::VectorXd& theta0, double alpha, double beta,
                                     SoftmaxAttention::Activation act);

}  // namespace icl::xlssc
