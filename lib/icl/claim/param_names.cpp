#include "icl/claim/param_names.hpp"

namespace icl {

ValueNames numbered_names(std::initializer_list<const char*> names, double first) {
  ValueNames r;
  double v = first;
  for (const char* n : names) r.emplace_back(v++, n);
  return r;
}

const ValueNames& param_value_names(const std::string& claim, const std::string& param) {
  static const ValueNames none;
  const Claim* c = find_report_claim(claim);
  if (!c) return none;
  for (const auto& p : c->params)
    if (p.name == param) return p.names;
  const auto it = c->case_names.find(param);
  return it == c->case_names.end() ? none : it->second;
}

std::string param_value_name(const std::string& claim, const std::string& param, double value) {
  for (const auto& [v, n] : param_value_names(claim, param))
    if (v == value) return n;
  return "";
}

std::optional<double> param_value_from_name(const std::string& claim, const std::string& param, const std::string& name) {
  for (const auto& [v, n] : param_value_names(claim, param))
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace icl
