// The family-argmin kind (lib/icl/claim/kinds/family_argmin.hpp) on its own, with no claim. The decision on made-up
// searches: equal within the band confirms (or, with the general search still improving, is inconclusive), a gap
// beyond refute_gap refutes, a gap below it or searches without a converged start are inconclusive. The run on a toy
// whose answer is known by hand: the single sparse layer Gamma over diagonal Gamma (general) and Gamma = t I
// (restricted), x ~ N(0, Sigma); for Sigma = I the optimum is -n/(n+d+1) I, scalar, so the restricted family holds
// it (confirmed), while for Sigma = diag(1/2, 2) the optimal Gamma is not scalar (refuted).
#include "icl/claim/kinds/family_argmin.hpp"

#include "icl/exact/feature_moments.hpp"
#include "icl/exact/sparse_attention.hpp"

#include "tests/support/claim_kind_support.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

namespace test_family_argmin_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

family_argmin::Spec names_only() {
  family_argmin::Spec s;
  s.names = {"full", "scalar", "layer"};
  s.rule = {.equal_rel = 1e-10, .equal_abs = 1e-14, .refute_gap = 1e-8, .mc = Tolerance{0.10, 0.0}};
  s.starts = 4;
  return s;
}

family_argmin::Searches made_up(double general, double restricted, bool improving) {
  family_argmin::Searches f;
  f.general.best.loss = general;
  f.restricted.best.loss = restricted;
  f.general.converged = f.restricted.converged = 4;
  f.general.search.still_improving = improving;
  return f;
}

Eigen::MatrixXd gamma_of(const Eigen::VectorXd& theta, int d) {
  return theta.size() == 1 ? Eigen::MatrixXd(theta[0] * Eigen::MatrixXd::Identity(d, d))
                           : Eigen::MatrixXd(theta.asDiagonal());
}

Transformer sparse_network(const Eigen::MatrixXd& gamma) {
  Transformer t;
  t.layers.emplace_back(test::sparse_layer(gamma));
  return t;
}

// The toy's searches: the exact sparse-layer loss (a quadratic in Gamma; its gradient by central differences, exact
// for a quadratic up to rounding) over diagonal Gamma and over t I, from the zero start and two others.
family_argmin::Searches toy(const Case& c, const ClaimContext& ctx) {
  const int d = c.geti("d"), n = c.geti("n");
  family_argmin::Searches f;
  f.model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, c.geti("cov")));
  f.shape = acds_shape(d, n);
  const FeatureMoments fm = model_feature_moments(f.model, identity_features(d));
  auto search = [&](Eigen::Index size, const std::string& tag) {
    const learn::Objective loss = [&](const Eigen::Ref<const Eigen::VectorXd>& t, Eigen::VectorXd& g) {
      g.resize(t.size());
      for (Eigen::Index i = 0; i < t.size(); ++i) {
        Eigen::VectorXd up = t, down = t;
        up[i] += 1e-3;
        down[i] -= 1e-3;
        g[i] = (sparse_lsa_loss(fm, gamma_of(up, d), n) - sparse_lsa_loss(fm, gamma_of(down, d), n)) / 2e-3;
      }
      return sparse_lsa_loss(fm, gamma_of(t, d), n);
    };
    std::vector<std::pair<std::string, Eigen::VectorXd>> starts;
    starts.emplace_back("zero", Eigen::VectorXd::Zero(size));
    starts.emplace_back("minus", Eigen::VectorXd::Constant(size, -1.0));
    starts.emplace_back("plus", Eigen::VectorXd::Constant(size, 0.5));
    StartsOptions o;
    o.converged_gradient = 1e-7;
    return minimize_from_starts(loss, std::move(starts), o, ctx.seed, ctx.purpose(c.label() + tag));
  };
  f.general = search(d, "/full");
  f.restricted = search(1, "/scalar");
  f.restricted_network = [d](const Eigen::VectorXd& theta) { return sparse_network(gamma_of(theta, d)); };
  return f;
}

}  // namespace

TEST_CASE("family argmin: the decision") {
  const family_argmin::Spec s = names_only();
  const Decision ok = family_argmin::decide(s, made_up(2.0, 2.0 * (1 + 1e-12), false), true, 1e-12);
  CHECK(ok.verdict == Verdict::confirmed);
  CHECK(ok.band == 1e-10);
  CHECK(ok.why.find(" vs best full layer 2 (relative gap 1.0e-12 <= 1e-10; 4 and 4 of 4 starts converged); full ") !=
        std::string::npos);
  CHECK(ok.why.rfind("best scalar layer 2.000000000002", 0) == 0);
  CHECK(family_argmin::decide(s, made_up(2.0, 2.0, true), true, 0.0).verdict == Verdict::inconclusive);
  const Decision beaten = family_argmin::decide(s, made_up(2.0, 2.2, false), true, 0.1);
  CHECK(beaten.verdict == Verdict::refuted);
  CHECK(beaten.why == "a full layer (2) beats every scalar layer found (2.2): relative gap 1.00e-01");
  CHECK(family_argmin::decide(s, made_up(2.0, 2.0 * (1 + 1e-9), false), true, 1e-9).verdict == Verdict::inconclusive);
  const Decision none = family_argmin::decide(s, made_up(2.0, 2.0, false), false, 0.0);
  CHECK(none.verdict == Verdict::inconclusive);
  CHECK(none.why == "no start converged (full 4/4, scalar 4/4)");
}

TEST_CASE("family argmin: the run on the sparse layer, Gamma = t I among diagonal Gamma") {
  ClaimContext ctx;
  ctx.claim_id = "test.family_argmin";
  ctx.seed = 5;
  ctx.threads = 2;
  ctx.samples = 32768;
  ctx.cases = {Case{{{"d", 2.0}, {"cov", 0.0}, {"n", 10.0}}}, Case{{{"d", 2.0}, {"cov", 1.0}, {"n", 10.0}}}};
  const test::ScopedClaim reg("test.family_argmin");
  family_argmin::Spec s = names_only();
  s.starts = 3;
  s.search = [&](const Case& c) { return toy(c, ctx); };
  s.look = [](const Case&, const family_argmin::Searches& f, bool) {
    return family_argmin::Look{"Best full layer: " + std::to_string(f.general.best.theta.size()) + " entries",
                               [](CaseJson& j) { j.quantity("own", 1.0); }, f.general.best.theta.norm()};
  };
  s.refutation = Refutation{RefutationClass::substantive, "a full layer beats every scalar one", {}, ""};
  s.findings = [](const family_argmin::Tally& t) {
    return std::vector<std::string>{std::to_string(t.first_start_worse)};
  };
  s.summary = [](Verdict v, const family_argmin::Tally& t) { return std::string(to_string(v)) + " worst " + t.worst; };
  const ClaimResult res = family_argmin::run_claim(ctx, s);
  REQUIRE(res.cases.size() == 2);
  const auto& iso = res.cases[0];
  INFO(iso.dump(1));
  CHECK(iso["verdict"] == "confirmed");
  CHECK(iso["quantities"]["relative_gap"]["value"].get<double>() < 1e-10);
  CHECK(iso["decisions"]["loss_mc_vs_exact"]["verdict"] == "confirmed");
  CHECK(iso["decisions"]["scalar_is_global"]["verdict"] == "confirmed");
  CHECK(iso["decisions"]["full_start_losses"].size() == 3);
  CHECK(iso["quantities"].contains("scalar_best"));
  CHECK(iso["quantities"].contains("own"));
  CHECK(iso.contains("search_full"));
  CHECK(iso.contains("search_scalar"));
  CHECK(iso["evidence"].get<std::string>().find(". Best full layer: 2 entries. Loss of the best scalar layer: ") !=
        std::string::npos);
  // Sigma = diag(1/2, 2): the optimal Gamma is not scalar, and the scalar family's best is beaten.
  const auto& diag = res.cases[1];
  INFO(diag.dump(1));
  CHECK(diag["verdict"] == "refuted");
  CHECK(diag["quantities"]["relative_gap"]["value"].get<double>() > 1e-8);
  CHECK(res.summary == "refuted worst d=2, cov=1, n=10");
  CHECK(res.extra["findings"].size() == 1);
  CHECK(res.parts.at("a").refutation.has_value());
}

}  // namespace test_family_argmin_kind
