// Xing, Lin, Suh, Song, Cheng (004), Section 4 and Appendix A: attention on unstructured prompts E_2.
//
// Two-layer construction (Sec. 4.3, eqs. (4)-(5), App. A):
//   layer 1: softmax attention, W^K = W^Q = 0, W^V = I_{d+1} (and W_out = I): with the look-ahead mask,
//            token t becomes E_t + (1/t) sum_{k<=t} E_k (eq. (4));
//   layer 2: linear attention (phi = identity), (W^K)^T W^Q = [I_d / log D, 0; 0, 0], last row of
//            W_out W^V = (0, ..., 0, 1) (other rows 0);
//   claimed: yhat_q ~ x_q^T (sum_i (1/i - 1/(2D)) x_i x_i^T) theta / log D + eps / log D ~ y_q.
// One-layer attention (Sec. 4.2): yhat_q = v^T E phi(E^T K e_q + M) with v the last row of W_out W^V.
#pragma once
#include "icl/layers/network.hpp"
#include "icl/model/softmax_attention.hpp"

#include <Eigen/Dense>

namespace icl::xlssc {

Network twolayer(int d, int D);  // two layers::SoftmaxAttention
// yhat of eq. (5) without the cross terms: x_q^T (sum_i (1/i - 1/(2D)) x_i x_i^T) theta / log D.
double eq5_main_term(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& theta);
// One layer whose output row is v (V = e_last v^T) and score matrix K.
SoftmaxAttention onelayer(const Eigen::VectorXd& v, const Eigen::MatrixXd& K, SoftmaxAttention::Activation act);
// The family that beats the zero predictor with softmax (see claims/xlssc_onelayer.cpp): values
// alpha theta0^T x on the x tokens, scores -beta y_i theta0^T x_q on the y tokens, 0 elsewhere.
SoftmaxAttention onelayer_sign_probe(const Eigen::VectorXd& theta0, double alpha, double beta,
                                     SoftmaxAttention::Activation act);

}  // namespace icl::xlssc
