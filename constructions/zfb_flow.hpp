// Gradient flow of the zfb population loss over the full weights, with what the proofs of Theorems 4
// and 8 rely on watched along the way: the reduced form (only w^{PV}_22 and W^{KQ}_11 nonzero) and the
// conserved balance ||u||^2 - ||V||_F^2 (u the last row of W^{PV}, V the first d columns of W^{KQ}:
// the loss depends on them only through u (x) V, so the flow conserves it).
#pragma once
#include "icl/exact/gradient_flow.hpp"
#include "icl/exact/lsa_population_loss.hpp"

#include <nlohmann/json.hpp>

#include <utility>

namespace icl::zfb {

struct ReducedFormWatch {
  double max_off_reduced = 0;   // max |entry| outside w^{PV}_22 and W^{KQ}_11, at the trace times and the end
  double max_balance_drift = 0; // max |balance(t) - balance(0)|
  double max_asymmetry = 0;     // max ||W^{KQ}_11 - W^{KQ}_11^T||_F
  nlohmann::ordered_json to_json() const;
};

struct ZfbFlow {
  FlowResult flow;
  LsaWeights end;
  ReducedFormWatch reduced;
};

// Runs the flow from `init`; the trace's distance is the relative distance to `target`.
ZfbFlow zfb_gradient_flow(const PopulationLoss& pl, const LsaWeights& init, const LsaWeights& target,
                          const FlowOptions& opt);

// ||u||^2 - ||V||_F^2.
double balance(const LsaWeights& w);

// The limit on the reduced form, computed exactly and independently of any stated formula: the
// minimiser B* of the loss over yhat = w^T S B x_q / N (a linear solve), split as w^{PV}_22 W^{KQ}_11 = B*
// with the balance of `init` conserved: u^2 - ||W||_F^2 = C, u ||W||_F = ||B*||_F.
LsaWeights reduced_form_limit(const PopulationLoss& pl, const LsaWeights& init);

// Smallest nonzero and largest eigenvalue of the Hessian of L at w (central differences of the exact
// gradient): the slowest and fastest local rates of the flow; their ratio is its stiffness.
std::pair<double, double> curvature_range(const PopulationLoss& pl, const LsaWeights& w);

// ||a - b|| / ||b|| over both matrices (the flow-limit kind's relative distance of the weight vectors).
double relative_distance(const LsaWeights& a, const LsaWeights& b);

}  // namespace icl::zfb
