#include "icl/claim/case_groups.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace icl {

std::vector<CaseGroup> group_cases(const std::vector<Case>& cases, const std::string& varied) {
  std::vector<CaseGroup> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& c : cases) {
    std::string key;
    for (const auto& [name, v] : c.params)
      if (name != varied) key += fmt::format("{}={};", name, v);
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back(CaseGroup{&c, {}, {}});
    CaseGroup& g = groups[it->second];
    g.values.push_back(c.geti(varied));
    g.cases.push_back(&c);
  }
  for (auto& g : groups) {
    std::sort(g.values.begin(), g.values.end());
    g.values.erase(std::unique(g.values.begin(), g.values.end()), g.values.end());
  }
  return groups;
}

}  // namespace icl
