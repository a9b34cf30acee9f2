#include "icl/verdict/decision.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace icl {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::confirmed: return "confirmed";
    case Verdict::refuted: return "refuted";
    default: return "inconclusive";
  }
}

Verdict verdict_from_string(const std::string& s) {
  if (s == "confirmed") return Verdict::confirmed;
  if (s == "refuted") return Verdict::refuted;
  if (s == "inconclusive") return Verdict::inconclusive;
  throw std::invalid_argument("unknown verdict '" + s + "' (confirmed, refuted, inconclusive)");
}

double Tolerance::band(double target) const { return std::max(rel * std::abs(target), abs); }

std::string tolerance_text(const Tolerance& tol) {
  if (tol.abs > 0 && tol.rel > 0) return fmt::format("max({:g} relative, {:g} absolute)", tol.rel, tol.abs);
  if (tol.abs > 0) return fmt::format("{:g} absolute", tol.abs);
  return fmt::format("{:g} relative", tol.rel);
}

static double detectable(const Estimate& e, double band, double alpha, double beta, bool two_sided) {
  const double za = normal_quantile(1 - (two_sided ? alpha / 2 : alpha));
  return band + (za + normal_quantile(1 - beta)) * e.stderr_;
}

Decision judge_mc_equal(const Estimate& e, double target, const Tolerance& tol, double alpha, double beta) {
  Decision d;
  d.band = tol.band(target);
  d.detectable = detectable(e, d.band, alpha, beta, true);
  const double lo = target - d.band, hi = target + d.band;
  if (e.ci_low > hi || e.ci_high < lo) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] excludes {:.6g} +/- {:.3g}", e.ci_low, e.ci_high, target, d.band);
  } else if (e.ci_low >= lo && e.ci_high <= hi) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] lies within {:.6g} +/- {:.3g}", e.ci_low, e.ci_high, target, d.band);
  } else {
    d.verdict = Verdict::inconclusive;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] overlaps the edge of {:.6g} +/- {:.3g}: too noisy to decide",
                        e.ci_low, e.ci_high, target, d.band);
  }
  return d;
}

Decision judge_mc_upper_bound(const Estimate& e, double bound, const Tolerance& tol, double alpha, double beta) {
  Decision d;
  d.band = tol.band(bound);
  d.detectable = detectable(e, d.band, alpha, beta, true);
  if (e.ci_low > bound + d.band) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] lies above the bound {:.6g} (+{:.3g})", e.ci_low, e.ci_high, bound, d.band);
  } else if (e.ci_high <= bound + d.band) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] lies below the bound {:.6g} (+{:.3g})", e.ci_low, e.ci_high, bound, d.band);
  } else {
    d.verdict = Verdict::inconclusive;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] straddles the bound {:.6g}", e.ci_low, e.ci_high, bound);
  }
  return d;
}

Decision judge_mc_lower_bound(const Estimate& e, double bound, const Tolerance& tol, double alpha, double beta) {
  Decision d;
  d.band = tol.band(bound);
  d.detectable = detectable(e, d.band, alpha, beta, true);
  if (e.ci_high < bound - d.band) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] lies below the bound {:.6g} (-{:.3g})", e.ci_low, e.ci_high, bound, d.band);
  } else if (e.ci_low >= bound - d.band) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] lies above the bound {:.6g} (-{:.3g})", e.ci_low, e.ci_high, bound, d.band);
  } else {
    d.verdict = Verdict::inconclusive;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] straddles the bound {:.6g}", e.ci_low, e.ci_high, bound);
  }
  return d;
}

Decision judge_exact_equal(double exact, double target, const Tolerance& tol) {
  Decision d;
  d.band = tol.band(target);
  const double diff = std::abs(exact - target);
  d.verdict = diff <= d.band ? Verdict::confirmed : Verdict::refuted;
  d.why = fmt::format("exact {:.10g} vs {:.10g}: |difference| {:.3g} {} {:.3g}", exact, target, diff,
                      diff <= d.band ? "<=" : ">", d.band);
  return d;
}

Decision combine_equality(const std::optional<Decision>& exact_vs_stated, const Decision& mc_vs_stated,
                          const std::optional<Decision>& mc_vs_exact) {
  Decision d = mc_vs_stated;
  if (mc_vs_stated.verdict != Verdict::inconclusive) d.basis = {"mc_vs_stated"};
  if (mc_vs_exact && mc_vs_exact->verdict == Verdict::refuted) {
    d.verdict = Verdict::inconclusive;
    d.why = "INTERNAL INCONSISTENCY: Monte Carlo excludes the exact value (" + mc_vs_exact->why +
            "); no verdict on the paper";
    d.basis.clear();
    return d;
  }
  if (!exact_vs_stated) return d;
  const Verdict ex = exact_vs_stated->verdict, mc = mc_vs_stated.verdict;
  if (ex == mc) {
    d.verdict = ex;
    d.why = "exact: " + exact_vs_stated->why + "; Monte Carlo: " + mc_vs_stated.why;
    if (mc_vs_exact) d.why += "; Monte Carlo vs exact: " + mc_vs_exact->why;
    if (ex != Verdict::inconclusive) d.basis = {"exact_vs_stated", "mc_vs_stated"};
  } else {
    d.verdict = Verdict::inconclusive;
    d.basis.clear();
    d.why = fmt::format("exact says {} ({}), Monte Carlo says {} ({})", to_string(ex), exact_vs_stated->why,
                        to_string(mc), mc_vs_stated.why);
  }
  return d;
}

std::vector<std::uint64_t> sequential_looks(std::uint64_t first, std::uint64_t budget) {
  std::vector<std::uint64_t> looks;
  if (budget == 0) return looks;
  first = std::min(std::max<std::uint64_t>(first, 1), budget);
  for (std::uint64_t n = first; n < budget; n *= 2) looks.push_back(n);
  looks.push_back(budget);
  return looks;
}

}  // namespace icl
