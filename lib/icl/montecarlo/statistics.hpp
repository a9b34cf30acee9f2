// Estimates and intervals from a Monte Carlo accumulator: the mean, its standard error and a
// Student-t interval at a stated two-sided confidence. What an interval decides is verdict/decision.hpp.
#pragma once
#include "icl/montecarlo/montecarlo.hpp"

#include <cstdint>
#include <vector>

namespace icl {

struct Estimate {
  double mean = 0, stderr_ = 0, sd = 0, ci_low = 0, ci_high = 0;
  std::uint64_t samples = 0;
  double confidence = 0;
};
// One side of a comparison whose per-prompt losses may be heavy-tailed (learn::tailed_loss; verdict/over_trials.hpp
// judge_tailed_every_trial): the plain mean, the mean of min(loss, cap), and the share of the summed loss carried by the
// largest tail_fraction of the prompts.
struct TailedLoss {
  Estimate full, capped;
  double cap = 0, tail_fraction = 0.001, tail_share = 0;
};
// Student-t interval at the given two-sided confidence.
Estimate make_estimate(const Accumulator& acc, int component, double confidence);
// Over independent runs (trained models, one value each): mean, standard error and the two-sided Student-t interval
// at `confidence` with runs - 1 degrees of freedom (samples = the number of runs). Throws std::invalid_argument for
// fewer than 2 runs.
Estimate over_runs(const std::vector<double>& values, double confidence);
double student_t_quantile(double p, double dof);
// One-sided Student-t bounds of an estimate's mean at level `a` (samples - 1 degrees of freedom): mean -/+
// t_(1-a) x stderr; NaN where the estimate has no interval (a mean or standard error not finite, fewer than 2 samples).
double one_sided_lower(const Estimate& e, double a);
double one_sided_upper(const Estimate& e, double a);
double normal_quantile(double p);

}  // namespace icl
