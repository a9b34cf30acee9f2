#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace icl {

nlohmann::ordered_json quantity_value(double v) {
  nlohmann::ordered_json j;
  j["value"] = v;
  return j;
}
nlohmann::ordered_json quantity_mc(const Estimate& e) {
  nlohmann::ordered_json j;
  j["mean"] = e.mean;
  j["stderr"] = e.stderr_;
  j["ci_low"] = e.ci_low;
  j["ci_high"] = e.ci_high;
  j["samples"] = e.samples;
  j["confidence"] = e.confidence;
  return j;
}
nlohmann::ordered_json quantity_matrix(const Eigen::MatrixXd& m) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    nlohmann::ordered_json r = nlohmann::ordered_json::array();
    for (Eigen::Index j = 0; j < m.cols(); ++j) r.push_back(m(i, j));
    rows.push_back(r);
  }
  nlohmann::ordered_json j;
  j["matrix"] = rows;
  return j;
}
nlohmann::ordered_json decision_json(const Decision& d) {
  nlohmann::ordered_json j;
  j["verdict"] = to_string(d.verdict);
  j["why"] = d.why;
  j["band"] = d.band;
  j["detectable"] = d.detectable;
  return j;
}


double max_quantity(const nlohmann::ordered_json& cases, const std::string& quantity, double from) {
  double m = from;
  for (const auto& c : cases)
    if (c.contains("quantities") && c["quantities"].contains(quantity))
      m = std::max(m, c["quantities"][quantity]["value"].get<double>());
  return m;
}

namespace {
// How a named decision came out over the cases that have it: `present` of them, `decided` with a verdict, of which
// `confirmed` and `refuted`.
struct DecisionCounts {
  std::size_t present = 0, decided = 0, confirmed = 0, refuted = 0;
};
DecisionCounts count_decisions(const nlohmann::ordered_json& cases, const std::string& decision) {
  DecisionCounts n;
  for (const auto& k : cases) {
    if (!k.contains("decisions") || !k["decisions"].contains(decision)) continue;
    ++n.present;
    const auto& d = k["decisions"][decision];
    if (!d.is_object() || !d.contains("verdict")) continue;
    ++n.decided;
    n.confirmed += d["verdict"] == "confirmed";
    n.refuted += d["verdict"] == "refuted";
  }
  return n;
}
}  // namespace

std::string tally_decisions(const nlohmann::ordered_json& cases, const std::string& decision) {
  const DecisionCounts n = count_decisions(cases, decision);
  return fmt::format("confirmed in {}, inconclusive (too noisy to decide) in {}, refuted in {} of {} cases", n.confirmed,
                     n.decided - n.confirmed - n.refuted, n.refuted, n.decided);
}

bool all_confirmed(const nlohmann::ordered_json& cases, const std::string& decision) {
  const DecisionCounts n = count_decisions(cases, decision);
  return n.present > 0 && n.confirmed == n.present;
}

std::string refuted_cases_text(const nlohmann::ordered_json& cases) {
  std::string out;
  for (const auto& k : cases) {
    if (k.value("verdict", "") != "refuted") continue;
    const std::string who =
        k.contains("part") ? "part " + k["part"].get<std::string>() : k.value("params", nlohmann::ordered_json()).dump();
    out += (out.empty() ? "" : "; ") + who + ": " + k.value("evidence", "");
  }
  return out;
}

nlohmann::ordered_json error_rates_json(double alpha, std::size_t cases, std::size_t looks, const Tolerance& tol,
                                        double beta) {
  const double per_case = alpha / static_cast<double>(std::max<std::size_t>(cases, 1));
  const double per_look = per_case / static_cast<double>(std::max<std::size_t>(looks, 1));
  nlohmann::ordered_json j;
  j["false_fail_rate"] = alpha;
  j["split"] = fmt::format("Bonferroni over {} cases and up to {} sequential looks per case", cases, looks);
  j["alpha_per_test"] = per_look;
  j["interval"] = fmt::format("{:.6g}% Student-t", 100 * (1 - per_look));
  j["false_pass_rate_per_case"] = per_look / 2;
  j["power_for_detectable"] = 1 - beta;
  j["tolerance"] = tolerance_text(tol);
  return j;
}

nlohmann::ordered_json decisions_json(const EqualityOutcome& o) {
  nlohmann::ordered_json j;
  if (o.exact_vs_stated) j["exact_vs_stated"] = decision_json(*o.exact_vs_stated);
  j["mc_vs_stated"] = decision_json(o.mc_vs_stated);
  if (o.mc_vs_exact) j["mc_vs_exact"] = decision_json(*o.mc_vs_exact);
  j["looks"] = fmt::format("{} of {}", o.looks_used, o.looks_planned);
  j["detectable_discrepancy"] = o.mc_vs_stated.detectable;
  if (o.samples_to_decide) j["samples_to_decide"] = *o.samples_to_decide;
  return j;
}

}  // namespace icl
