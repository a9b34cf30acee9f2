// sja.lemma3 — Sun, Jadbabaie, Azizan (000), Lemma 3 and Appendix D.
//
// Statement: the C(d+2,2) variables v_ij of (8) — 1, x_j, (x_i^2 - 1)/sqrt(2), x_i x_j (i < j) — are
// orthonormal under <u, v> = E[uv], x ~ N(0, I_d).
//
// stated  the identity matrix.
// exact   the Gram matrix from exact rational Gaussian moments: v_a = s_a * p_a with p_a a polynomial
//         with integer coefficients and s_a^2 in {1, 1/2}, so G_ab = s_a s_b E[p_a p_b] is decided
//         exactly (diagonal: s_a^2 E[p_a^2] == 1; off-diagonal: E[p_a p_b] == 0, in rationals).
// mc      the Gram matrix estimated from samples of x; `mc` is the entry farthest from the identity
//         (in standard errors); every entry is judged with the error budget split over entries.
#include "constructions/sja_appC.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/model/rng.hpp"
#include "icl/verdict/checks.hpp"

namespace icl {
namespace {
namespace sja_lemma3 {  // named, so that a unity build (several claim files in one unit) keeps them apart

const Tolerance kTol{0.0, 0.03};

// Exact: the rational Gram matrix of the unnormalised polynomials, scaled (G), and whether it is the identity
// (exact_fail: the first entry that is not).
bool exact_gram(int d, const sja::OrthonormalFeatures& f, Eigen::MatrixXd& G, std::string& exact_fail) {
  const int m = static_cast<int>(f.unnormalised.size());
  const auto one = Polynomial<Rational>::constant(d, Rational(1));
  const auto raw = moment_matrix(f.unnormalised, f.unnormalised, one);
  bool exact_orthonormal = true;
  G.resize(m, m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) {
      const bool ok = a == b ? raw[a][a] * f.scale_squared[a] == Rational(1) : raw[a][b] == Rational(0);
      if (!ok && exact_fail.empty())
        exact_fail = fmt::format("<{}, {}> = {}", f.names[a], f.names[b],
                                 to_double(raw[a][b]) * std::sqrt(to_double(f.scale_squared[a] * f.scale_squared[b])));
      exact_orthonormal &= ok;
      G(a, b) = to_double(raw[a][b]) * std::sqrt(to_double(f.scale_squared[a]) * to_double(f.scale_squared[b]));
    }
  return exact_orthonormal;
}

// Monte Carlo: the Gram matrix (upper triangle of v v^T) with every entry judged against the identity's.
struct McGram {
  Eigen::MatrixXd Ghat, Gse;
  Verdict verdict = Verdict::inconclusive;
  Estimate worst;  // the entry farthest from the identity's, in standard errors
  std::string why;
};

McGram mc_gram(const ClaimContext& ctx, ClaimRun& r, const Case& c, const sja::OrthonormalFeatures& f,
               double alpha_case) {
  const int d = c.geti("d");
  const int m = static_cast<int>(f.unnormalised.size());
  const int dims = m * (m + 1) / 2;
  const std::uint64_t purpose = ctx.purpose(c.label());
  auto make_worker = [&] {
    return [d, m, seed = ctx.seed, purpose, x = std::vector<double>(d), v = std::vector<double>(m)](
               std::uint64_t i, double* out) mutable {
      PromptRng rng(seed, purpose, i);
      for (auto& xi : x) xi = rng.normal();
      sja::evaluate_orthonormal_features(d, x.data(), v.data());
      int k = 0;
      for (int a = 0; a < m; ++a)
        for (int b = a; b < m; ++b) out[k++] = v[a] * v[b];
    };
  };
  // Looks double up to ctx.samples and, while some entry is still undecided, on up to 4x (budget moved to the
  // cases that need it; every planned look shares alpha_case, so the error rates hold either way).
  auto looks = sequential_looks(16384, ctx.samples);
  for (std::uint64_t n = 2 * ctx.samples; n <= 4 * ctx.samples && ctx.samples > 0; n *= 2) looks.push_back(n);
  r.note_looks(looks.size());
  const double alpha_entry = alpha_case / static_cast<double>(looks.size()) / dims;
  MonteCarlo mc(dims, ctx.threads);
  McGram g;
  g.Ghat.resize(m, m);
  g.Gse.resize(m, m);
  std::string worst_name;
  for (auto n : looks) {
    mc.extend_to(n, make_worker);
    const Accumulator acc = mc.total();
    int k = 0, refuted = 0, confirmed = 0;
    double worst_z = -1;
    for (int a = 0; a < m; ++a)
      for (int b = a; b < m; ++b, ++k) {
        const Estimate e = make_estimate(acc, k, 1 - alpha_entry);
        g.Ghat(a, b) = g.Ghat(b, a) = e.mean;
        g.Gse(a, b) = g.Gse(b, a) = e.stderr_;
        const double target = a == b ? 1.0 : 0.0;
        const Decision dec = judge_mc_equal(e, target, kTol, alpha_entry);
        refuted += dec.verdict == Verdict::refuted;
        confirmed += dec.verdict == Verdict::confirmed;
        const double z = std::abs(e.mean - target) / e.stderr_;
        if (z > worst_z) {
          worst_z = z;
          g.worst = e;
          worst_name = fmt::format("<{}, {}>", f.names[a], f.names[b]);
        }
      }
    g.verdict = refuted ? Verdict::refuted : (confirmed == dims ? Verdict::confirmed : Verdict::inconclusive);
    g.why = fmt::format("{} of {} Gram entries within ±{} of the identity at {} samples ({} outside); farthest {} = "
                        "{:.4f} ± {:.4f}",
                        confirmed, dims, kTol.abs, acc.count, refuted, worst_name, g.worst.mean,
                        (g.worst.ci_high - g.worst.ci_low) / 2);
    if (g.verdict != Verdict::inconclusive) break;
  }
  return g;
}

ClaimResult run(const ClaimContext& ctx) {
  ClaimRun r(ctx);
  const double alpha_case = r.split_alpha(ctx.cases.size());
  for (const auto& c : ctx.cases) {
    const int d = c.geti("d");
    const auto f = sja::orthonormal_features(d);
    const int m = static_cast<int>(f.unnormalised.size());
    Eigen::MatrixXd G;
    std::string exact_fail;
    const bool exact_orthonormal = exact_gram(d, f, G, exact_fail);
    const McGram g = mc_gram(ctx, r, c, f, alpha_case);
    Decision exact_dec{exact_orthonormal ? Verdict::confirmed : Verdict::refuted, 0, 0,
                       exact_orthonormal ? fmt::format("exact rational Gram matrix of all {} variables is the identity", m)
                                         : "exact Gram matrix is not the identity: " + exact_fail};
    Decision mc_dec{g.verdict, kTol.abs, 0, g.why};
    const Decision v = combine_equality(exact_dec, mc_dec, std::nullopt);
    CaseJson j(c);
    j.quantity("stated", Eigen::MatrixXd::Identity(m, m));
    j.quantity("exact", G);
    j.quantity("mc", g.worst);
    j.quantity("mc_gram", g.Ghat);
    j.quantity("mc_gram_stderr", g.Gse);
    j.field("variables", f.names);
    j.verdict(v);
    j.decision("exact_vs_stated", exact_dec);
    j.decision("mc_vs_stated", mc_dec);
    r.add_case(j);
  }
  r.error_rates(kTol);
  auto& er = r.extra("error_rates");
  er["split"] = er["split"].get<std::string>() + ", and over the C(m+1,2) Gram entries";
  return r.finish([&](Verdict v) {
    if (v != Verdict::confirmed)
      return fmt::format("{}: Monte Carlo Gram matrix against the identity (within ±{} per entry): {}.", to_string(v),
                         kTol.abs, tally_decisions(r.cases(), "mc_vs_stated"));
    return fmt::format("{}: the exact Gram matrix of the v_ij is the identity for d = {}..{} (rational arithmetic); "
                       "Monte Carlo places every entry within ±{} of the identity.",
                       to_string(v), ctx.cases.front().geti("d"), ctx.cases.back().geti("d"), kTol.abs);
  });
}

// The layout of the claim's LaTeX table (report/table.hpp).
ClaimTable table_layout() {
  return {TableKind::identity,
          "Lemma~3",
          "The $\\binom{d+2}{2}$ variables $v_{ij}$ are orthonormal",
          {{"mc", "MC worst entry", "the Gram entry farthest from the identity's, by Monte Carlo"}}};
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
    .table = table_layout()}};

}  // namespace sja_lemma3
}  // namespace
}  // namespace icl
