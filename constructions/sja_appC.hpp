// Sun, Jadbabaie, Azizan (000), Theorem 2 and Appendix C: the bilinear Transformer block that
// computes the quadratic kernel (7) and then one preconditioned gradient step on it.
//
// Prompt (sja embedding): rows 1, x (d), zeros (dbar - d - 1), y; dbar = C(d+2, 2).
// Bilinear layer (App. C, as printed): W0 = [0; W0~ 0], W1 = [0; W1~ 0] with rows d+2..dbar indexed by
//   (j, k), 1 <= j <= k <= d, and
//     W0~[(j,j), j+1] = 1, W0~[(j,j), 1] = -1, W1~[(j,j), j+1] = 1, W1~[(j,j), 1] = 1   (x_j^2 - 1)
//     W0~[(j,k), j+1] = 1, W1~[(j,k), k+1] = 1                                           (x_j x_k)
// Attention: P = e e^T, Q = diag(Gamma, 0), Gamma = -E[xbar xbar^T]^{-1}.
//
// Appendix C.2 and Figure 3 (AppCSetting, fig3_protocol_r2): the block at a given d on the quadratic task, its exact
// loss against n, its loss by conditional Monte Carlo, and the figure's protocol (100 prompts per n, the log of their
// mean loss fitted on log n) replicated.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/tasks.hpp"
#include "icl/montecarlo/montecarlo.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <vector>

namespace icl::sja {

int kernel_width(int d);  // C(d+2, 2)

// The features (7): (1, x_1..x_d, x_1^2-1, x_1x_2, ..., x_1x_d, x_2^2-1, ..., x_d^2-1).
std::vector<Polynomial<Rational>> kernel_features(int d);
// The variables (8) of Lemma 3 without the 1/sqrt(2) on (x_i^2 - 1), and those scale factors:
// v_a = scale[a] * unnormalised[a]; scale[a]^2 is 1/2 or 1 (exactly rational).
struct OrthonormalFeatures {
  std::vector<Polynomial<Rational>> unnormalised;
  std::vector<Rational> scale_squared;
  std::vector<std::string> names;
};
OrthonormalFeatures orthonormal_features(int d);
// The same v_ij evaluated at a point x (length d) into out (length C(d+2,2)).
void evaluate_orthonormal_features(int d, const double* x, double* out);
// Their exact Gram matrix G_ab = E[v_a v_b], x ~ N(0, I_d), from exact rational Gaussian moments: v_a = s_a p_a with
// p_a a polynomial with integer coefficients and s_a^2 in {1, 1/2}, so G_ab = s_a s_b E[p_a p_b] is decided exactly
// (diagonal: s_a^2 E[p_a^2] == 1; off-diagonal: E[p_a p_b] == 0, in rationals). `gram` in doubles; `identity`
// whether it is exactly the identity; `first_failure` the first entry that is not ("<v00, v11> = 0.5"), else empty.
struct OrthonormalGram {
  Eigen::MatrixXd gram;
  bool identity = true;
  std::string first_failure;
};
OrthonormalGram orthonormal_gram(int d, const OrthonormalFeatures& f);

BilinearLayer appC_bilinear(int d);
LinearSelfAttention sparse_attention(const Eigen::MatrixXd& Gamma);  // P = e e^T, Q = diag(Gamma, 0)
Eigen::MatrixXd appC_gamma(int d);                                   // -E[xbar xbar^T]^{-1}, exact moments
Transformer appC_block(int d);                                       // bilinear, then attention

// The App. C block at d on the quadratic task (x ~ N(0, I_d), PolynomialTask::quadratic), with what its loss at any n
// needs: the exact feature moments (exact_loss(n): sparse_lsa_loss with appC_gamma), and for the conditional Monte
// Carlo (montecarlo/conditional_loss.hpp) the block split into its bilinear layer (features) and its masked attention
// layer, the task's Gaussian model and Psi, the exact moments of the query's features.
struct AppCSetting {
  explicit AppCSetting(int d);
  const int d, dbar;  // dbar = kernel_width(d)
  const PolynomialTask task;
  const InputDistribution inputs;
  const Transformer block;
  const Eigen::MatrixXd gamma;
  const FeatureMoments mom;
  Transformer features, attention;
  const GaussianIclModel model;
  Eigen::MatrixXd Psi;

  double exact_loss(int n) const;
  // The loss at n by conditional Monte Carlo (QueryConditionalWorker, its three outputs: plain squared error,
  // conditional expected squared error, linearity check) over prompts 0..samples-1 of stream (seed, purpose).
  Accumulator conditional_mc(int n, std::uint64_t samples, int threads, std::uint64_t seed,
                             std::uint64_t purpose) const;
};

// Figure 3's protocol replicated `reps` times through u.block: replication k takes prompts k*per_n .. (k+1)*per_n - 1
// of stream (seed, purposes[m]) at n = ns[m] (the plain loss, PromptLossWorker), fits the log of their mean loss on
// logn[m] by unweighted least squares (fit_line) and gives its r^2: r2[k], the same at any thread count.
std::vector<double> fig3_protocol_r2(const AppCSetting& u, const std::vector<int>& ns,
                                     const std::vector<std::uint64_t>& purposes, const std::vector<double>& logn,
                                     int reps, int per_n, std::uint64_t seed, int threads);

}  // namespace icl::sja
