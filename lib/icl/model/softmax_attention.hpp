// Attention on unstructured prompts (xlssc, Xing, Lin, Suh, Song, Cheng (004), Sec. 3).
//
// Prompt E_2 in R^{(d+1) x (2D+1)}: tokens (x_1, 0), (0, y_1), ..., (x_D, 0), (0, y_D), (x_q, 0); x_i and
// y_i sit in separate tokens. A layer (eqs. (1), (3), single head, with the look-ahead mask):
//     Z <- Z + V Z phi(Z^T K Z + M),   V = W_out W^V,  K = (W^K)^T W^Q,
// phi the column-wise softmax (or the identity: "linear"), M_ij = 0 for i <= j and -infinity for
// i > j, so token j attends to tokens 1..j only; for the linear phi the masked entries are 0. Without
// the mask every token attends to all. The prediction is the last entry of the query column. A stack of such
// layers is a Network (layers/network.hpp) of layers::SoftmaxAttention.
//
// Column j's output needs only its own scores, so the layer costs O(N^2 (d+1)) for all N columns, or
// O(N (d+1)) for the last column alone (enough for the last layer of a stack). When every score of a
// column is equal (K = 0), its softmax is exactly uniform over the visible tokens and the layer uses
// running sums (O(N (d+1)) for all columns); tests check the two paths agree.
#pragma once
#include "icl/layers/softmax_attention.hpp"

#include <Eigen/Dense>

namespace icl {

// X: d x (D+1) (the last column is x_q), y: the D labels.
void embed_unstructured(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::RowVectorXd>& y,
                        Eigen::Ref<Eigen::MatrixXd> Z);
inline double unstructured_prediction(const Eigen::Ref<const Eigen::MatrixXd>& Z) {
  return Z(Z.rows() - 1, Z.cols() - 1);
}

}  // namespace icl
