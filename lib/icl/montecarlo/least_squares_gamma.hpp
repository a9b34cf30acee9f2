// The optimal sparse attention Gamma measured by Monte Carlo least squares through the real forward pass,
// independently of the exact solve of exact/optimal_attention.hpp (verdict/matrix_check.hpp judges it
// against a target matrix).
#pragma once
#include "icl/model/gaussian_model.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/prompt.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace icl {

// Monte Carlo least-squares estimate of the optimal sparse Gamma. The prediction of the sparse layer is
// linear in Gamma: yhat = <Gamma, F>, F = (1/n) sum_{i<=n} y_i u_i u_q^T, with u read from the prompt
// after `feature_layers` (real forward pass). Gamma_hat = -E[f f^T]^+ E[f * sign * y_q], f = vec(F)
// (row-major), from `batches` independent batches; the spread of the batch estimates gives standard errors.
struct GammaLeastSquares {
  Eigen::MatrixXd gamma;   // mean of the batch estimates
  Eigen::MatrixXd stderr_; // per entry, from the batch spread
  std::vector<Eigen::MatrixXd> batch_gammas;
  int batches = 0;
  std::uint64_t samples = 0;
};
//
// With `query_moments` (Psi = E[psi psi^T], psi = (u_1..u_p, g_1..g_m)(x) of one example, exact moments:
// conditional_loss.hpp's query_moment_matrix), the query is integrated out exactly given the context: the
// normal equations' sums become sum_i (U y)_i (U y)_i^T (x) Sigma_u and sum_i (U y)_i (sign C w_i)^T, with
// Sigma_u = Psi's u block and C = E[u g^T], so Gamma_hat = -S_UU^+ S_UC Sigma_u^+ per batch. The context still
// goes through the forward pass; the query's randomness no longer adds noise (conditional Monte Carlo, which
// uses moments of the query's features, not the loss or Gamma* they are judged against).
GammaLeastSquares mc_least_squares_gamma(const Transformer& feature_layers, const GaussianIclModel& model,
                                         const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                                         int threads, std::uint64_t samples, int batches = 10, double sign = +1.0,
                                         const Eigen::MatrixXd* query_moments = nullptr);

// ||Gamma - target||_F estimated from the batches without the upward bias of a noisy norm: the
// U-statistic (1 / (K (K-1))) sum_{k != l} <D_k, D_l>, D_k = Gamma_k - target, estimates ||E D||^2; its
// standard error is the jackknife over batches; the interval (Student t, K - 1 dof) is mapped through sqrt.
Estimate lsq_distance(const GammaLeastSquares& est, const Eigen::MatrixXd& target, double confidence);

}  // namespace icl
