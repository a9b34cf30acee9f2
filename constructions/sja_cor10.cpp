#include "constructions/sja_cor10.hpp"

#include "icl/verdict/mutation.hpp"

#include "constructions/sja_appG.hpp"

#include <stdexcept>

namespace icl::sja {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kW0{"sja.cor10/W0", "sja.cor10", "the feature-network bilinear layers, W0", true};
const MutationSite kW1{"sja.cor10/W1", "sja.cor10", "the feature-network bilinear layers, W1", true};
}  // namespace

BilinearLayer FeatureNetwork::layer(std::size_t l) const {
  const int w = width();
  if (A0.at(l).rows() != h || A0.at(l).cols() != w || A1.at(l).rows() != h || A1.at(l).cols() != w)
    throw std::invalid_argument("FeatureNetwork: A0, A1 must be h x (1 + d + h)");
  BilinearLayer b;
  b.W0 = Eigen::MatrixXd::Zero(w, w);
  b.W1 = Eigen::MatrixXd::Zero(w, w);
  b.W0.bottomRows(h) = A0[l];
  b.W1.bottomRows(h) = A1[l];
  b.W0 = kW0(b.W0);
  b.W1 = kW1(b.W1);
  return b;
}

Transformer cor10_stack(const FeatureNetwork& net, const std::vector<Eigen::MatrixXd>& Gammas) {
  if (Gammas.size() != net.A0.size()) throw std::invalid_argument("cor10_stack: one Gamma per network layer");
  Transformer t;
  for (std::size_t l = 0; l < Gammas.size(); ++l) {
    t.layers.emplace_back(net.layer(l));
    t.layers.emplace_back(appG_attention(Gammas[l]));
  }
  return t;
}

}  // namespace icl::sja
