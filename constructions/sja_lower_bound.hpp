// Explicit bilinear layers (sja eq. (3), on the sja embedding: rows 1, x_1..x_d, zeros) that realise
// chosen feature spans, used to test the lower bounds of sja Prop. 4, Remark 1 and Cor. 9 at their
// worst case. Embedding columns: 0 is the row of ones, j = 1..d is x_j. A row r of the output is
// base_r + (W0 base)_r (W1 base)_r: base_r (1, x_j or 0) plus a product of two affine forms.
//
// The quadratic task in the orthonormal basis v of Lemma 3 (v00 = 1, v0j = x_j, vjj = (x_j^2 - 1)/sqrt2,
// vij = x_i x_j) has coefficients wbar00 = w00 + sum_j wjj, wbar0j = w0j, wbarjj = sqrt2 wjj, wbarij = wij,
// so C = Cov(wbar) is: on (v00, v11..vdd) the block [[d+1, sqrt2 1^T], [sqrt2 1, 2 I]], identity elsewhere.
// Its eigenvalues: lam+- = (d + 3 +- sqrt((d+3)^2 - 8)) / 2 on span{v00, sum_j vjj}, 2 on the differences
// vii - vjj (d - 1 of them), and 1 on every x_j and x_i x_j (n1 = d(d+1)/2 of them). lam- < 1.
#pragma once
#include "icl/model/gaussian_model.hpp"
#include "icl/layers/network.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace icl::sja {

// The v_ij of (8) as double polynomials in d variables, in the order of orthonormal_features(d).
std::vector<Poly> orthonormal_v(int d);

struct BilinearConstruction {
  BilinearLayer layer;
  int dbar = 0;
  std::string description;
};

double lambda_minus(int d);  // (d + 3 - sqrt((d+3)^2 - 8)) / 2
double lambda_plus(int d);
// The eigenvalues of Cov(wbar) for the quadratic task in the v basis (App. E corrected), in increasing order:
// lam-, 1 (d(d+1)/2 times), 2 (d - 1 times), lam+.
std::vector<double> coefficient_eigenvalues(int d);

// For the quadratic task: features spanning the complement of the k smallest eigen-directions of C,
// i.e. exactly the top (m - k) eigenspace (its limit loss is the infimum over every kernel of projected
// dimension m - k), for 1 <= k <= 1 + d(d+1)/2: e+ (row 0: 1 + (a0 + x1)(b0 + c' x1)), the d - 1 differences
// (rows 2..d: x_j + (x1 - xj)(x1 + xj + 1) = x1^2 - xj^2 + x1, which needs x1 kept; extra rows when it is
// not), and the first n1 + 1 - k of x_1..x_d, x_i x_j. Width dbar = m - k when x_1 is kept (Remark 1).
// For k > 1 + d(d+1)/2 (where the stated bound is not violated) the layer keeps e+ and the first
// (m - k - 1) differences (not then the optimal span); for k = m it outputs zeros.
BilinearConstruction quadratic_exclusion_layer(int d, int k);

// A layer whose features are exactly the listed v's (indices into orthonormal_v(d)).
BilinearConstruction orthonormal_subset_layer(int d, const std::vector<int>& keep);

// Cor. 9's setting: orthonormal features g_1..g_m under N(0, sigma), and a bilinear layer whose kernel projects onto
// dt of them. basis 0: g = the first m v_ij of Lemma 3 under N(0, I), the layer keeps v_1..v_dt and, where m is less
// than C(d+2,2), one feature orthogonal to span{g}; basis 1: g = the first m monomials (1, x_1..x_d, x_1^2, x_1 x_2,
// ...) Gram-Schmidt orthonormalised under the rotated N(0, sigma) of test_covariance(d, 2), the layer's features the
// first dt monomials.
struct OrthonormalFamily {
  Eigen::MatrixXd sigma;
  std::vector<Poly> g;
  BilinearLayer layer;
  std::string description;
};
OrthonormalFamily orthonormal_family(int d, int m, int dt, int basis);

// The block "bilinear layer, then its exactly optimal sparse attention" on the sja embedding at context length n,
// exactly: the layer's features, their projection onto span{v} (rank: the projected dimension), the n -> infinity
// loss tr((I - P_U) C) (features inside span{v}), the optimal Gamma at n and the loss there.
struct BlockExact {
  int dbar = 0, projected_dim = 0;
  std::vector<Poly> features;
  double limit = 0;       // tr((I - P_U) C): the n -> infinity loss
  double exact_loss = 0;  // the loss at n with the optimal Gamma
  Eigen::MatrixXd gamma;
};
BlockExact block_exact(const GaussianIclModel& model, const std::vector<Poly>& v, const Eigen::MatrixXd& C,
                       const BilinearLayer& layer, int d, int n);

// Sanity check on a family of bilinear layers: the best n -> infinity loss (exact) of 20 random layers of width dbar
// (entries N(0, 1) from the stream (seed, purpose)); layers of projected rank above max_rank (if >= 0) are skipped,
// since they are outside the family.
double random_bilinear_best_limit(std::uint64_t seed, std::uint64_t purpose, const GaussianIclModel& model,
                                  const std::vector<Poly>& v, const Eigen::MatrixXd& C, int d, int dbar, int max_rank = -1);

// The layer's weights W0, W1 for a report.
nlohmann::ordered_json layer_json(const BilinearLayer& layer);

}  // namespace icl::sja
