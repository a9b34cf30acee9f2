// Lower bounds on what one feed-forward + linear-attention block can learn (sja Prop. 4, Remark 1,
// Cor. 9), computed at their worst case.
//
// Setting: an orthonormal set v_1..v_m (E[v_a v_b] = delta_ab), targets y = sum_m w_m g_m(x) with
// w ~ N(0, I). In the v basis the target's projection has coefficients wbar = B w, B[a, m] = E[v_a g_m],
// whose covariance is C = B B^T. A block whose feed-forward layer computes x -> xt (dbar features) is,
// by sja Prop. 11, no better than the best linear predictor on xt; projecting onto span{v},
//   L >= E_w min_beta E(y + beta^T xt)^2 >= E_w || (I - P2) wbar ||^2 = tr((I - P2) C),
// P2 the orthogonal projection onto the span of the columns of U[a, k] = E[v_a xt_k], of dimension
// dt = rank U. For features inside span{v} both inequalities are equalities in the limit n -> infinity
// (optimal attention converges to least squares on xt). Hence, over every kernel with projected
// dimension dt, the infimum of the loss (over kernels, attention weights and n) is
//   inf_{rank P2 = dt} tr((I - P2) C) = sum of the (m - dt) smallest eigenvalues of C
// (Ky Fan), attained in the limit by features spanning the top-dt eigenvectors of C.
#pragma once
#include "icl/model/gaussian_model.hpp"

#include <Eigen/Dense>
#include <vector>

namespace icl {

// Sum of the (m - rank) smallest eigenvalues of the symmetric PSD matrix C (0 if rank >= m).
double projection_infimum(const Eigen::MatrixXd& C, int rank);

// B[a, m] = E[v_a g_m] for the model's basis g and the orthonormal set v (polynomials in the d inputs),
// and C = B B^T, the covariance of the target's coefficients in the v basis (w ~ N(0, I)).
Eigen::MatrixXd projection_matrix_B(const GaussianIclModel& model, const std::vector<Poly>& v);
Eigen::MatrixXd coefficient_covariance(const GaussianIclModel& model, const std::vector<Poly>& v);

// U[a, k] = E[v_a xt_k] for features xt (polynomials in the d inputs); its rank is dt.
Eigen::MatrixXd feature_projection(const GaussianIclModel& model, const std::vector<Poly>& v,
                                   const std::vector<Poly>& features);
int numerical_rank(const Eigen::MatrixXd& U, double rel_tol = 1e-9);

// tr((I - P_U) C): the n -> infinity loss of optimal attention on features whose projection onto
// span{v} has columns U (equal to the limit loss when the features lie in span{v}).
double projected_residual(const Eigen::MatrixXd& C, const Eigen::MatrixXd& U);

}  // namespace icl
