// The trend kind of a catalogue claim: "the loss falls as x grows" (an asymptotic statement judged by its trend, not
// by a finite grid's values), on measured points, one Monte Carlo loss each, in the grid's order. The points form
// curves (verdict/trend.hpp increasing_runs: consecutive points of one group with x increasing); each curve's
// consecutive pairs, and its first point against its last (curves of 3 points or more), are trend cases (the loss at
// the larger x below the loss at the smaller, verdict/decision.hpp judge_mc_decrease at alpha_case: confirmed when
// significantly lower, refuted when significantly higher), added without a unit of progress (the measurements were
// the units); after each curve of 2 points or more the claim's own limit case (`limit`, e.g. a rate) on its first
// and last points. decide_part turns the tally (TrendTally::verdict) into the part's verdict, with the claim's
// refutation.
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/montecarlo/statistics.hpp"
#include "icl/verdict/trend.hpp"

#include <functional>
#include <string>
#include <vector>

namespace icl::trend {

struct Point {
  int group = 0;  // the curve's other parameter (e.g. d)
  double x = 0;   // the parameter the statement lets grow (e.g. D)
  Estimate loss;
};

struct Spec {
  std::string group_name = "d", x_name = "D";  // the cases' keys: group, x, x_next (x_name + "_next")
  std::string part = "b";
  std::string pair_check = "trend: the error at D_next is below the error at D";
  std::string overall_check = "trend: the error at the largest D is below the error at the smallest";
};

// A case on the pair (a, b): params {group, x, x_next}, part, "check", stated 0 (the limit of the error), mc the loss
// at b.x, mc_at_<x_name> the loss at a.x. The caller adds its decision and verdict.
CaseJson pair_case(const Spec& s, const Point& a, const Point& b, const std::string& part, const std::string& check);

// The trend cases of every curve and, after each curve of two points or more, limit(first, last); returns the tally.
TrendTally trend_cases(ClaimRun& r, const Spec& s, const std::vector<Point>& points, double alpha_case,
                       const std::function<void(const Point& first, const Point& last)>& limit);

// The part's verdict from the tally, with its reason in words, and the refutation it carries where refuted.
void decide_part(ClaimRun& r, const Spec& s, const TrendTally& n, const Refutation& on_refuted);

}  // namespace icl::trend
