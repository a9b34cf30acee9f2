// zfb's gradient-flow case settings (constructions/zfb_cases.hpp): Theorem 4's covariances and Theorem 8's laws of the
// diagonal entries, their exact quadrature and the stated limit (22), on cases whose answer is known by hand.
#include "constructions/zfb.hpp"
#include "constructions/zfb_cases.hpp"
#include "constructions/zfb_flow.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/exact/gradient_flow.hpp"

#include <fmt/format.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace test_zfb_cases {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("zfb Theorem 4 covariances: eigenvalues from 1 to 1/kappa, rotated where asked, sigma at its fraction") {
  const int d = 3;
  const Eigen::MatrixXd diag = zfb::thm4_covariance(1, d, 7), rot = zfb::thm4_covariance(4, d, 7);
  CHECK(diag.isDiagonal());
  CHECK(diag(0, 0) == doctest::Approx(1.0));
  CHECK(diag(2, 2) == doctest::Approx(0.1));
  CHECK_FALSE(rot.isDiagonal(1e-6));
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(rot);
  CHECK(es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff() == doctest::Approx(100.0));
  CHECK(zfb::thm4_covariance_name(3, 1) == "variance 1 (d = 1)");
  const zfb::Thm4Case k = zfb::thm4_case(2, d, 5, 0, 0.25, 7);
  CHECK(k.sigma == doctest::Approx(0.25 * zfb::thm4_sigma_bound(k.lambda, 5)));
  CHECK(k.init.pv(d, d) == doctest::Approx(k.sigma));
  CHECK((k.prompts.chol * k.prompts.chol.transpose() - k.lambda).norm() < 1e-12);
}

TEST_CASE("zfb Theorem 8: i.i.d. entries give a stated A proportional to I; scaled laws do not") {
  const int d = 3, N = 5;
  const zfb::Thm8Case iid = zfb::thm8_case(2, d, N, 0, 0.5, 11, 1, 2000);  // Uniform[0.5, 1.5] entries
  CHECK(iid.spread == doctest::Approx(1.0));
  // The two-point rule of each entry reproduces its moments 0..3 (Uniform[0.5, 1.5]: 1, 1, 13/12, 5/4).
  for (std::size_t e = 0; e < iid.nodes.size(); ++e) {
    double m[4] = {0, 0, 0, 0};
    for (std::size_t q = 0; q < iid.nodes[e].size(); ++q)
      for (int k = 0; k < 4; ++k) m[k] += iid.weights[e][q] * std::pow(iid.nodes[e][q], k);
    CHECK(m[0] == doctest::Approx(1.0));
    CHECK(m[1] == doctest::Approx(1.0));
    CHECK(m[2] == doctest::Approx(13.0 / 12));
    CHECK(m[3] == doctest::Approx(1.25));
  }
  CHECK(iid.laws_label() == "i.i.d. " + iid.laws.front().label());
  CHECK(iid.sigma == doctest::Approx(0.5 * iid.sigma_bound));
  CHECK(iid.fields()["condition_21"]["holds"] == true);
  const zfb::Thm8Case scaled = zfb::thm8_case(5, d, N, 0, 0.5, 11, 1, 2000);
  CHECK(scaled.spread > 1.1);  // 1.31: entries at different scales weigh differently in (22)
  CHECK(scaled.laws.front().scale == doctest::Approx(0.5));
  CHECK(scaled.laws.back().scale == doctest::Approx(2.0));
}

TEST_CASE("zfb Theorem 8's tally: the laws, Theta kinds and d run, the spread's extremes, and the case's JSON") {
  const zfb::Thm8Case iid = zfb::thm8_case(2, 3, 5, 0, 0.5, 11, 1, 2000);
  const zfb::Thm8Case scaled = zfb::thm8_case(5, 3, 5, 2, 0.5, 11, 1, 2000);
  zfb::Thm8Tally t;
  t.note(scaled, 2);
  t.note(iid, 0);
  t.note(iid, 0);  // a law, Theta kind and d noted twice count once
  CHECK(t.cases_words() == " (d = 3; entries of Lambda_tau: Uniform[0.5, 1.5], mixed laws and scales; 2 Theta draws)");
  CHECK(t.min_spread == iid.spread);
  CHECK(t.max_spread == scaled.spread);
  CHECK(t.max_offdiag_init == std::max(iid.init_offdiagonal, scaled.init_offdiagonal));
  CHECK(t.spread_words().find(fmt::format("up to {:.3g}", scaled.spread)) != std::string::npos);
  CHECK(t.structure_finding().find(fmt::format("spread {:.3g})", iid.spread)) != std::string::npos);
  zfb::Thm8Tally one;
  one.note(iid, 0);
  CHECK(one.cases_words() == " (d = 3; entries of Lambda_tau: Uniform[0.5, 1.5]; 1 Theta draw)");
  // The case's JSON: its fields in report order, then its two quantities.
  CaseJson j(nlohmann::ordered_json{{"d", 3}});
  iid.write(j);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.json().items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"params", "distribution", "raw_moments", "quadrature", "sigma", "condition_21",
                                         "quantities"});
  CHECK(j.json()["quantities"]["stated_A_diagonal_spread"]["value"] == iid.spread);
  CHECK(zfb::theta_latex().at("rank-one") == "rank one");
  CHECK(zfb::thm8_dist_latex().size() == 6);
}

TEST_CASE("zfb Theorem 4 outside its condition: one record per covariance and fraction, sigma^2 ||Gamma|| sqrt(d) = 2 f^2") {
  FlowOptions opt;
  opt.grad_tol = 1e-8;
  opt.t_max = 1e5;
  opt.max_steps = 20000;
  const nlohmann::ordered_json out = zfb::thm4_flows_outside(2, 5, {1.5}, opt, 7);
  REQUIRE(out.size() == 2);
  CHECK(out[0]["covariance"] == "isotropic");
  CHECK(out[1]["covariance"] == "rotated (kappa 10)");
  CHECK(out[0]["sigma2_gamma_op_sqrt_d"].get<double>() == doctest::Approx(4.5));
  CHECK(out[0]["loss_gap_to_global_min"].get<double>() >= -1e-12);  // no flow goes below the global minimum
  CHECK(out[0].contains("flow"));
}

TEST_CASE("zfb Theorem 8 outside (21): the case's flow from sigma at the factor x the bound, one record") {
  FlowOptions opt;
  opt.grad_tol = 1e-8;
  opt.t_max = 1e5;
  opt.max_steps = 20000;
  const zfb::Thm8Case k = zfb::thm8_case(2, 2, 5, 0, 0.5, 11, 1, 2000);  // i.i.d. Uniform[0.5, 1.5] entries
  const nlohmann::ordered_json j = zfb::thm8_flow_outside(k, "a case", 2.0, opt);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"case", "distribution", "sigma_over_bound", "flow", "distance_flow_to_stated"});
  CHECK(j["case"] == "a case");
  CHECK(j["distribution"] == k.laws_label());
  CHECK(j["sigma_over_bound"] == 2.0);
  // Its starting point is Assumption 3's at twice the bound: the same flow run here ends where the record says.
  const zfb::ZfbFlow z = zfb::zfb_gradient_flow(k.pl, zfb::assumption3_init(2 * k.sigma_bound, k.theta), k.stated, opt);
  CHECK(j["distance_flow_to_stated"].get<double>() == zfb::relative_distance(z.end, k.stated));
  CHECK(j["flow"]["status"] == z.flow.to_json(false)["status"]);
}

}  // namespace test_zfb_cases
