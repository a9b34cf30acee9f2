// The trainable forms the papers train, as Parameterisations (learn/parameters.hpp). Group names are
// "<matrix>_<layer>" with the layer counted from 0 as acds does (A_0, B_1, P_2, W0_3, ...).
//
//   acds_form8   acds (002) eq. (8): L masked LSA layers on acds prompts (d+1 rows), P_i = [0, 0; 0, 1]
//                frozen, Q_i = -[A_i, 0; 0, 0]; trains A_i (d x d; symmetric when asked, acds Thm. 2).
//   acds_form11  eq. (11): also P_i = [B_i, 0; 0, 1], B_i trained.
//   acds_family  (8) or (11) restricted to A_i = a_i M (e.g. M = Sigma^-1), B_i = b_i I: one scalar per
//                matrix (the families of acds Thms. 3 and 4).
//   full_lsa     every entry of every P_i and Q_i (sja's linear Transformer, zfb's layer, acds Theorem 1).
//   sja_bilinear sja (000) Sec. 2.2: 2L layers, bilinear then attention, on sja prompts (dbar+1 rows);
//                attention P, Q full; bilinear W0, W1 dense (eq. (11): every entry) or sparse (eq. (12):
//                only W~, rows d+1..dbar-1 and columns 0..d, the rest frozen at 0).
//   softmax_stack L softmax (or linear-phi) attention layers on unstructured prompts (d+1 rows), V and K full.
#pragma once
#include "icl/learn/parameters.hpp"

namespace icl::learn {

Parameterisation acds_form8(int d, int L, bool symmetric = false);
Parameterisation acds_form11(int d, int L);
Parameterisation acds_family(int d, int L, const Eigen::MatrixXd& M, bool with_B);
Parameterisation full_lsa(int rows, int L, bool masked = true);
enum class BilinearForm { dense, sparse };
Parameterisation sja_bilinear(int d, int dbar, int L, BilinearForm form);
Parameterisation softmax_stack(int d, int L, SoftmaxAttention::Activation act = SoftmaxAttention::Activation::softmax,
                               bool causal = true);

}  // namespace icl::learn

namespace icl {
class AcdsPopulation;
}

namespace icl::learn {

// The exact population loss (exact/acds_population.hpp) of an acds form ((8), (11), symmetric, or a family)
// at theta, and with grad != nullptr its gradient in theta: the population gradients of A_l, B_l pulled back
// through the groups' patterns (groups named "A_l" for l < L must exist; missing "B_l" count as B_l = 0).
// The population's d and L must match the form's; its sign convention (Q = -[A, 0; 0, 0]) is the forms'.
double acds_exact_loss(const AcdsPopulation& pop, const Parameterisation& p, const Eigen::Ref<const Eigen::VectorXd>& theta,
                       Eigen::VectorXd* grad = nullptr);

}  // namespace icl::learn
