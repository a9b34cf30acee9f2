// Ahn, Cheng, Daneshmand, Sra (002): the trainable forms the paper trains, as Parameterisations
// (lib/icl/model/parameters.hpp), and their exact population loss. Group names are "<matrix>_<layer>" with the layer
// counted from 0 as acds does (A_0, B_1, ...). In namespace icl::learn beside the library's generic forms
// (learn/forms.hpp: full_lsa, softmax_stack); paper-specific, so here among the constructions.
//
//   acds_form8   eq. (8): L masked LSA layers on acds prompts (d+1 rows), P_i = [0, 0; 0, 1] frozen,
//                Q_i = -[A_i, 0; 0, 0]; trains A_i (d x d; symmetric when asked, Thm. 2).
//   acds_form8_diagonal  eq. (8) with A_i diagonal: one span group per layer, basis E_00, ..., E_{d-1,d-1} (Thm. 2's
//                diagonal pairs).
//   acds_form11  eq. (11): also P_i = [B_i, 0; 0, 1], B_i trained.
//   acds_family  (8) or (11) restricted to A_i = a_i M (e.g. M = Sigma^-1), B_i = b_i I: one scalar per matrix (the
//                families of Thms. 3 and 4).
#pragma once
#include "icl/model/parameters.hpp"

namespace icl {
class AcdsPopulation;

// Sec. 4.3's covariance Sigma = U^T D U with D = diag(1, 1, 0.25, 0.0625, 1) (d = 5 only), U orthogonal.
Eigen::MatrixXd acds_paper_sigma(const Eigen::MatrixXd& U);
}

namespace icl::learn {

Parameterisation acds_form8(int d, int L, bool symmetric = false);
Parameterisation acds_form8_diagonal(int d, int L);
Parameterisation acds_form11(int d, int L);
Parameterisation acds_family(int d, int L, const Eigen::MatrixXd& M, bool with_B);

// The exact population loss (exact/acds_population.hpp) of an acds form ((8), (11), symmetric, or a family)
// at theta, and with grad != nullptr its gradient in theta: the population gradients of A_l, B_l pulled back
// through the groups' patterns (groups named "A_l" for l < L must exist; missing "B_l" count as B_l = 0).
// The population's d and L must match the form's; its sign convention (Q = -[A, 0; 0, 0]) is the forms'.
double acds_exact_loss(const AcdsPopulation& pop, const Parameterisation& p, const Eigen::Ref<const Eigen::VectorXd>& theta,
                       Eigen::VectorXd* grad = nullptr);

}  // namespace icl::learn
