// The sequential equality on the conditional Monte Carlo estimator (lib/icl/verdict/conditional_equality.hpp), on a
// single masked sparse LSA over the linear task whose loss the library integrates exactly: the exact loss is
// confirmed as a stated value, a stated value 30% off is refuted, and the estimator reports a variance reduction
// above 1 and a linearity check at rounding level; against bounds, alone and with the exact loss beside them.
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/tasks.hpp"
#include "icl/verdict/conditional_equality.hpp"
#include "tests/support/sparse_lsa_stack.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_conditional_equality {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("conditional equality: a sparse LSA's exact loss confirmed, a wrong value refuted, the estimator's checks") {
  const int d = 2, n = 10;
  const test::SparseLsaStack st = test::sparse_lsa_stack(d, n);
  const Transformer &features = st.features, &attention = st.attention;
  const GaussianIclModel& model = st.model;
  const Eigen::MatrixXd Psi = query_moment_matrix(model, st.query_features);
  const double exact = st.exact;
  SamplingPlan plan;
  plan.seed = 5;
  plan.threads = 2;
  plan.samples = 65536;
  const Tolerance tol{0.05, 0.0}, exact_tol{1e-9, 1e-12};
  const EqualityLooks looks{2048, 8192, true, 4 * plan.samples};
  const ConditionalEquality ok = conditional_equality(plan, 0.01, exact, exact, tol, exact_tol, features, attention, model,
                                                      Psi, acds_shape(d, n), 1, looks);
  CHECK(ok.o.verdict.verdict == Verdict::confirmed);
  CHECK(ok.o.mc_vs_exact->verdict == Verdict::confirmed);
  CHECK(ok.variance_reduction > 1.0);
  CHECK(ok.linearity_rms < 1e-10);
  const ConditionalEquality off = conditional_equality(plan, 0.01, 1.3 * exact, exact, tol, exact_tol, features,
                                                       attention, model, Psi, acds_shape(d, n), 1, looks);
  CHECK(off.o.verdict.verdict == Verdict::refuted);
  CHECK(off.o.mc.mean == ok.o.mc.mean);  // the same prompts: only the stated value differs

  // The same estimator against bounds: the exact loss 30% above the stated lower bound confirms it, 30% below refutes it.
  const ConditionalBound lower = conditional_bound(plan, 0.01, BoundKind::lower, 0.7 * exact, tol, features, attention,
                                                   model, Psi, acds_shape(d, n), 1);
  CHECK(lower.o.decision.verdict == Verdict::confirmed);
  CHECK(lower.o.looks_planned == 6);  // 2048, 4096, ..., 65536
  CHECK(lower.o.mc.samples >= 8192);
  CHECK(lower.linearity_rms < 1e-10);
  CHECK(std::abs(lower.plain.mean - exact) < 5 * lower.plain.stderr_);  // the plain squared error, same prompts
  CHECK(lower.plain.confidence == lower.o.mc.confidence);
  CHECK(lower.plain.stderr_ > lower.o.mc.stderr_);  // conditioning on the context reduces the variance
  const ConditionalBound above = conditional_bound(plan, 0.01, BoundKind::lower, 1.3 * exact, tol, features,
                                                   attention, model, Psi, acds_shape(d, n), 1);
  CHECK(above.o.decision.verdict == Verdict::refuted);
  CHECK(conditional_bound(plan, 0.01, BoundKind::upper, 1.3 * exact, tol, features, attention, model, Psi,
                          acds_shape(d, n), 1)
            .o.decision.verdict == Verdict::confirmed);

  // Against a lower bound with the exact loss beside it: the bound 30% below is confirmed and the exact loss too (3%);
  // with a loose band on the exact loss both are decided early and the looks stop (on 8192 prompts at the earliest);
  // a bound 30% above is refuted.
  const ConditionalBoundWithExact with = conditional_lower_bound_with_exact(
      plan, 0.01, 0.7 * exact, tol, exact, Tolerance{0.03, 0.0}, features, attention, model, Psi, acds_shape(d, n), 1);
  CHECK(with.mc_vs_stated.verdict == Verdict::confirmed);
  CHECK(with.mc_vs_exact.verdict == Verdict::confirmed);
  CHECK(with.looks_planned == 6);
  CHECK(with.mc_plain.confidence == with.mc.confidence);
  CHECK(with.linearity_rms < 1e-10);
  const ConditionalBoundWithExact early = conditional_lower_bound_with_exact(
      plan, 0.01, 0.7 * exact, tol, exact, Tolerance{0.5, 0.0}, features, attention, model, Psi, acds_shape(d, n), 1);
  CHECK(early.looks_used < early.looks_planned);
  CHECK(early.mc.samples >= 8192);
  CHECK(early.mc.samples < with.mc.samples);
  const ConditionalBoundWithExact broken = conditional_lower_bound_with_exact(
      plan, 0.01, 1.3 * exact, tol, exact, Tolerance{0.03, 0.0}, features, attention, model, Psi, acds_shape(d, n), 1);
  CHECK(broken.mc_vs_stated.verdict == Verdict::refuted);
  CHECK(broken.mc.mean == with.mc.mean);  // the same prompts and looks: only the bound differs

  VarianceReductionRange range;
  range.add(3.0);
  range.add(12.0);
  range.add(7.0);
  CHECK(range.min == 3.0);
  CHECK(range.max == 12.0);
  CHECK(range.to_json()["factor_max"] == 12.0);
}

}  // namespace test_conditional_equality
