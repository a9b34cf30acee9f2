// Sun, Jadbabaie, Azizan (000), Theorem 7 / Theorem 13 and Appendix G: a 2L-layer bilinear
// Transformer with dbar = 2d + 1 that performs block-coordinate descent (9) on quadratic regression.
//
// Prompt (sja embedding, dbar = 2d+1): rows 1, x (d), scratch (d, zero on input), y.
// Bilinear layer l (App. G): W0 = [0; 0 W0~ 0], W1 = [0; 0 W1~ 0] (only the scratch rows, reading
//   the x rows), with W0~ = I_d and W1~ = E_1 for l = 1, -E_{(l-1)%d} + E_{l%d} otherwise; E_j is all
//   ones in column j, and a%b takes values in {1, ..., b}. So the scratch rows become x[l%d] * x.
// Attention layer l: P = e e^T, Q = diag(Gamma^(l), 0), Gamma^(l) in R^{dbar x dbar} arbitrary.
// Claimed: Z^(2l-1) = (1; x; x[l%d] x; y^(l-1)), Z^(2l) = (1; x; x[l%d] x; y^(l)), and the query
// entry of y^(l) is [1 x_q] W^(l) [1 x_q]^T with W^(l) the block-coordinate-descent iterates of (9) on
// blocks b_l = (1, x[1..d], x[1]x[l%d], ..., x[d]x[l%d]), W^(0) = 0, step eta^(l) = -Gamma^(l)^T.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/layers/network.hpp"

#include <Eigen/Dense>
#include <vector>

namespace icl::sja {

int appG_width(int d);                   // 2d + 1
int appG_mod(int l, int d);              // l % d with values in {1, ..., d} (the paper's remainder)
BilinearLayer appG_bilinear(int d, int l);                          // l = 1, 2, ...
LinearSelfAttention appG_attention(const Eigen::MatrixXd& Gamma);   // P = e e^T, Q = diag(Gamma, 0)
// Layers bilinear(1), attention(Gamma[0]), bilinear(2), attention(Gamma[1]), ...
Transformer appG_stack(int d, const std::vector<Eigen::MatrixXd>& Gammas);
// The monomials of block b_l in the order of the rows they occupy: 1, x_1..x_d, x_1 x_j..x_d x_j.
std::vector<Exponent> appG_block(int d, int l);

}  // namespace icl::sja
