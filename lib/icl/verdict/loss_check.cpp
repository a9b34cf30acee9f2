#include "icl/verdict/loss_check.hpp"

#include "icl/montecarlo/prompt_loss.hpp"

namespace icl {

EqualityOutcome forward_loss_equality(const SamplingPlan& plan, double alpha, const Transformer& net,
                                      const GaussianIclModel& model, const PromptShape& shape, std::uint64_t purpose,
                                      double stated, std::optional<double> exact, const Tolerance& tol,
                                      const Tolerance& exact_tol, std::uint64_t first, std::uint64_t min_samples) {
  auto make_worker = [&] { return ModelPromptWorker(net, model, shape, plan.seed, purpose); };
  return sequential_equality(plan, alpha, stated, exact, tol, exact_tol, 1, 0, first, make_worker, min_samples);
}

}  // namespace icl
