// The equality kind on the conditional Monte Carlo estimator (lib/icl/claim/kinds/estimator_equality.hpp) on its own,
// with no claim: a single masked sparse LSA over the linear task, whose loss the library integrates exactly, run as
// two cases (the exact loss stated: confirmed; 30% above it: refuted); the case's keys in the kind's order around the
// claim's own, the error-rate and variance-reduction blocks, the summary's named arguments, and the kind's table.
#include "icl/claim/kinds/estimator_equality.hpp"
#include "tests/support/claim_kind_support.hpp"
#include "tests/support/sparse_lsa_stack.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace test_estimator_equality_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("estimator equality kind: the cases, their keys, the blocks after them and the summary") {
  const test::ScopedClaim claim("test.estimator_equality_kind");
  ClaimContext ctx;
  ctx.claim_id = claim.id;
  ctx.seed = 5;
  ctx.threads = 2;
  ctx.samples = 65536;
  ctx.cases = {Case{{{"off", 1.0}}}, Case{{{"off", 1.3}}}};
  const int d = 2, n = 10;
  const test::SparseLsaStack st = test::sparse_lsa_stack(d, n);
  const estimator_equality::Stack stack{st.features, st.attention, st.model, st.query_features, acds_shape(d, n)};
  const double exact = st.exact;

  estimator_equality::Spec spec{.exact_tol = {1e-9, 1e-12}, .error_rates = {0.05, 0.0}};  // and the fields below
  spec.error_rates_text = "5% relative";
  spec.at = [&](const Case& c, CaseJson& j) -> estimator_equality::Setting {
    j.field("setting", "linear task");
    return {.stated = c.get("off") * exact,
            .exact = exact,
            .tol = {0.05, 0.0},
            .stack = stack,
            .looks = {2048, 8192, true, 4 * ctx.samples},
            .quantities = [](CaseJson& j) { j.quantity("own", 7.0); }};
  };
  spec.after_cases = [](ClaimRun& r) {
    r.part("a").on_refuted(Refutation{RefutationClass::slip, "the second case", {}, ""});  // a claim's refutation
  };
  spec.summary = "{verdict}: {confirmed} of {cases}; exact {exact_checks}; Monte Carlo {mc_checks}.";
  const ClaimResult res = estimator_equality::run_claim(ctx, spec);
  REQUIRE(res.cases.size() == 2);
  CHECK(res.cases[0]["verdict"] == "confirmed");
  CHECK(res.cases[1]["verdict"] == "refuted");
  const auto& q = res.cases[0]["quantities"];
  std::vector<std::string> keys;
  for (auto it = q.begin(); it != q.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"stated", "exact", "mc", "variance_reduction", "linearity_rms", "own"});
  CHECK(q["variance_reduction"]["value"].get<double>() > 1.0);
  CHECK(q["linearity_rms"]["value"].get<double>() < 1e-10);
  CHECK(res.cases[0]["setting"] == "linear task");
  CHECK(res.cases[0]["tolerance"] == tolerance_text(Tolerance{0.05, 0.0}));
  CHECK(res.cases[0]["decisions"].contains("exact_vs_stated"));
  CHECK(res.extra["error_rates"]["tolerance"] == "5% relative");
  CHECK(res.extra["variance_reduction"]["factor_min"].get<double>() > 1.0);
  CHECK(res.summary.rfind("refuted: 1 of 2; exact ", 0) == 0);
  CHECK(res.summary.find("; Monte Carlo ") != std::string::npos);

  const ClaimTable t = estimator_equality::table("Lemma~1", "A title", {{"setting", "Setting"}},
                                                 {{"setting", {{"a", "$a$"}}}});
  CHECK(t.kind == TableKind::equality);
  REQUIRE(t.columns.size() == 3);
  CHECK(t.columns[0].quantity == "stated");
  CHECK(t.columns[2].quantity == "mc");
  CHECK(t.param_headers.at("setting") == "Setting");
  CHECK(t.param_values.at("setting").at("a") == "$a$");
}

}  // namespace test_estimator_equality_kind
