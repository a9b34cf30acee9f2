// One case of a claim's report, as docs/reports.md fixes it: `params`, `quantities` (`stated`, `exact`,
// `mc` and the claim's own), `verdict`, `evidence` and `decisions`, plus any fields of the claim's own.
// Every claim writes its cases through this builder, so the case contract lives here; fields appear in
// the order the claim writes them.
//
// Two fields serve the rule that a report claims only what its decisions show (verdict/decision.hpp):
// `part`, the part of the claim (parts.hpp) the case judges, and `basis`, the decisions (names under
// `decisions`) a confirmed or refuted verdict rests on; each of them must have reached that verdict.
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/montecarlo/statistics.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace icl {

struct EqualityOutcome;

class CaseJson {
public:
  explicit CaseJson(const Case& c) : CaseJson(c.to_json()) {}
  explicit CaseJson(nlohmann::ordered_json params) { j_["params"] = std::move(params); }

  // quantities: a scalar, a Monte Carlo estimate, or a matrix (docs/reports.md quantity kinds).
  CaseJson& quantity(const std::string& name, double v);
  CaseJson& quantity(const std::string& name, const Estimate& e);
  CaseJson& quantity(const std::string& name, const Eigen::MatrixXd& m);
  CaseJson& stated(double v) { return quantity("stated", v); }
  CaseJson& stated(const Eigen::MatrixXd& m) { return quantity("stated", m); }
  CaseJson& exact(double v) { return quantity("exact", v); }
  CaseJson& exact(const Eigen::MatrixXd& m) { return quantity("exact", m); }
  CaseJson& mc(const Estimate& e) { return quantity("mc", e); }

  // A field of the claim's own at the case's top level (a construction, its weights, a trace...).
  CaseJson& field(const std::string& name, nlohmann::ordered_json v);

  // The part of the claim this case judges (a declared PartSpec id; optional when the claim has one part).
  CaseJson& part(const std::string& id);

  // The case's verdict, the evidence for it in words and numbers, and the decisions it rests on (their
  // names under `decisions`; required when the verdict is confirmed or refuted, each with that verdict).
  CaseJson& verdict(Verdict v, std::string evidence, std::vector<std::string> basis);
  CaseJson& verdict(const Decision& d, std::vector<std::string> basis) { return verdict(d.verdict, d.why, std::move(basis)); }
  CaseJson& verdict(const Decision& d) { return verdict(d.verdict, d.why, d.basis); }  // a combined decision

  // decisions: one judged comparison, or any other entry (a look count, a sample size, a flag).
  CaseJson& decision(const std::string& name, const Decision& d);
  CaseJson& decision(const std::string& name, nlohmann::ordered_json v);
  // Of the named decisions already recorded, those that reached verdict v (a basis for an all-must-confirm,
  // any-refutes combination of them).
  std::vector<std::string> decisions_with(Verdict v, const std::vector<std::string>& names) const;
  // The decisions of a sequential equality check (verdict/checks.hpp): exact_vs_stated, mc_vs_stated,
  // mc_vs_exact, looks, detectable_discrepancy.
  CaseJson& decisions(const EqualityOutcome& o);

  nlohmann::ordered_json& json() { return j_; }
  // The finished case. Throws std::logic_error (an internal failure) if a confirmed or refuted verdict has
  // no basis, or names a decision that is missing or did not reach that verdict.
  nlohmann::ordered_json take();

private:
  nlohmann::ordered_json j_;
};

}  // namespace icl
