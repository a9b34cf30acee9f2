// "A quantity falls as x grows", judged on a grid: the grid's rows in order form curves (maximal runs of consecutive
// rows of one group with x strictly increasing); each curve's consecutive pairs, and its first point against its
// last, are decrease decisions (decision.hpp judge_mc_decrease), tallied here, with the rule that turns the tally into
// a verdict.
#pragma once
#include "icl/verdict/decision.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace icl {

// The curves of a grid: [first, last] row indices of each maximal run of consecutive rows with group[i + 1] ==
// group[i] and x[i + 1] > x[i], in order (a lone row is a curve of one point). Throws std::invalid_argument where
// the lengths differ.
std::vector<std::pair<std::size_t, std::size_t>> increasing_runs(const std::vector<int>& group,
                                                                 const std::vector<double>& x);

// The tally of a falling trend's decisions.
struct TrendTally {
  std::size_t pairs = 0, falls = 0, rises = 0;  // consecutive pairs: judged, significantly falling, rising
  std::size_t groups = 0, overall_falls = 0;    // curves of >= 3 points judged first to last, and those falling
  void add_pair(Verdict v);     // confirmed: a fall, refuted: a rise
  void add_overall(Verdict v);  // confirmed: a fall
  // refuted on any significant rise between consecutive points; else confirmed when every curve of >= 3 points
  // falls significantly from its first point to its last (there is one at least), or, with no such curve, every
  // consecutive pair falls significantly (there is one at least); else inconclusive.
  Verdict verdict() const;
};

// A rate read off exact values (no noise): the local log-log slope s of a quantity between the two largest x of a
// grid, against a stated exponent p, in one of two forms of statement:
//   "falls like x^p" (within > 0): confirmed when |s - p| <= within (the band);
//   "falls at least like x^p" (within = 0): confirmed when s <= p (the band: refute_above - p);
// refuted when s > refute_above; else inconclusive (a finite grid may not have reached the rate). `what` names the
// slope ("local slope of log L between n = 10 and 20"); the words give s and the rule.
struct ExactSlopeRule {
  double stated = -1;
  double within = 0;
  double refute_above = 0;
};
Decision judge_exact_slope(double s, const ExactSlopeRule& rule, const std::string& what);

}  // namespace icl
