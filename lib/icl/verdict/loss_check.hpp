// The in-context loss of a network measured through the real forward pass and judged against a stated value (and our
// exact value, where there is one): sequential_equality (checks.hpp) on ModelPromptWorker's per-prompt losses
// (montecarlo/prompt_loss.hpp, the sja/acds sign: (yhat + y_q)^2), for the many checks that a construction's or a
// search's exact loss is what the forward pass computes.
#pragma once
#include "icl/layers/network.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/verdict/checks.hpp"

#include <cstdint>
#include <optional>

namespace icl {

// Prompts of the stream (plan.seed, purpose) drawn from `model` in `shape`, plan.threads threads; looks doubling from
// `first` up to plan.samples, each at alpha / looks (the outcome's looks_planned is the count a claim's error-rate
// block needs), stopping no earlier than `min_samples` prompts (sequential_equality's rule).
EqualityOutcome forward_loss_equality(const SamplingPlan& plan, double alpha, const Transformer& net,
                                      const GaussianIclModel& model, const PromptShape& shape, std::uint64_t purpose,
                                      double stated, std::optional<double> exact, const Tolerance& tol,
                                      const Tolerance& exact_tol, std::uint64_t first, std::uint64_t min_samples);

}  // namespace icl
