// The trend kind (trend.hpp): pair cases on a grid's curves, their tally, the part's verdict.
#include "icl/claim/kinds/trend.hpp"

#include "icl/verdict/decision.hpp"

#include <fmt/format.h>

namespace icl::trend {

namespace {

// A trend case: the loss at b below the loss at a.
Verdict decrease_case(ClaimRun& r, const Spec& s, const Point& a, const Point& b, const std::string& check,
                      double alpha_case) {
  Decision dd = judge_mc_decrease(a.loss, b.loss, alpha_case);
  dd.why = fmt::format("loss {:.4g} at {}={} minus loss {:.4g} at {}={}: ", a.loss.mean, s.x_name, a.x, b.loss.mean,
                       s.x_name, b.x) +
           dd.why;
  CaseJson j = pair_case(s, a, b, s.part, check);
  j.quantity("loss_drop", a.loss.mean - b.loss.mean);
  j.decision("trend", dd);
  j.verdict(dd, {"trend"});
  r.add_uncounted_case(j);  // derived from the measurements: no unit of progress of its own
  return dd.verdict;
}

}  // namespace

CaseJson pair_case(const Spec& s, const Point& a, const Point& b, const std::string& part, const std::string& check) {
  CaseJson j(Case{{{s.group_name, a.group}, {s.x_name, a.x}, {s.x_name + "_next", b.x}}});  // whole numbers as integers
  j.part(part);
  j.field("check", check);
  j.quantity("stated", 0.0);
  j.quantity("mc", b.loss);
  j.quantity("mc_at_" + s.x_name, a.loss);
  return j;
}

TrendTally trend_cases(ClaimRun& r, const Spec& s, const std::vector<Point>& points, double alpha_case,
                       const std::function<void(const Point& first, const Point& last)>& limit) {
  std::vector<int> groups;
  std::vector<double> xs;
  for (const Point& p : points) {
    groups.push_back(p.group);
    xs.push_back(p.x);
  }
  TrendTally n;
  for (const auto& [k, e] : increasing_runs(groups, xs)) {
    for (std::size_t i = k; i < e; ++i)
      n.add_pair(decrease_case(r, s, points[i], points[i + 1], s.pair_check, alpha_case));
    if (e >= k + 2) n.add_overall(decrease_case(r, s, points[k], points[e], s.overall_check, alpha_case));
    if (e > k && limit) limit(points[k], points[e]);
  }
  return n;
}

void decide_part(ClaimRun& r, const Spec& s, const TrendTally& n, const Refutation& on_refuted) {
  r.part(s.part).decide(n.verdict(),
                        fmt::format("the loss falls significantly in {} of {} steps between consecutive {} and rises "
                                    "significantly in {}; from the smallest to the largest {} it falls significantly "
                                    "in {} of {} grids",
                                    n.falls, n.pairs, s.x_name, n.rises, s.x_name, n.overall_falls, n.groups));
  r.part(s.part).on_refuted(on_refuted);
}

}  // namespace icl::trend
