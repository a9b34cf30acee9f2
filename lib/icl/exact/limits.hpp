// Where the library integrates a single layer's loss exactly (exact/optimal_attention.hpp, single_layer_loss, on the
// moments of exact/feature_moments.hpp): d <= 12 on the linear task, d <= 3 on the quadratic one. The cost grows like
// the number of pairs of (d+1)^2 products times the terms of degree-8 (linear) or degree-12 (quadratic) polynomials
// (d = 199 took 6 GB). `icl-verify eval`, the claims of one's own (claim/kinds) and the Python module ask here.
#pragma once
#include "icl/model/tasks.hpp"

#include <string>

namespace icl {

inline constexpr int kExactMaxDLinear = 12;
inline constexpr int kExactMaxDQuadratic = 3;
// kExactMaxDLinear for "linear", kExactMaxDQuadratic for a task of degree 2 (quadratic, degree2, monomials of
// degree <= 2), 0 (no exact loss: Monte Carlo) for higher degrees and names model/tasks.hpp does not read.
inline int exact_max_d(const std::string& task) {
  if (task == "linear") return kExactMaxDLinear;
  std::string why;
  const int degree = named_task_degree(task, why);
  return degree == 1 ? kExactMaxDLinear : (degree == 2 ? kExactMaxDQuadratic : 0);
}

}  // namespace icl
