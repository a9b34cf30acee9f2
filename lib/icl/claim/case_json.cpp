#include "icl/claim/case_json.hpp"

#include "icl/verdict/checks.hpp"

#include <stdexcept>

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
CaseJson& CaseJson::part(const std::string& id) {
  j_["part"] = id;
  return *this;
}
CaseJson& CaseJson::verdict(Verdict v, std::string evidence, std::vector<std::string> basis) {
  j_["verdict"] = to_string(v);
  j_["evidence"] = std::move(evidence);
  if (v != Verdict::inconclusive) j_["basis"] = basis;
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

std::vector<std::string> CaseJson::decisions_with(Verdict v, const std::vector<std::string>& names) const {
  std::vector<std::string> r;
  if (!j_.contains("decisions")) return r;
  for (const auto& n : names)
    if (j_["decisions"].contains(n) && j_["decisions"][n].is_object() && j_["decisions"][n].value("verdict", "") == to_string(v))
      r.push_back(n);
  return r;
}

nlohmann::ordered_json CaseJson::take() {
  const std::string v = j_.value("verdict", "");
  if (v == "confirmed" || v == "refuted") {
    const std::string where = "case " + j_["params"].dump();
    if (!j_.contains("basis") || j_["basis"].empty())
      throw std::logic_error(where + ": a " + v + " verdict names no decision it rests on (basis)");
    for (const auto& name : j_["basis"]) {
      const std::string n = name.get<std::string>();
      if (!j_.contains("decisions") || !j_["decisions"].contains(n) || !j_["decisions"][n].is_object())
        throw std::logic_error(where + ": basis names the missing decision '" + n + "'");
      if (j_["decisions"][n].value("verdict", "") != v)
        throw std::logic_error(where + ": the verdict is " + v + " but its basis '" + n + "' is " +
                               j_["decisions"][n].value("verdict", "?"));
    }
  }
  return std::move(j_);
}

}  // namespace icl
