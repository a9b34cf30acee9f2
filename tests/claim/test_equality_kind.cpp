// The equality kind's check of a verified correction against a correction of a claim's own (lib/icl/claim/kinds/
// equality.hpp judge_proposed_against), on report cases made by hand: each case holding both quantities gets the
// decision, equal where the two agree to the tolerance and refuted where they do not; a case without one of them,
// and every case of a correction that is not verified, is left as it was.
#include "icl/claim/kinds/equality.hpp"

#include <doctest/doctest.h>

namespace test_equality_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

nlohmann::ordered_json report_case(double proposed, double corrected) {
  return {{"params", {{"n", 10}}},
          {"quantities", {{"proposed", {{"value", proposed}}}, {"corrected", {{"value", corrected}}}}}};
}

}  // namespace

TEST_CASE("judge_proposed_against: a decision per case holding both values, none for an unverified correction") {
  ProposedCorrection pc;
  pc.verified = true;
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  cases.push_back(report_case(2.5, 2.5));
  cases.push_back(report_case(2.5, 2.6));
  cases.push_back({{"params", {{"n", 20}}}, {"quantities", {{"corrected", {{"value", 1.0}}}}}});  // no `proposed`
  const Tolerance tol{1e-9, 1e-12};
  judge_proposed_against(cases, pc, "corrected", tol, "proposed_vs_corrected");
  CHECK(cases[0]["decisions"]["proposed_vs_corrected"]["verdict"] == "confirmed");
  CHECK(cases[1]["decisions"]["proposed_vs_corrected"]["verdict"] == "refuted");
  CHECK_FALSE(cases[2].contains("decisions"));

  pc.verified = false;
  nlohmann::ordered_json again = nlohmann::ordered_json::array({report_case(1.0, 1.0)});
  judge_proposed_against(again, pc, "corrected", tol, "proposed_vs_corrected");
  CHECK_FALSE(again[0].contains("decisions"));
}

}  // namespace test_equality_kind
