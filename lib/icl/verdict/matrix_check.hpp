// A matrix estimated by batches of Monte Carlo least squares (montecarlo/least_squares_gamma.hpp) judged
// against a target matrix, entry by entry, at a family-wise error rate.
#pragma once
#include "icl/montecarlo/least_squares_gamma.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>

namespace icl {

// Gamma_hat against `target`, entry by entry: Student-t intervals (batches - 1 dof), Bonferroni over the
// entries, family-wise level alpha. Refuted if some interval lies wholly outside target +/- band;
// confirmed if every interval lies within target +/- band; inconclusive otherwise (too noisy).
Decision judge_matrix_equal(const GammaLeastSquares& est, const Eigen::MatrixXd& target, double band, double alpha);

}  // namespace icl
