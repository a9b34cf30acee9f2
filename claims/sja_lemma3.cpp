// sja.lemma3 — Sun, Jadbabaie, Azizan (000), Lemma 3 and Appendix D.
//
// Statement: the C(d+2,2) variables v_ij of (8) — 1, x_j, (x_i^2 - 1)/sqrt(2), x_i x_j (i < j) — are
// orthonormal under <u, v> = E[uv], x ~ N(0, I_d).
//
// A claim of the Gram kind (lib/icl/claim/kinds/gram.hpp), per case d:
// stated  the identity matrix.
// exact   the Gram matrix from exact rational Gaussian moments (constructions/sja_appC.hpp orthonormal_gram):
//         v_a = s_a * p_a with p_a a polynomial with integer coefficients and s_a^2 in {1, 1/2}, so
//         G_ab = s_a s_b E[p_a p_b] is decided exactly (diagonal: s_a^2 E[p_a^2] == 1; off-diagonal:
//         E[p_a p_b] == 0, in rationals).
// mc      the Gram matrix estimated from samples of x; `mc` is the entry farthest from the identity
//         (in standard errors); every entry is judged within ±0.03 with the error budget split over entries.
#include "constructions/sja_appC.hpp"
#include "icl/claim/kinds/gram.hpp"

#include <fmt/format.h>

namespace icl::sja_lemma3 {  // its own namespace: a unity build (several claim files in one unit) keeps them apart

ClaimResult run(const ClaimContext& ctx) {
  gram::Spec s{.band = 0.03, .stated_name = "the identity", .exact_name = "exact rational Gram matrix"};
  s.at = [](const Case& c) {
    const int d = c.geti("d");
    const auto f = sja::orthonormal_features(d);
    const auto exact = sja::orthonormal_gram(d, f);
    const auto m = static_cast<Eigen::Index>(f.names.size());
    return gram::CaseSpec{.names = f.names,
                          .stated = Eigen::MatrixXd::Identity(m, m),
                          .exact = exact.gram,
                          .exact_equal = exact.identity,
                          .exact_failure = exact.first_failure,
                          .inputs = d,  // Monte Carlo: the v_ij at x ~ N(0, I_d)
                          .variables = [d](const double* x, double* v) {
                            sja::evaluate_orthonormal_features(d, x, v);
                          }};
  };
  s.confirmed = [&] {
    return fmt::format("the exact Gram matrix of the v_ij is the identity for d = {}..{} (rational arithmetic); Monte "
                       "Carlo places every entry within ±{} of the identity.",
                       ctx.cases.front().geti("d"), ctx.cases.back().geti("d"), s.band);
  };
  return gram::run(ctx, s);
}

const RegisterClaim reg{Claim{
    .id = "sja.lemma3",
    .title = "The C(d+2,2) variables v_ij are orthonormal",
    .source = "Sun, Jadbabaie and Azizan (2025), Lemma 3 and Appendix D",
    .statement = "The C(d+2,2) variables v_ij of (8) - 1, x_j, (x_i^2 - 1)/sqrt(2), x_i x_j (i < j) - are orthonormal under "
    "<u, v> = E[uv], x ~ N(0, I_d).",
    .params = {ParamSpec{"d", {1, 2, 3, 4, 5, 6}, {1, 2, 3}, 1, 12, true, "input dimension"}},
    .default_samples = 1000000,
    .quick_samples = 524288,  // --quick: enough for every Gram entry to decide within +/- 0.03 (65536 did not)
    .memory_bytes = [](const Case& c, int threads) {
      const double m = sja::kernel_width(c.geti("d"));
      return 8.0 * m * m * (threads + 64);
    },
    .run = run,
    .parts = {PartSpec{"a", "The C(d+2,2) variables v_ij of (8) are orthonormal under <u, v> = E[uv], x ~ N(0, I_d).",
              Strength::theorem}},
    .table = gram::table("Lemma~3", "The $\\binom{d+2}{2}$ variables $v_{ij}$ are orthonormal", "the identity")}};

}  // namespace icl::sja_lemma3
