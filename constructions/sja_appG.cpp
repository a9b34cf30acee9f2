#include "constructions/sja_appG.hpp"

#include "icl/verdict/mutation.hpp"

#include "constructions/sja_appC.hpp"

#include <stdexcept>

namespace icl::sja {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kW0{"sja.appG/W0", "sja.thm7,sja.cor8", "W~0 = I_d of App. G", true};
const MutationSite kW1{"sja.appG/W1", "sja.thm7,sja.cor8", "W~1 = E_1, then -E_{(l-1)%d} + E_{l%d}", true};
}  // namespace

int appG_width(int d) { return 2 * d + 1; }
int appG_mod(int l, int d) { return (l - 1) % d + 1; }

BilinearLayer appG_bilinear(int d, int l) {
  if (d < 1 || l < 1) throw std::invalid_argument("appG_bilinear: need d >= 1, l >= 1");
  const int dbar = appG_width(d);
  // W~ occupies rows d+1..2d (0-based; the scratch rows) and columns 1..d (the x rows).
  Eigen::MatrixXd W0t = Eigen::MatrixXd::Identity(d, d);
  Eigen::MatrixXd W1t = Eigen::MatrixXd::Zero(d, d);
  if (l == 1) {
    W1t.col(0).setOnes();  // E_1
  } else {
    W1t.col(appG_mod(l - 1, d) - 1).array() -= 1.0;  // -E_{(l-1)%d}
    W1t.col(appG_mod(l, d) - 1).array() += 1.0;      // +E_{l%d}
  }
  BilinearLayer b;
  b.W0 = Eigen::MatrixXd::Zero(dbar, dbar);
  b.W1 = Eigen::MatrixXd::Zero(dbar, dbar);
  b.W0.block(d + 1, 1, d, d) = kW0(W0t);
  b.W1.block(d + 1, 1, d, d) = kW1(W1t);
  return b;
}

// App. G uses the same sparse attention as App. C: P = e e^T, Q = diag(Gamma, 0).
LinearSelfAttention appG_attention(const Eigen::MatrixXd& Gamma) { return sparse_attention(Gamma); }

Transformer appG_stack(int d, const std::vector<Eigen::MatrixXd>& Gammas) {
  Transformer t;
  const int dbar = appG_width(d);
  for (std::size_t k = 0; k < Gammas.size(); ++k) {
    if (Gammas[k].rows() != dbar || Gammas[k].cols() != dbar)
      throw std::invalid_argument("appG_stack: Gamma must be (2d+1) x (2d+1)");
    t.layers.emplace_back(appG_bilinear(d, static_cast<int>(k) + 1));
    t.layers.emplace_back(appG_attention(Gammas[k]));
  }
  return t;
}

std::vector<Exponent> appG_block(int d, int l) {
  std::vector<Exponent> b;
  b.emplace_back(d, 0);
  for (int k = 0; k < d; ++k) {
    Exponent e(d, 0);
    e[k] = 1;
    b.push_back(e);
  }
  const int j = appG_mod(l, d) - 1;
  for (int k = 0; k < d; ++k) {
    Exponent e(d, 0);
    e[k] += 1;
    e[j] += 1;
    b.push_back(e);
  }
  return b;
}

}  // namespace icl::sja
