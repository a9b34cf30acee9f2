// Sun, Jadbabaie, Azizan (000), Lemma 12 (Appendix C): a single sparse LSA (P = e e^T, Q = diag(Gamma, 0)) on i.i.d.
// pairs (u_i, v_i), in the six settings the lemma is checked in, each with an arbitrary (random, not optimal) Gamma:
//   1 quadratic task, u = xbar from the App. C bilinear layer, one fixed w (the lemma as stated)
//   2 the same, averaged over w ~ N(0, I) (the paper's use in App. C)
//   3 quadratic task, u = xbar, averaged over w, Gamma with i.i.d. N(0, 1/dbar) entries
//   4 linear task y = <w, x>, u = x (acds embedding), averaged over w
//   5 linear task, u = x, one fixed w
//   6 quadratic task on raw features u = (1, x) (no bilinear layer): min_beta term > 0
// Gamma (settings other than 3: -Lam^{-1} plus 0.3 / sqrt(k) times a standard Gaussian matrix) and w are drawn from
// the case's stream `parameters_purpose`.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/claim/claim.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/tasks.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace icl::sja {

struct Lemma12Setting {
  bool quadratic = false, bilinear = false, fixed_w = false;
  int n = 0;                // the context length
  std::string description;  // "quadratic task, u = xbar (App. C bilinear layer), fixed w", ...
  PolynomialTask task;
  std::vector<Polynomial<Rational>> u;  // the features u(x)
  PromptShape shape;                    // the prompt of the model that produces them
  Eigen::MatrixXd Gamma;
  Eigen::VectorXd w;        // the task's coefficients (used where fixed_w)
  FeatureMoments moments;   // exact moments of (u, v): for the fixed w, or averaged over w
  // The forward pass: the features (the App. C bilinear layer, or none), then the sparse attention; the model that
  // draws its prompts, and u at the query as that forward pass computes it.
  Transformer features, attention;
  GaussianIclModel model;
  std::vector<Poly> query_features;
};
Lemma12Setting lemma12_setting(int setting, int d, int n, std::uint64_t seed, std::uint64_t parameters_purpose);

// The bytes per worker thread of the largest prompt of the six settings at (d, n), the bilinear settings' (1 to 3):
// the memory estimate.
double lemma12_workspace_bytes(int d, int n);

// The settings' names (parameter `setting`, codes 1..6 in the order above), and by name how a table shows them (LaTeX).
ValueNames lemma12_setting_names();
std::map<std::string, std::string> lemma12_setting_latex();

}  // namespace icl::sja
