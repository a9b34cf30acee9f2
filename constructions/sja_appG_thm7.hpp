// Sun, Jadbabaie, Azizan (000), Theorem 7 (Sec. 4.1) / Theorem 13 (Appendix G), the check of one prompt: the App. G
// stack (sja_appG.hpp) after every layer against the rows the appendix states and against block-coordinate descent
// (9) over all C(d+2,2) quadratic monomials in long double (sja_bcd_reference.hpp); and two findings beside it, the
// stack's loss after each block (what depth buys) and a trained sparse stack against the iterates.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/claim/claim.hpp"
#include "icl/learn/learn.hpp"
#include "icl/model/tasks.hpp"
#include "icl/montecarlo/worst_case.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace icl::sja {

// A case's setting: the monomials of degree <= 2, the blocks b_l (l = 1..d, as indices into them), the inverse
// second-moment matrices E[xbar_b xbar_b^T]^{-1} of the blocks (exact Gaussian moments) and the quadratic task.
struct AppGSetup {
  int d = 1, n = 1, L = 1;
  std::vector<Exponent> monomials;               // all of degree <= 2
  std::vector<std::vector<int>> blocks;          // b_l as indices into `monomials`, l = 1..d (cycle)
  std::vector<Eigen::MatrixXd> lambda_inv;       // E[xbar_b xbar_b^T]^{-1} for l = 1..d
  PolynomialTask task;
};
AppGSetup appG_setup(int d, int n, int L);

// The four families of prompts that cycle with the prompt index (i % 4), by name:
//   0  random non-symmetric Gamma^(l) (entries N(0, 1/(4 dbar^2))), x ~ N(0, I);
//   1  Gamma^(l) = -E[xbar_b xbar_b^T]^{-1} for the block's features, x ~ N(0, I);
//   2  x ~ N(0, 1e6 I) with the matching Gamma^(l) for that scale;
//   3  x ~ N(0, 900 I) with the random Gamma^(l) of family 0 (iterates grow geometrically).
const char* appG_family_name(int family);

// One prompt (stream purpose, index i; labels quadratic with N(0, 1) coefficients) through the 2L-layer stack. The
// errors (err[k], the worst over the layers and columns):
//   kTopRows     rows 1 and x against the inputs (relative to max(1, max |x|));
//   kScratch     the scratch rows: x[l%d] x after bilinear layer l (relative to |x_r| max_k |x_k|), unchanged by
//                attention;
//   kLabelCarry  the label row's change in a bilinear layer (absolute; it is carried unchanged);
//   kStated      the label row after attention layer l against y_i + f(x_i; W^(l)) of the reference, relative to
//                each entry's absolute terms;
//   kQueryPlain  the final prediction against f(x_q; W^(L)), relative to |f(x_q; W^(L))|;
//   kMatrixForm  [1 x_q] W^(l) [1 x_q]^T in double (W^(l) from the double iterate) against the query entry;
//   kRefSelf     the double reference against the long double one (the rounding floor);
//   kNegative    the label rows against descent with eta = -Gamma (no transpose): the slip the check must see.
// out_of_range: the exact descent leaves the double range (kDoubleRangeTerm); then nothing is measured.
struct AppGPrompt {
  enum Error : int { kTopRows = 0, kScratch, kLabelCarry, kStated, kQueryPlain, kMatrixForm, kRefSelf, kNegative, kDims };
  std::array<double, kDims> err{};
  double forward = 0, reference = 0;  // the forward pass's prediction, f(x_q; W^(L))
  int family = 0;
  bool out_of_range = false;
  Eigen::MatrixXd W_final;  // W^(L)
};
AppGPrompt appG_check_prompt(const AppGSetup& s, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i);

// What depth buys (a finding): Monte Carlo loss E(yhat^(l) + y_q)^2 of the App. G stack after each block l, with
// Gamma^(l) = -E[xbar_b xbar_b^T]^{-1} (exact moments), for quadratic targets, beside OLS over all C(d+2,2) monomials
// on the same prompts (0 up to rounding for noiseless targets and n >= C(d+2,2)), and the exact loss of the first
// block (sparse_lsa_loss) as a check on the Monte Carlo. Stream ctx.purpose("depth d=D n=N").
nlohmann::ordered_json appG_depth_table(const ClaimContext& ctx, int d, int n, int blocks, std::uint64_t prompts);

// Learned vs constructed (a finding): a 2L-layer bilinear stack (sparse form (12), dbar = 2d+1) trained with Adam
// (lr 0.01, decayed x0.3 every third of the run; 400 steps of 512 prompts, --quick 60 of 128; entries N(0, 0.1^2))
// on the quadratic task, its first 2l layers' query predictions compared on 2048 fresh prompts (--quick 256) with l
// steps of block-coordinate descent (9) (blocks b_l of App. G, eta^(l) = E[xbar_b xbar_b^T]^{-1}, W^(0) = 0).
// json: the settings and, per block, the mean squared distance (with its standard error), the relative distance,
// both losses; line: the same per block in words.
struct AppGTrainedStack {
  learn::TrainConfig config;
  learn::TrainResult result;
  nlohmann::ordered_json json;
  std::string line;
};
AppGTrainedStack appG_trained_stack(const ClaimContext& ctx, int d, int n, int L);

}  // namespace icl::sja
