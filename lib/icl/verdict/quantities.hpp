// Report fragments: the quantity kinds of docs/reports.md (a scalar, a Monte Carlo estimate, a matrix),
// a decision as it appears under a case's "decisions", and a claim's error rates.
#pragma once
#include "icl/montecarlo/statistics.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

namespace icl {

nlohmann::ordered_json quantity_value(double v);
nlohmann::ordered_json quantity_mc(const Estimate& e);
nlohmann::ordered_json quantity_matrix(const Eigen::MatrixXd& m);
nlohmann::ordered_json decision_json(const Decision& d);
// The decisions of a sequential equality check: exact_vs_stated, mc_vs_stated, mc_vs_exact, looks,
// detectable_discrepancy, and samples_to_decide where exact_first_check left a case undecided.
nlohmann::ordered_json decisions_json(const EqualityOutcome& o);
// How one named decision came out over the cases of a report, from the decisions themselves (the only way a
// report counts them): "confirmed in 3, inconclusive (too noisy to decide) in 17, refuted in 0 of 20 cases"
// (for an equality: within the band / neither / excluded; verdict/decision.hpp); cases without that decision
// are skipped.
std::string tally_decisions(const nlohmann::ordered_json& cases, const std::string& decision);
// Whether some case of a report has the named decision and every case that has it confirmed it (e.g. a proposed
// correction's check).
bool all_confirmed(const nlohmann::ordered_json& cases, const std::string& decision);
// The refuting cases of a report in words, for a refuted claim's summary: "part e: <the case's evidence>" for each
// case whose verdict is refuted, joined by "; " (a case without a part: its parameters' label instead).
std::string refuted_cases_text(const nlohmann::ordered_json& cases);
// The largest value of a scalar quantity (quantity_value) over the cases of a report that have it, and `from` where
// it is larger or no case has it: what a claim's summary quotes as its worst case, read from the cases themselves.
double max_quantity(const nlohmann::ordered_json& cases, const std::string& quantity, double from = 0.0);
// The error-rate block of a claim's report: the false-fail rate alpha split over `cases` cases and up to
// `looks` sequential looks, the false-pass rate, the tolerance and the power behind `detectable`.
nlohmann::ordered_json error_rates_json(double alpha, std::size_t cases, std::size_t looks, const Tolerance& tol,
                                        double beta = 0.05);

}  // namespace icl
