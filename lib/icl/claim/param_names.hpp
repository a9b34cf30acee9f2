// Names for coded parameter values: `--set cov=rotated` is `--set cov=2` where a claim codes its covariance so. The
// numbers stay the machine-readable values in the reports; the names are what `list`, the tables and summary.md
// print. Each claim declares its own (ParamSpec::names, Claim::case_names, claim.hpp).
#pragma once
#include "icl/claim/claim.hpp"

#include <initializer_list>
#include <optional>
#include <string>

namespace icl {

// Consecutive codes: numbered_names({"a", "b"}) is {(0, "a"), (1, "b")}; `first` the code of the first name.
ValueNames numbered_names(std::initializer_list<const char*> names, double first = 0);

// (value, name) pairs of a coded parameter of a claim (registered or unlisted, claim.hpp; a ParamSpec or a case
// parameter of Claim::case_names), in order; empty when the parameter is not coded or nobody registered the claim.
const ValueNames& param_value_names(const std::string& claim, const std::string& param);
// The name of a coded value ("rotated"), or "" when the parameter is not coded or the value has no name.
std::string param_value_name(const std::string& claim, const std::string& param, double value);
// The value a name stands for, or nullopt.
std::optional<double> param_value_from_name(const std::string& claim, const std::string& param, const std::string& name);

}  // namespace icl
