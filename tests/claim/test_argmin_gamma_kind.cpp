// The argmin kind over a matrix (lib/icl/claim/kinds/argmin_gamma.hpp) on its own, with no claim: for x ~ N(0, I_d)
// the optimal sparse Gamma is known by hand, -n/(n+d+1) I (E[x x^T] = I, the fourth moments of a Gaussian), so a
// claim stating it is confirmed by the exact decision and one stating 1.5 x it is refuted; the case verdict's rule
// (both matrix checks refute, the loss check refutes, every check confirms, a further check joins) on decisions made
// up for it; the case's report, the run and the table.
#include "icl/claim/kinds/argmin_gamma.hpp"

#include "tests/support/claim_kind_support.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <string>

namespace test_argmin_gamma_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// Gamma = -scale n/(n+d+1) I, the isotropic optimum at scale 1.
argmin_gamma::Spec spec(double scale) {
  argmin_gamma::Spec s;
  s.checks = {Tolerance{0.05, 0.0}, Tolerance{1e-9, 1e-12}, 3};
  s.stated = [scale](const Eigen::MatrixXd& sigma, int n) {
    const auto d = static_cast<double>(sigma.rows());
    return Eigen::MatrixXd(-scale * n / (n + d + 1) * Eigen::MatrixXd::Identity(sigma.rows(), sigma.rows()));
  };
  s.stated_name = "stated block";
  s.layer = test::sparse_layer;
  s.summary = [](Verdict v, const argmin_gamma::Tally& t) {
    return std::string(to_string(v)) + " worst " + t.worst + " loss checks " + t.loss_checks;
  };
  return s;
}

ClaimContext context() {
  ClaimContext ctx;
  ctx.claim_id = "test.argmin_gamma";
  ctx.seed = 3;
  ctx.threads = 2;
  ctx.samples = 16384;
  ctx.cases = {Case{{{"d", 2.0}, {"cov", 0.0}, {"n", 10.0}}}};
  return ctx;
}

Decision said(Verdict v) { return Decision{v, 0, 0, to_string(v)}; }

argmin_gamma::CaseResult made_up(Verdict exact, Verdict fit, Verdict loss, Verdict general) {
  argmin_gamma::CaseResult k;
  k.matrix_exact = said(exact);
  k.fit.decision = said(fit);
  k.loss.verdict = said(loss);
  k.loss.verdict.basis = {"exact_vs_stated", "mc_vs_stated"};
  k.general = said(general);
  return k;
}

}  // namespace

TEST_CASE("argmin over Gamma: the isotropic optimum -n/(n+d+1) I is confirmed exactly, 1.5 x it refuted") {
  const ClaimContext ctx = context();
  ClaimRun r(ctx);
  const argmin_gamma::CaseResult k = argmin_gamma::compute(r, 0.01, ctx.cases[0], spec(1.0));
  CHECK(k.d == 2);
  CHECK(k.n == 10);
  INFO("exact:\n" << k.exact << "\nstated:\n" << k.stated);
  CHECK(k.rel < 1e-12);
  CHECK(k.matrix_exact.verdict == Verdict::confirmed);
  CHECK(k.matrix_exact.why.find("||Gamma* - stated block||_F") != std::string::npos);
  CHECK(k.loss_exact == doctest::Approx(k.loss_stated).epsilon(1e-12));
  CHECK(k.full.best.loss >= k.loss_exact * (1 - 1e-9));  // no full (P, Q) beats the sparse optimum
  CHECK(k.minimum <= k.loss_exact);
  CHECK(k.general.verdict != Verdict::refuted);
  CHECK(k.loss.verdict.verdict != Verdict::refuted);
  CHECK(k.fit.decision.verdict != Verdict::refuted);
  CHECK(r.looks() == 2 * k.loss.looks_planned);

  const argmin_gamma::CaseResult off = argmin_gamma::compute(r, 0.01, ctx.cases[0], spec(1.5));
  CHECK(off.rel == doctest::Approx(0.5));
  CHECK(off.matrix_exact.verdict == Verdict::refuted);
  CHECK(off.loss_stated > off.loss_exact);
}

TEST_CASE("argmin over Gamma: the case verdict's rule") {
  using V = Verdict;
  // Refuted where both matrix checks refute, or the loss check does.
  auto verdict = [](Verdict exact, Verdict fit, Verdict loss, Verdict general) {
    return argmin_gamma::case_verdict(made_up(exact, fit, loss, general), nullptr);
  };
  CHECK(verdict(V::refuted, V::refuted, V::confirmed, V::confirmed).verdict == V::refuted);
  CHECK(verdict(V::refuted, V::inconclusive, V::confirmed, V::confirmed).verdict == V::inconclusive);
  const Decision loss = verdict(V::confirmed, V::confirmed, V::refuted, V::confirmed);
  CHECK(loss.verdict == V::refuted);
  CHECK(loss.basis == std::vector<std::string>{"exact_vs_stated", "mc_vs_stated"});
  // Confirmed with a fit that is only not refuting; not with a search that did not confirm.
  const Decision ok = verdict(V::confirmed, V::inconclusive, V::confirmed, V::confirmed);
  CHECK(ok.verdict == V::confirmed);
  CHECK(ok.basis == std::vector<std::string>{"exact_vs_stated", "mc_vs_stated", "matrix_exact", "full_weights"});
  CHECK(verdict(V::confirmed, V::confirmed, V::confirmed, V::inconclusive).verdict == V::inconclusive);
  // A further check joins the rule, the basis and the evidence.
  argmin_gamma::Extra e{"trained", "Training", said(V::inconclusive), nullptr};
  const auto all = made_up(V::confirmed, V::confirmed, V::confirmed, V::confirmed);
  const Decision held = argmin_gamma::case_verdict(all, &e);
  CHECK(held.verdict == V::inconclusive);
  CHECK(held.why.find(" Training: inconclusive (inconclusive).") != std::string::npos);
  e.decision = said(V::confirmed);
  CHECK(argmin_gamma::case_verdict(all, &e).basis.back() == "trained");
}

TEST_CASE("argmin over Gamma: the run, its case record, the further check and the table") {
  const test::ScopedClaim reg("test.argmin_gamma");
  ClaimContext ctx = context();
  ctx.cases.push_back(Case{{{"d", 2.0}, {"cov", 0.0}, {"n", 20.0}}});
  argmin_gamma::Spec s = spec(1.0);
  int extras = 0, after = 0;
  s.extra = [&](const Case& c, const argmin_gamma::CaseResult&) -> std::optional<argmin_gamma::Extra> {
    if (c.geti("n") != 20) return std::nullopt;
    ++extras;
    return argmin_gamma::Extra{"own_check", "Own", said(Verdict::confirmed),
                               [](CaseJson& j) { j.quantity("own_quantity", 1.0); }};
  };
  s.after_cases = [&](ClaimRun&) { ++after; };
  const ClaimResult res = argmin_gamma::run_claim(ctx, s);
  CHECK(extras == 1);
  CHECK(after == 1);
  REQUIRE(res.cases.size() == 2);
  const auto& q = res.cases[0]["quantities"];
  std::vector<std::string> keys;
  for (const auto& [k, v] : q.items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"stated", "exact", "mc", "exact_sparse_optimum", "general_best",
                                          "stated_matrix", "exact_matrix", "mc_matrix", "mc_matrix_stderr",
                                          "matrix_relative_difference", "sigma"});
  CHECK(res.cases[0]["covariance"] == "isotropic");
  CHECK(res.cases[0].contains("general_search"));
  CHECK(res.cases[0]["decisions"].contains("matrix_mc"));
  CHECK_FALSE(res.cases[0]["decisions"].contains("own_check"));
  CHECK(res.cases[1]["quantities"].contains("own_quantity"));
  CHECK(res.cases[1]["decisions"].contains("own_check"));
  CHECK(res.summary.find("worst d=2, cov=0, n=") != std::string::npos);
  CHECK(res.summary.find("loss checks ") != std::string::npos);

  const ClaimTable t = argmin_gamma::table("Theorem~9", "A title", "$M$");
  REQUIRE(t.columns.size() == 4);
  CHECK(t.columns[3].meaning == "relative difference, stated vs.\\ exact $M$");
  CHECK(t.where == "Theorem~9");
}

}  // namespace test_argmin_gamma_kind
