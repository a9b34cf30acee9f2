// Sun, Jadbabaie, Azizan (000), Corollary 10 (Appendix A): a deep Transformer with dbar = d + h + 1
// (rows 1, x (d), hidden (h), y) whose feed-forward layers are those of a given feature network and
// whose attention layers are P = e e^T, Q = diag(Gamma^(l), 0). Claimed: yhat^(l) = f(x_q; w^(l)) with
// w^(l) the iterates of block-coordinate descent (9) whose l-th block is the network's l-th
// intermediate activation (1, x, h^(l)(x)).
//
// The feature network here is any stack of bilinear layers that write only the hidden rows:
//   h^(l) = h^(l-1) + (A0_l [1; x; h^(l-1)]) .* (A1_l [1; x; h^(l-1)]),   A0_l, A1_l in R^{h x (1+d+h)},
// i.e. a BilinearLayer with W = [0; A] (the first d+1 rows zero, so 1 and x stay in the residual stream).
//
// The corollary checked (cor10_setup, cor10_check_prompt): per case a feature network drawn at random, its
// activations derived independently as exact polynomials (exact/symbolic_forward.hpp, not the matrix forward pass),
// and prompts run through the stack against block-coordinate descent in long double (sja_bcd_reference.hpp) on
// L(w) = (1/2n) sum (f(x_i; w) + y_i)^2, f(x; w) = sum_l w_l^T (1, x, h^(l)(x)) (one coefficient block per layer),
// block l = layer l's activation, eta^(l) = -Gamma^(l)^T.
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/exact/symbolic_forward.hpp"
#include "icl/layers/network.hpp"
#include "icl/montecarlo/worst_case.hpp"

#include <Eigen/Dense>

#include <array>
#include <cstdint>
#include <vector>

namespace icl::sja {

struct FeatureNetwork {
  int d = 1, h = 1;
  std::vector<Eigen::MatrixXd> A0, A1;  // per layer, h x (1 + d + h)
  int width() const { return d + h + 1; }
  BilinearLayer layer(std::size_t l) const;  // W0 = [0; A0_l], W1 = [0; A1_l]
};

// bilinear(1), attention(Gamma[0]), bilinear(2), attention(Gamma[1]), ...
Transformer cor10_stack(const FeatureNetwork& net, const std::vector<Eigen::MatrixXd>& Gammas);

// A case's setting: the network (L layers; A0_l, A1_l with N(0, 1/(4 (1+d+h))) entries from stream
// purpose ^ 0xc0f10), each layer's activation rows (1, x, h^(l)) as polynomials and with |coefficients| (a scale
// that cannot cancel), the largest degree among them, and per layer -(Lambda_l + r I)^{-1}: Lambda_l = E[u_l u_l^T]
// of layer l's activation u_l estimated from 4096 fixed inputs (stream purpose ^ 0x1a3bd), ridge
// r = 1e-3 tr(Lambda_l) / (d + h + 1).
struct Cor10Setup {
  int d, h, L, n, w;  // w = d + h + 1
  FeatureNetwork net;
  std::vector<std::vector<Polynomial<double>>> act, act_abs;  // per layer: the width rows, and |coefficients|
  std::vector<Eigen::MatrixXd> neg_lambda_inv;                 // -(Lambda_l + r I)^{-1}
  int degree = 0;
};
Cor10Setup cor10_setup(int d, int h, int L, int n, std::uint64_t seed, std::uint64_t purpose);

// One prompt (stream purpose, index i) through the stack against the reference. Gamma^(l) alternates between
// -(Lambda_l + r I)^{-1} (even i) and a random non-symmetric matrix of the same scale (odd i); labels y = the
// activations with N(0, 1) weights (scaled by 1/sqrt(L w)) plus N(0, 1) noise. Every intermediate output is
// compared; the errors (err[k], the worst over the layers):
//   kLabels      label row after each attention layer vs y_i + f(x_i; w^(l)), relative to each entry's absolute terms;
//   kHidden      hidden rows after each bilinear layer vs the polynomials h^(l)(x), relative to their absolute terms;
//   kTop         absolute change of the rows 1 and x, of the label row in a bilinear layer and of the hidden rows
//                in an attention layer (all carried unchanged);
//   kQueryPlain  the final prediction vs f(x_q; w^(L)), relative to |f(x_q; w^(L))|;
//   kRefSelf     the double reference's own label rows vs the long double one (the rounding floor).
// out_of_range: the exact descent leaves the double range (kDoubleRangeTerm); then nothing is measured.
struct Cor10Prompt {
  enum Error : int { kLabels = 0, kHidden, kTop, kQueryPlain, kRefSelf, kDims };
  std::array<double, kDims> err{};
  double forward = 0, reference = 0;  // the forward pass's prediction, f(x_q; w^(L))
  bool out_of_range = false;
};
Cor10Prompt cor10_check_prompt(const Cor10Setup& s, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i);

// A case's quantities, in this order: stated (the reference's f(x_q; w^(L))) and exact (the forward pass's prediction)
// at the prompt `at` (the worst label prompt), max_rel_error (kLabels), max_hidden_error (kHidden),
// max_carried_row_change (kTop), max_rel_error_query (kQueryPlain), reference_self_error (kRefSelf), feature_degree,
// prompts and prompts_out_of_double_range.
void cor10_quantities(CaseJson& j, const Cor10Setup& s, const WorstCase& wc, const Cor10Prompt& at);

// A case checked: its setting (cor10_setup from the case's d, h, L, n, stream ctx.purpose(label)), the worst of each
// error over max(ctx.samples, 2) prompts (montecarlo/worst_case.hpp, on ctx.threads) and its quantities written into j
// (cor10_quantities at the worst label prompt). Returns the worst errors.
WorstCase cor10_check_case(const ClaimContext& ctx, const Case& c, CaseJson& j);

}  // namespace icl::sja
