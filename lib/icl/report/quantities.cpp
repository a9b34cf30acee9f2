#include "icl/report/quantities.hpp"

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

}  // namespace icl
