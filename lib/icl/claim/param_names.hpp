// Names for coded parameter values: `--set cov=rotated` is `--set cov=2` for acds.thm1. The numbers stay the
// machine-readable values in the reports; the names are what `list`, the tables and summary.md print.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icl {

// (value, name) pairs of a coded parameter of a claim, in order; empty when the parameter is not coded.
const std::vector<std::pair<double, std::string>>& param_value_names(const std::string& claim, const std::string& param);
// The name of a coded value ("rotated"), or "" when the parameter is not coded or the value has no name.
std::string param_value_name(const std::string& claim, const std::string& param, double value);
// The value a name stands for, or nullopt.
std::optional<double> param_value_from_name(const std::string& claim, const std::string& param, const std::string& name);

}  // namespace icl
