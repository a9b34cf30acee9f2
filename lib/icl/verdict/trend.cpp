#include "icl/verdict/trend.hpp"

#include <fmt/format.h>

#include <cmath>

#include <stdexcept>

namespace icl {

std::vector<std::pair<std::size_t, std::size_t>> increasing_runs(const std::vector<int>& group,
                                                                 const std::vector<double>& x) {
  if (group.size() != x.size()) throw std::invalid_argument("increasing_runs: group and x differ in length");
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t k = 0; k < x.size();) {
    std::size_t e = k;
    while (e + 1 < x.size() && group[e + 1] == group[k] && x[e + 1] > x[e]) ++e;
    runs.emplace_back(k, e);
    k = e + 1;
  }
  return runs;
}

void TrendTally::add_pair(Verdict v) {
  ++pairs;
  falls += v == Verdict::confirmed;
  rises += v == Verdict::refuted;
}

void TrendTally::add_overall(Verdict v) {
  ++groups;
  overall_falls += v == Verdict::confirmed;
}

Verdict TrendTally::verdict() const {
  if (rises > 0) return Verdict::refuted;
  if (groups > 0 && overall_falls == groups) return Verdict::confirmed;
  if (groups == 0 && pairs > 0 && falls == pairs) return Verdict::confirmed;
  return Verdict::inconclusive;
}

Decision judge_exact_slope(double s, const ExactSlopeRule& rule, const std::string& what) {
  const bool like = rule.within > 0;
  const bool holds = like ? std::abs(s - rule.stated) <= rule.within : s <= rule.stated;
  const Verdict v = holds ? Verdict::confirmed : s > rule.refute_above ? Verdict::refuted : Verdict::inconclusive;
  return Decision{v, like ? rule.within : rule.refute_above - rule.stated, 0,
                  fmt::format("{}: {:.4f} ({}, refuted above {:g})", what, s,
                              like ? fmt::format("confirmed within {:g} +/- {:g}", rule.stated, rule.within)
                                   : fmt::format("confirmed at <= {:g}", rule.stated),
                              rule.refute_above)};
}

}  // namespace icl
