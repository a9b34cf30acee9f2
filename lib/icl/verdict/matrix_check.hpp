// A matrix estimated by batches of Monte Carlo least squares (montecarlo/least_squares_gamma.hpp) judged
// against a target matrix, entry by entry, at a family-wise error rate.
#pragma once
#include "icl/montecarlo/least_squares_gamma.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <vector>

namespace icl {

// Gamma_hat against `target`, entry by entry: Student-t intervals (batches - 1 dof), Bonferroni over the
// entries, family-wise level alpha. Refuted if some interval lies wholly outside target +/- band;
// confirmed if every interval lies within target +/- band; inconclusive otherwise (too noisy).
Decision judge_matrix_equal(const GammaLeastSquares& est, const Eigen::MatrixXd& target, double band, double alpha);

// A relative difference between matrices computed exactly (e.g. ||A - B||_F / ||B||_F) against a tolerance:
// confirmed within it, refuted beyond it (or NaN); band = tol; why "<what> = <rel> (<= tol)" or "(> tol)".
Decision judge_relative_difference(double rel, double tol, const std::string& what);

// The same judgement in sequential looks, each a fresh fit (mc_least_squares_gamma through `feature_layers`,
// `batches` batches, sign +1; the query integrated out given the context where `query_moments` is not empty):
// look k fits `looks[k].samples` prompts of the stream (seed, looks[k].purpose) and is judged at alpha / looks.size()
// (Bonferroni over the planned looks, so the family-wise rate is alpha wherever it stops); the looks stop at the
// first that decides (confirmed or refuted). Budget moves to the targets that need it: an easy one stops after a
// small first look.
struct MatrixLook {
  std::uint64_t purpose = 0, samples = 0;
};
struct MatrixFit {
  GammaLeastSquares lsq;  // the last look's fit
  Decision decision;      // and its judgement
  int looks = 0;          // the looks run
};
MatrixFit judge_matrix_in_looks(const Transformer& feature_layers, const GaussianIclModel& model, const PromptShape& shape,
                                std::uint64_t seed, int threads, const std::vector<MatrixLook>& looks, int batches,
                                const Eigen::MatrixXd& query_moments, const Eigen::MatrixXd& target, double band,
                                double alpha);

}  // namespace icl
