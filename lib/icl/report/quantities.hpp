// Report fragments: the quantity kinds of REPORT-FORMAT.md (a scalar, a Monte Carlo estimate, a matrix)
// and a decision as it appears under a case's "decisions".
#pragma once
#include "icl/montecarlo/statistics.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

namespace icl {

nlohmann::ordered_json quantity_value(double v);
nlohmann::ordered_json quantity_mc(const Estimate& e);
nlohmann::ordered_json quantity_matrix(const Eigen::MatrixXd& m);
nlohmann::ordered_json decision_json(const Decision& d);

}  // namespace icl
