// The Gram kind (lib/icl/claim/kinds/gram.hpp) on its own, with no claim: Monte Carlo of E[v v^T], x ~ N(0, I),
// confirms a vector whose Gram matrix is the stated one, refutes one whose Gram matrix is not, is inconclusive on a
// budget too small to decide, and gives the same numbers whatever the thread count; the exact decision says what the
// claim decided.
#include "icl/claim/kinds/gram.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

namespace test_gram_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// v = (x_0, x_1, (x_0^2 - 1)/sqrt(2)) at x ~ N(0, I_2): orthonormal, so E[v v^T] = I.
gram::CaseSpec orthonormal() {
  gram::CaseSpec k;
  k.names = {"a", "b", "c"};
  k.stated = Eigen::MatrixXd::Identity(3, 3);
  k.exact = k.stated;
  k.exact_equal = true;
  k.inputs = 2;
  k.variables = [](const double* x, double* v) {
    v[0] = x[0];
    v[1] = x[1];
    v[2] = (x[0] * x[0] - 1) / std::sqrt(2.0);
  };
  return k;
}

gram::Spec spec(double band) { return gram::Spec{.band = band, .stated_name = "the identity"}; }

SamplingPlan plan(std::uint64_t samples, int threads = 2) { return SamplingPlan{7, threads, samples}; }

}  // namespace

TEST_CASE("gram kind: an orthonormal vector's Monte Carlo Gram matrix is confirmed against the identity") {
  const gram::CaseSpec k = orthonormal();
  const gram::Sampled g = gram::monte_carlo(plan(65536), 3, k, spec(0.05), 0.01);
  CHECK(g.verdict == Verdict::confirmed);
  CHECK(g.looks_planned == 5);  // 16384, 32768, 65536, then 2x and 4x the budget
  REQUIRE(g.mean.rows() == 3);
  CHECK((g.mean - Eigen::MatrixXd::Identity(3, 3)).cwiseAbs().maxCoeff() < 0.05);
  CHECK(g.mean.isApprox(g.mean.transpose(), 0));  // symmetric
  CHECK(g.stderr_(2, 2) > 0);
  CHECK(g.why.find("6 of 6 Gram entries within ±0.05 of the identity") == 0);
  const Decision exact = gram::exact_decision(k, spec(0.05));
  CHECK(exact.verdict == Verdict::confirmed);
  CHECK(exact.why == "exact Gram matrix of all 3 variables is the identity");
}

TEST_CASE("gram kind: a scaled coordinate's Gram matrix is refuted against the identity, at the entry that differs") {
  gram::CaseSpec k = orthonormal();
  k.variables = [](const double* x, double* v) {
    v[0] = x[0];
    v[1] = 2 * x[1];  // E[v_1^2] = 4
    v[2] = (x[0] * x[0] - 1) / std::sqrt(2.0);
  };
  k.exact_equal = false;
  k.exact_failure = "<b, b> = 4";
  const gram::Sampled g = gram::monte_carlo(plan(65536), 3, k, spec(0.05), 0.01);
  CHECK(g.verdict == Verdict::refuted);
  CHECK(std::abs(g.mean(1, 1) - 4) < 0.2);
  CHECK(std::abs(g.worst.mean - g.mean(1, 1)) == 0);  // the farthest entry is the scaled one
  CHECK(g.why.find("(1 outside); farthest <b, b> = ") != std::string::npos);
  const Decision exact = gram::exact_decision(k, spec(0.05));
  CHECK(exact.verdict == Verdict::refuted);
  CHECK(exact.why == "exact Gram matrix is not the identity: <b, b> = 4");
}

TEST_CASE("gram kind: a budget too small to decide is inconclusive, after every planned look") {
  const gram::Sampled g = gram::monte_carlo(plan(512), 3, orthonormal(), spec(0.03), 0.01);
  CHECK(g.verdict == Verdict::inconclusive);
  // The last look is 4x the budget: 2048 prompts.
  CHECK(g.why.find("at 2048 samples (0 outside)") != std::string::npos);
  CHECK(g.why.find("of 6 Gram entries") != std::string::npos);
  CHECK(g.why.find("6 of 6") == std::string::npos);
}

TEST_CASE("gram kind: the same seed gives the same numbers whatever the thread count; another purpose, others") {
  const gram::CaseSpec k = orthonormal();
  const gram::Sampled one = gram::monte_carlo(plan(16384, 1), 3, k, spec(0.05), 0.01);
  const gram::Sampled four = gram::monte_carlo(plan(16384, 4), 3, k, spec(0.05), 0.01);
  CHECK(one.mean == four.mean);
  CHECK(one.stderr_ == four.stderr_);
  CHECK(one.why == four.why);
  const gram::Sampled other = gram::monte_carlo(plan(16384, 1), 4, k, spec(0.05), 0.01);
  CHECK(other.mean != one.mean);
}

TEST_CASE("gram kind: its table names the stated matrix") {
  const ClaimTable t = gram::table("Lemma~1", "A caption", "the identity");
  CHECK(t.kind == TableKind::identity);
  CHECK(t.where == "Lemma~1");
  REQUIRE(t.columns.size() == 1);
  CHECK(t.columns[0].quantity == "mc");
  CHECK(t.columns[0].meaning == "the Gram entry farthest from the identity's, by Monte Carlo");
}

}  // namespace test_gram_kind
