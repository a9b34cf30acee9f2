// Regression: acds.thm2, acds.thm3, acds.thm4 (the landscape claims) through the real CLI at --quick, plus
// unit checks of the reduced family loss they share (exact/acds_family_loss.hpp) against the exact engine.
// A change of verdict or of the stationary point found is a change of finding and must be looked at.
#include "icl/exact/acds_family_loss.hpp"
#include "constructions/acds_forms.hpp"
#include "icl/exact/acds_population.hpp"
#include "icl/learn/forms.hpp"
#include "icl/model/gaussian_model.hpp"
#include "tests/support/cli_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace test_acds_landscape_claims_regression {  // named: a unity build compiles several test files as one unit

namespace {

nlohmann::json run_claim(const std::string& claim, const std::string& extra) {
  nlohmann::json j = icl::test::run_quick_report(claim, extra).json;
  CHECK(j["schema"] == "icl-verify/report/v1");
  REQUIRE(j["parts"].size() == 1);
  CHECK(j["parts"][0]["strength"] == "theorem");
  CHECK(j["parts"][0]["verdict"] == j["verdict"]);
  return j;
}

double q(const nlohmann::json& c, const std::string& name) { return c["quantities"][name]["value"].get<double>(); }

}  // namespace

TEST_CASE("regression: acds.thm3 --quick") {
  const auto j = run_claim("acds.thm3", "");
  CHECK(j["verdict"] == "confirmed");
  CHECK(!j["findings"].empty());
  for (const auto& c : j["cases"]) {
    CHECK(c["verdict"] == "confirmed");
    CHECK(q(c, "relative_gradient_norm") <= 1e-8);
    CHECK(q(c, "control_off_family") >= 1e-6);  // the check sees a point 1e-4 off the family
    CHECK(q(c, "gradient_direction_residual") <= 1e-10);
    CHECK(c["quantities"].contains("loss_mc"));
    if (c["params"]["L"] == 2) {  // d = 2, n = 10: the family's stationary point {a_0, a_1} (Sigma-free)
      auto a = c["quantities"]["coefficients_a"]["matrix"][0].get<std::vector<double>>();
      std::sort(a.begin(), a.end());
      CHECK(a[0] == doctest::Approx(0.4782328450775785).epsilon(1e-9));
      CHECK(a[1] == doctest::Approx(1.166126619549576).epsilon(1e-9));
    }
  }
}

TEST_CASE("regression: acds.thm4 --quick") {
  const auto j = run_claim("acds.thm4", "--samples 200000");
  CHECK(j["verdict"] == "confirmed");
  for (const auto& c : j["cases"]) {
    CHECK(c["verdict"] == "confirmed");
    CHECK(q(c, "relative_gradient_norm") <= 1e-8);
    CHECK(q(c, "control_off_family") >= 1e-6);
    // d = 2, L = 2, n = 10. Which stationary point of the family is pinned here depends on the seed: it is the
    // best of the 3 L-BFGS starts, drawn N(0, 0.5^2) from the normal stream of seed 1. The Philox4x32 stream
    // (issue 12) reaches a = (0.4527909536, 2.956859774), b_0 = 0.8370034186, family loss 0.0336 (the point the
    // Box-Muller starts had reached); the Philox4x64 ziggurat starts had reached the stationary points with family
    // loss 0.0520 and 0.0431 (a = (0.7222952287, 2.464867838), b_0 = 0.3479703611).
    const auto ab = c["quantities"]["coefficients_a_b"]["matrix"];
    CHECK(ab[0][0].get<double>() == doctest::Approx(0.4527909536).epsilon(1e-8));
    CHECK(ab[1][0].get<double>() == doctest::Approx(0.8370034186).epsilon(1e-8));
    CHECK(ab[0][1].get<double>() == doctest::Approx(2.956859774).epsilon(1e-8));
  }
}

TEST_CASE("regression: acds.thm2 --quick") {
  const auto j = run_claim("acds.thm2", "");
  CHECK(j["verdict"] == "confirmed");
  for (const auto& c : j["cases"]) {
    CHECK(c["decisions"]["diagonal_is_global"]["verdict"] == "confirmed");
    CHECK(std::abs(q(c, "relative_gap")) <= 1e-10);
    CHECK(q(c, "diagonal_best") == doctest::Approx(37.0 / 91.0).epsilon(1e-12));  // d = 2, n = 5
  }
}

TEST_CASE("acds landscape: the reduced family loss equals the exact engine on the family, with its gradient") {
  using icl::ReducedFamilyLoss;
  const int d = 2, n = 6;
  const Eigen::MatrixXd sigma = icl::test_covariance(d, 3);
  for (int L : {1, 2, 3}) {
    for (bool with_B : {false, true}) {
      if (with_B && L > 1) continue;  // form (11) at L = 2 costs seconds per engine evaluation (the claim checks it)
      INFO("L = ", L, ", form (11): ", with_B);
      const icl::AcdsPopulation pop(sigma, sigma.inverse(), n, L, with_B);
      const auto fam = icl::learn::acds_family(d, L, sigma.inverse(), with_B);
      const ReducedFamilyLoss reduced(d, n, L, with_B);
      Eigen::VectorXd th(fam.size());
      for (int k = 0; k < th.size(); ++k) th[k] = 0.3 + 0.17 * k;
      Eigen::VectorXd g_engine, g_reduced;
      const double engine = icl::learn::acds_exact_loss(pop, fam, th, &g_engine);
      const double r = reduced(th, g_reduced);
      CHECK(r == doctest::Approx(engine).epsilon(1e-12));
      for (int k = 0; k < th.size(); ++k) CHECK(g_reduced[k] == doctest::Approx(g_engine[k]).epsilon(1e-10));
      // and against central differences of itself
      for (int k = 0; k < th.size(); ++k) {
        Eigen::VectorXd tp = th, tm = th, gg;
        tp[k] += 1e-6;
        tm[k] -= 1e-6;
        CHECK(g_reduced[k] == doctest::Approx((reduced(tp, gg) - reduced(tm, gg)) / 2e-6).epsilon(1e-6));
      }
    }
  }
}

}  // namespace test_acds_landscape_claims_regression
