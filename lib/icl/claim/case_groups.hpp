// A grid's cases grouped by every parameter but one: the shape of an experiment that trains one model per value of
// the varied parameter (a depth, a training length) and compares them within each setting of the others.
#pragma once
#include "icl/claim/claim.hpp"

#include <string>
#include <vector>

namespace icl {

struct CaseGroup {
  const Case* first = nullptr;     // the group's first case (its other parameters are the group's)
  std::vector<int> values;         // the values the varied parameter takes in the group, sorted and distinct
  std::vector<const Case*> cases;  // every case of the group, in grid order
};

// Groups in the order of their first case; two cases are in one group when every parameter but `varied` is equal.
// The returned pointers point into `cases`.
std::vector<CaseGroup> group_cases(const std::vector<Case>& cases, const std::string& varied);

}  // namespace icl
