#include "icl/search/minimize_from_starts.hpp"

#include <cmath>

namespace icl {

StartsMinimum minimize_from_starts(const learn::Objective& f, std::vector<std::pair<std::string, Eigen::VectorXd>> starts,
                                   const StartsOptions& o, std::uint64_t seed, std::uint64_t purpose) {
  learn::LbfgsOptions lo;
  lo.gradient_tolerance = o.gradient_tolerance;  // then Newton steps to the floor of double precision
  lo.relative_decrease = o.relative_decrease;
  lo.max_iterations = o.max_iterations;
  SearchProblem pr;
  pr.dim = starts.empty() ? 0 : static_cast<int>(starts.front().second.size());
  pr.effort_unit = "L-BFGS iterations (at most, then Newton steps)";
  pr.structured = std::move(starts);
  pr.refine = [&](const Eigen::VectorXd& x, int effort, std::uint64_t) {
    lo.max_iterations = effort;
    learn::MinimizeResult r = learn::minimize_lbfgs(f, x, lo);
    learn::newton_polish(f, r);
    return Eigen::VectorXd(r.theta);
  };
  pr.select = [&](const Eigen::VectorXd& x) {
    Eigen::VectorXd g(x.size());
    const double loss = f(x, g);
    return std::isfinite(loss) && g.norm() <= o.converged_gradient ? -loss : -INFINITY;
  };
  SearchBudget b;
  b.random_starts = 0;  // the caller's starts are all structured
  b.continuation_steps = 0;
  b.refine_effort = o.max_iterations;
  b.final_effort = 0;
  b.improving_tol = o.improving_tol;
  StartsMinimum s;
  s.search = search_maximum(pr, b, seed, purpose);
  s.best.loss = INFINITY;
  for (const auto& path : s.search.paths) {
    const double v = path.values.empty() ? -INFINITY : path.values.front();
    s.losses.push_back(std::isfinite(v) ? -v : NAN);
    if (std::isfinite(v)) ++s.converged;
  }
  if (s.search.best.size() && std::isfinite(s.search.best_value)) {
    s.best.theta = s.search.best;
    s.best.loss = -s.search.best_value;
  }
  return s;
}

}  // namespace icl
