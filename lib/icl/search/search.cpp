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
  const int more = static_cast<int>(std::floor(std::log2(std::max(1.0, k))));
  b.continuation_steps = continuation_steps + more;
  if (extend_leaders > 0) b.max_continuation_steps = max_continuation_steps + more;
  return b;
}

nlohmann::ordered_json SearchBudget::to_json() const {
  nlohmann::ordered_json j = {{"random_starts_per_scale", random_starts}, {"start_scales", start_scales},
                              {"continuation_steps", continuation_steps}, {"continuation_factor", continuation_factor},
                              {"refine_effort", refine_effort},         {"final_effort", final_effort},
                              {"improving_tol", improving_tol}};
  if (extend_leaders > 0) {  // (absent where a claim runs no extension: its reports keep their shape)
    j["extend_leaders"] = extend_leaders;
    j["max_continuation_steps"] = max_continuation_steps;
    j["extend_patience"] = extend_patience;
    j["extend_tol"] = extend_tol;
    j["extend_factor"] = extend_factor > 0 ? extend_factor : continuation_factor;
  }
  return j;
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
  // Each path's last point and whether its last round was its best (still rising): the extension's candidates.
  std::vector<Eigen::VectorXd> last(starts.size());
  std::vector<char> rising(starts.size(), 0);
  for (std::size_t s = 0; s < starts.size(); ++s) {
    const auto& [name, x0] = starts[s];
    SearchPath path;
    path.start = name;
    Eigen::VectorXd x = x0;
    double path_best = -INFINITY;
    for (int round = 0; round <= budget.continuation_steps; ++round) {
      if (round > 0) x = rescale(x, budget.continuation_factor);
      x = pr.refine(x, budget.refine_effort, stream++);
      const double v = x.allFinite() ? pr.select(x) : -INFINITY;
      path.values.push_back(v);
      record(r, budget.refine_effort, &x, v, name, round);
      if (!std::isfinite(v)) break;  // a diverged path ends
      rising[s] = round == 0 || v > path_best;
      path_best = std::max(path_best, v);
    }
    if (!std::isfinite(path.values.back())) rising[s] = 0;
    last[s] = std::move(x);
    r.paths.push_back(std::move(path));
  }
  // Extension: the leading rising paths go on while their held-out value improves (in order of their last value,
  // ties by start order: deterministic).
  if (budget.extend_leaders > 0 && budget.max_continuation_steps > budget.continuation_steps) {
    std::vector<std::size_t> order;
    for (std::size_t s = 0; s < starts.size(); ++s)
      if (rising[s]) order.push_back(s);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r.paths[a].values.back() > r.paths[b].values.back(); });
    if (order.size() > static_cast<std::size_t>(budget.extend_leaders)) order.resize(budget.extend_leaders);
    const double factor = budget.extend_factor > 0 ? budget.extend_factor : budget.continuation_factor;
    for (std::size_t s : order) {
      SearchPath& path = r.paths[s];
      Eigen::VectorXd x = last[s];
      double path_best = *std::max_element(path.values.begin(), path.values.end());
      int stale = 0;
      for (int round = static_cast<int>(path.values.size());
           round <= budget.max_continuation_steps && stale < budget.extend_patience; ++round) {
        x = pr.refine(rescale(x, factor), budget.refine_effort, stream++);
        const double v = x.allFinite() ? pr.select(x) : -INFINITY;
        path.values.push_back(v);
        ++path.extended_rounds;
        record(r, budget.refine_effort, &x, v, path.start, round);
        if (!std::isfinite(v)) break;
        if (v > path_best + budget.extend_tol) {
          path_best = v;
          stale = 0;
        } else {
          ++stale;
        }
      }
    }
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
  for (const auto& p : paths) {
    starts_json.push_back({{"start", p.start}, {"values", p.values}});
    if (p.extended_rounds > 0) starts_json.back()["extended_rounds"] = p.extended_rounds;
  }
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
