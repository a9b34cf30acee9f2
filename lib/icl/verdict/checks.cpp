#include "icl/verdict/checks.hpp"

#include "icl/report/quantities.hpp"

namespace icl {

std::string tolerance_text(const Tolerance& tol) {
  if (tol.abs > 0 && tol.rel > 0) return fmt::format("max({:g} relative, {:g} absolute)", tol.rel, tol.abs);
  if (tol.abs > 0) return fmt::format("{:g} absolute", tol.abs);
  return fmt::format("{:g} relative", tol.rel);
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
  return j;
}

}  // namespace icl
