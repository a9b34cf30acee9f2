// Sun, Jadbabaie, Azizan (000), Corollary 8 and Appendix H: a deep bilinear Transformer with
// dbar = 2d+1 whose bilinear layers cycle through every monomial of degree <= p.
//
// Rows: 1, x (d), scratch (d), y. Every App. H layer writes only the scratch rows (W = [0; W~]) with
// the column partition [ones (1) | x (d) | scratch (d)]:
//   clear:        W0 = [0 0 I_d],  W1 = [-1 0 0]       scratch <- s + s * (-1) = 0
//   generate(j):  W0 = [0 I_d 0],  W1 = [0 E_j 0]      scratch <- 0 + x * x[j]       (needs s = 0;
//                 the appendix prints "I_0" for the x block, which can only mean I_d)
//   multiply(j):  W0 = [0 0 I_d],  W1 = [-1 E_j 0]     scratch <- s + s * (x[j] - 1) = s * x[j]
// For each monomial g = x[j1] ... x[j_{p-1}] of degree p-1 (j1 <= ... <= j_{p-1}): clear,
// generate(j1), multiply(j2), ..., multiply(j_{p-1}): p layers giving x * x[j1], x * x[j1] x[j2], ...,
// x * g. Each bilinear layer is followed by an attention layer P = e e^T, Q = diag(Gamma, 0) (one
// block of block-coordinate descent). Claimed: the C(d+p-2, p-1) * p blocks cover all C(d+p, p)
// monomials of degree <= p, and C(d+p-2, p-1) * p <= max(d, p)^min(d, p).
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/layers/network.hpp"

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace icl::sja {

BilinearLayer appH_clear(int d);
BilinearLayer appH_generate(int d, int j);  // j = 1..d
BilinearLayer appH_multiply(int d, int j);  // j = 1..d

struct AppHStep {
  enum Kind { clear, generate, multiply } kind = clear;
  int j = 0;  // 1-based variable, unused for clear
  std::string name() const;
};

// One full cycle of the App. H schedule for (d, p): for every degree-(p-1) monomial (in the order of
// monomials_up_to), clear, generate, multiply... (p steps each; p = 1 gives a single clear).
std::vector<AppHStep> appH_schedule(int d, int p);
BilinearLayer appH_layer(int d, const AppHStep& s);
// Bilinear layer k (0-based) is appH_layer(schedule[k % cycle]), followed by attention(Gammas[k]).
Transformer appH_stack(int d, const std::vector<AppHStep>& schedule, const std::vector<Eigen::MatrixXd>& Gammas);

}  // namespace icl::sja
