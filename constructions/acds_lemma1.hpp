// Ahn, Cheng, Daneshmand, Sra (002), Section 4, eq. (8) and Lemma 1: an L-layer linear Transformer
// whose layers all have the sparse form
//     P_l = [0_{d x d} 0; 0 1],   Q_l = -[A_l 0; 0 0],   A_l in R^{d x d} arbitrary,
// on the acds prompt (rows x (d), y; query column (x_q, 0)), with the masked attention
// Z <- Z + (1/n) P Z M (Z^T Q Z). Lemma 1 states that the query entry of the l-th layer output is
// -<x_q, w_gd^l>, where w_gd^0 = 0 and w_gd^{l+1} = w_gd^l - A_l grad R(w_gd^l),
// R(w) = (1/2n) sum_i (w^T x_i - w_*^T x_i)^2.
#pragma once
#include "icl/layers/network.hpp"

#include <Eigen/Dense>
#include <vector>

namespace icl::acds {

LinearSelfAttention sparse_layer(const Eigen::MatrixXd& A);          // eq. (8) with A_l = A
Transformer sparse_stack(const std::vector<Eigen::MatrixXd>& A);     // layers A_0, ..., A_{L-1}

}  // namespace icl::acds
