#include "icl/search/search.hpp"

#include "icl/model/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl {

SearchBudget SearchBudget::scaled(double k) const {
  SearchBudget b = *this;
  if (k == 1.0) return b;
  if (random_starts > 0) b.random_starts = std::max(1, static_cast<int>(std::lround(random_starts * k)));
  b.refine_effort = std::max(1, static_cast<int>(std::lround(refine_effort * std::sqrt(k))));
  b.final_effort = std::max(1, static_cast<int>(std::lround(final_effort * k)));
  b.continuation_steps = continuation_steps + static_cast<int>(std::floor(std::log2(std::max(1.0, k))));
  return b;
}

nlohmann::ordered_json SearchBudget::to_json() const {
  return {{"random_starts_per_scale", random_starts}, {"start_scales", start_scales},
          {"continuation_steps", continuation_steps}, {"continuation_factor", continuation_factor},
          {"refine_effort", refine_effort},         {"final_effort", final_effort},
          {"improving_tol", improving_tol}};
}

namespace {
double best_at(const std::vector<std::pair<double, double>>& profile, double effort) {
  double b = -INFINITY;
  for (const auto& [e, v] : profile)
    if (e <= effort) b = std::max(b, v);
  return b;
}

// One selection value after `effort` more units: the best point so far (x may be null where the caller keeps no
// point) and the profile's running best.
void record(SearchResult& r, double effort, const Eigen::VectorXd* x, double v, const std::string& name, int round) {
  r.effort += effort;
  if (std::isfinite(v) && v > r.best_value) {
    r.best_value = v;
    if (x) r.best = *x;
    r.best_start = name;
    r.best_round = round;
  }
  const double running = r.profile.empty() ? -INFINITY : r.profile.back().second;
  r.profile.emplace_back(r.effort, std::isfinite(v) ? std::max(running, v) : running);
}

// The convergence verdict: the rise of the best value over the last quarter of the effort.
void settle(SearchResult& r) {
  r.last_quarter_rise = r.best_value - best_at(r.profile, 0.75 * r.effort);
  if (!std::isfinite(r.last_quarter_rise)) r.last_quarter_rise = INFINITY;
  r.still_improving = r.last_quarter_rise > r.budget.improving_tol;
}
}  // namespace

SearchResult search_maximum(const SearchProblem& pr, const SearchBudget& budget, std::uint64_t seed,
                            std::uint64_t purpose) {
  SearchResult r;
  r.budget = budget;
  r.effort_unit = pr.effort_unit;
  auto rescale = [&](const Eigen::VectorXd& x, double f) {
    return pr.rescale ? pr.rescale(x, f) : Eigen::VectorXd(x * f);
  };
  std::vector<std::pair<std::string, Eigen::VectorXd>> starts = pr.structured;
  for (std::size_t s = 0; s < budget.start_scales.size(); ++s)
    for (int k = 0; k < budget.random_starts; ++k) {
      PromptRng rng(seed, purpose, (static_cast<std::uint64_t>(s) << 32) | static_cast<std::uint64_t>(k));
      Eigen::VectorXd x(pr.dim);
      rng.fill_normal(x);
      starts.emplace_back(fmt::format("random, scale {:g}, #{}", budget.start_scales[s], k + 1),
                          x * budget.start_scales[s]);
    }
  r.starts = static_cast<int>(starts.size());
  std::uint64_t stream = 0;
  for (const auto& [name, x0] : starts) {
    SearchPath path;
    path.start = name;
    Eigen::VectorXd x = x0;
    for (int round = 0; round <= budget.continuation_steps; ++round) {
      if (round > 0) x = rescale(x, budget.continuation_factor);
      x = pr.refine(x, budget.refine_effort, stream++);
      const double v = x.allFinite() ? pr.select(x) : -INFINITY;
      path.values.push_back(v);
      record(r, budget.refine_effort, &x, v, name, round);
      if (!std::isfinite(v)) break;  // a diverged path ends
    }
    r.paths.push_back(std::move(path));
  }
  r.before_final = r.best_value;
  if (r.best.size() && budget.final_effort > 0) {
    const Eigen::VectorXd x = pr.refine(r.best, budget.final_effort, stream++);
    const double v = x.allFinite() ? pr.select(x) : -INFINITY;
    record(r, budget.final_effort, &x, v, r.best_start + " (final refinement)", r.best_round);
  }
  settle(r);
  return r;
}

SearchResult profile_of_starts(const std::vector<std::string>& names, const std::vector<double>& values,
                               double effort_per_start, const std::string& effort_unit, double improving_tol) {
  SearchResult r;
  r.effort_unit = effort_unit;
  r.budget.random_starts = 0;
  r.budget.continuation_steps = 0;
  r.budget.refine_effort = static_cast<int>(effort_per_start);
  r.budget.final_effort = 0;
  r.budget.improving_tol = improving_tol;
  r.starts = static_cast<int>(values.size());
  for (std::size_t k = 0; k < values.size(); ++k) {
    const std::string name = k < names.size() ? names[k] : fmt::format("start {}", k + 1);
    r.paths.push_back({name, {values[k]}});
    record(r, effort_per_start, nullptr, values[k], name, 0);
  }
  r.before_final = r.best_value;
  settle(r);
  return r;
}

Eigen::VectorXd compass_search(const std::function<double(const Eigen::VectorXd&)>& f, Eigen::VectorXd x, int evaluations,
                               double step, double min_step) {
  double fx = f(x);
  int used = 1;
  if (!std::isfinite(fx)) return x;
  while (used < evaluations && step >= min_step) {
    bool moved = false;
    for (Eigen::Index k = 0; k < x.size() && used < evaluations && !moved; ++k)
      for (double sgn : {1.0, -1.0}) {
        if (used >= evaluations) break;
        Eigen::VectorXd y = x;
        y[k] += sgn * step;
        const double fy = f(y);
        ++used;
        if (std::isfinite(fy) && fy > fx) {
          x = std::move(y);
          fx = fy;
          moved = true;
          break;
        }
      }
    if (!moved) step /= 2;
  }
  return x;
}

nlohmann::ordered_json SearchResult::to_json(int points) const {
  nlohmann::ordered_json prof = nlohmann::ordered_json::array();
  const std::size_t n = profile.size();
  const std::size_t step = std::max<std::size_t>(1, n / static_cast<std::size_t>(std::max(1, points)));
  for (std::size_t i = 0; i < n; ++i)
    if (i % step == 0 || i + 1 == n) prof.push_back({{"effort", profile[i].first}, {"best", profile[i].second}});
  nlohmann::ordered_json starts_json = nlohmann::ordered_json::array();
  for (const auto& p : paths) starts_json.push_back({{"start", p.start}, {"values", p.values}});
  return {{"budget", budget.to_json()},
          {"effort_unit", effort_unit},
          {"starts", starts},
          {"effort", effort},
          {"best_value", best_value},
          {"best_start", best_start},
          {"best_round", best_round},
          {"best_before_final_refinement", before_final},
          {"last_quarter_rise", last_quarter_rise},
          {"still_improving", still_improving},
          {"profile", prof},
          {"paths", starts_json}};
}

std::string SearchResult::describe() const {
  return fmt::format("search: {} starts, {:g} {} in all, best {:.4g} from '{}' (continuation round {}); rise over the "
                     "last quarter of the effort {:.3g} ({} the tolerance {:.3g}: {})",
                     starts, effort, effort_unit, best_value, best_start, best_round, last_quarter_rise,
                     still_improving ? "above" : "within", budget.improving_tol,
                     still_improving ? "still improving" : "converged at this budget");
}

}  // namespace icl
