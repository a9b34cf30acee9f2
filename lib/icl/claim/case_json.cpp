#include "icl/claim/case_json.hpp"

#include "icl/verdict/checks.hpp"

namespace icl {

CaseJson& CaseJson::quantity(const std::string& name, double v) {
  j_["quantities"][name] = quantity_value(v);
  return *this;
}
CaseJson& CaseJson::quantity(const std::string& name, const Estimate& e) {
  j_["quantities"][name] = quantity_mc(e);
  return *this;
}
CaseJson& CaseJson::quantity(const std::string& name, const Eigen::MatrixXd& m) {
  j_["quantities"][name] = quantity_matrix(m);
  return *this;
}
CaseJson& CaseJson::field(const std::string& name, nlohmann::ordered_json v) {
  j_[name] = std::move(v);
  return *this;
}
CaseJson& CaseJson::verdict(Verdict v, std::string evidence) {
  j_["verdict"] = to_string(v);
  j_["evidence"] = std::move(evidence);
  return *this;
}
CaseJson& CaseJson::decision(const std::string& name, const Decision& d) {
  j_["decisions"][name] = decision_json(d);
  return *this;
}
CaseJson& CaseJson::decision(const std::string& name, nlohmann::ordered_json v) {
  j_["decisions"][name] = std::move(v);
  return *this;
}
CaseJson& CaseJson::decisions(const EqualityOutcome& o) {
  const nlohmann::ordered_json d = decisions_json(o);
  for (const auto& [k, v] : d.items()) j_["decisions"][k] = v;
  return *this;
}

}  // namespace icl
