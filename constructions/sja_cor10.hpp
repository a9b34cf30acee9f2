// Sun, Jadbabaie, Azizan (000), Corollary 10 (Appendix A): a deep Transformer with dbar = d + h + 1
// (rows 1, x (d), hidden (h), y) whose feed-forward layers are those of a given feature network and
// whose attention layers are P = e e^T, Q = diag(Gamma^(l), 0). Claimed: yhat^(l) = f(x_q; w^(l)) with
// w^(l) the iterates of block-coordinate descent (9) whose l-th block is the network's l-th
// intermediate activation (1, x, h^(l)(x)).
//
// The feature network here is any stack of bilinear layers that write only the hidden rows:
//   h^(l) = h^(l-1) + (A0_l [1; x; h^(l-1)]) .* (A1_l [1; x; h^(l-1)]),   A0_l, A1_l in R^{h x (1+d+h)},
// i.e. a BilinearLayer with W = [0; A] (the first d+1 rows zero, so 1 and x stay in the residual stream).
#pragma once
#include "icl/layers/network.hpp"

#include <Eigen/Dense>
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

}  // namespace icl::sja
