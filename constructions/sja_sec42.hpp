// Sun, Jadbabaie, Azizan (000), Section 4.2, eqs. (11)-(12) and Fig. 2: dense versus sparse bilinear
// layers on the 10-term cubic over d = 4 variables,
//   f(x; w) = w0 + sum_i w_i x_i + w12 x1x2 + w23 x2x3 + w34 x3x4 + w123 x1x2x3 + w234 x2x3x4,
// with dbar = 15 (rows 1, x (4), scratch (10), y). A bilinear layer is sparse (12) when only its
// block W~ (scratch rows x columns (1, x)) is non-zero, dense (11) otherwise.
//
// Three stacks, each ending in one attention layer P = e e^T, Q = diag(Gamma, 0):
//  sparse_quadratic  one sparse layer writing the 10 quadratic monomials x_i x_j (i <= j) into the
//                    scratch: features = all 15 monomials of degree <= 2.
//  dense             sparse layer (x1x2, x2x3, x3x4), then a dense layer (C block non-zero) that
//                    multiplies scratch by x: x1x2 * x3, x2x3 * x4. Features = the 10 target monomials.
//  sparse_escape     sparse bilinear layers only, but the attention layers in between write into the
//                    x rows, which the next sparse layer reads: sparse layer (x1x2, x3x4, x2x3);
//                    attention x4 <- x4 + x1x2; zero bilinear layer; attention x1 <- x1 + x3x4; sparse
//                    layer (x1' x2, x4' x3) = (x1x2 + x2x3x4, x3x4 + x1x2x3). An attention layer with
//                    Q = e_ones e_s^T and P = e_r e_ones^T adds (1/n) sum_{j<=n} 1 * s(column) = s to
//                    row r of every column, exactly (the ones row averages to 1).
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/tasks.hpp"

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace icl::sja {

constexpr int kSec42D = 4;
constexpr int kSec42Width = 15;

PolynomialTask sec42_task();

enum class Sec42Stack { sparse_quadratic, dense, sparse_escape };
std::string to_string(Sec42Stack s);

// The layers before the final attention.
std::vector<layers::LayerPtr> sec42_feature_layers(Sec42Stack s);
// The 15 feature rows (1, x, scratch) of one column after those layers, as exact polynomials: bilinear
// layers through apply_symbolic with their real weights, the row-writing attention layers by the
// identity above (the Monte Carlo run through the real forward pass checks both).
std::vector<Polynomial<Rational>> sec42_features(Sec42Stack s);
// Whether every bilinear layer of the stack has the sparse form (12).
bool sec42_all_bilinear_sparse(Sec42Stack s);
// Feature layers, then attention P = e e^T, Q = diag(Gamma, 0).
Transformer sec42_stack(Sec42Stack s, const Eigen::MatrixXd& Gamma);
// True when the bilinear layer only has W~ non-zero (eq. (12)).
bool is_sparse_bilinear(const BilinearLayer& b, int d);

// The exact moments of the 15 monomials of degree <= 2 in x_1..x_4 with the cubic's label: their best predictor's loss
// (best_predictor_loss) is the floor no stack whose features stay of degree <= 2 goes below.
FeatureMoments sec42_degree2_moments();
// The largest feature degree `layers` random bilinear layers reach (Gaussian entries on the scratch rows: on the columns
// (1, x) that (12) allows where `sparse`, on every column otherwise; stream stable_hash("sec42 sparse" / "sec42 dense")).
int sec42_random_stack_degree(bool sparse, int layers, std::uint64_t seed);

}  // namespace icl::sja
