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

Decision judge_mc_near(const Estimate& e, double target, const Tolerance& tol, double alpha, double beta) {
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

Decision judge_mc_equal(const Estimate& e, double target, const Tolerance& tol, double alpha, double beta) {
  Decision d;
  d.band = tol.band(target);
  d.detectable = detectable(e, 0.0, alpha, beta, true);
  const double lo = target - d.band, hi = target + d.band;
  const double gap = e.mean - target;
  const std::string rel = target != 0 ? fmt::format(", {:+.3g}% of it", 100 * gap / std::abs(target)) : "";
  if (e.ci_low > target || e.ci_high < target) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] excludes {:.6g}: a discrepancy of {:+.4g}{}", e.ci_low, e.ci_high,
                        target, gap, rel);
  } else if (e.ci_low >= lo && e.ci_high <= hi) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] contains {:.6g} and lies within +/- {:.3g} of it (it would detect a "
                        "discrepancy of {:.3g} with probability {:g})",
                        e.ci_low, e.ci_high, target, d.band, d.detectable, 1 - beta);
  } else {
    d.verdict = Verdict::inconclusive;
    d.why = fmt::format("interval [{:.6g}, {:.6g}] contains {:.6g} but is wider than +/- {:.3g}: too noisy to decide",
                        e.ci_low, e.ci_high, target, d.band);
  }
  return d;
}

// An undecided bound: the interval contains the edge of the tolerance band (bound + band for an upper bound,
// bound - band for a lower one), not necessarily the bound itself; where the interval lies relative to the bound
// is said as it is (wholly below, wholly above, or across it).
static std::string undecided_bound_why(const Estimate& e, double bound, double band, bool upper) {
  const double edge = upper ? bound + band : bound - band;
  std::string where;
  if (e.ci_high < bound)
    where = "lies wholly below the bound";
  else if (e.ci_low > bound)
    where = "lies wholly above the bound";
  else
    where = "contains the bound";
  if (band > 0)
    return fmt::format("interval [{:.6g}, {:.6g}] {} {:.6g} and contains the edge {:.6g} of its tolerance (bound {} "
                       "{:.3g}): too noisy to decide",
                       e.ci_low, e.ci_high, where, bound, edge, upper ? "+" : "-", band);
  return fmt::format("interval [{:.6g}, {:.6g}] contains the bound {:.6g}: too noisy to decide", e.ci_low, e.ci_high,
                     bound);
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
    d.why = undecided_bound_why(e, bound, d.band, true);
  }
  return d;
}

Decision judge_mc_decrease(const Estimate& a, const Estimate& b, double alpha) {
  const double diff = a.mean - b.mean, se = std::hypot(a.stderr_, b.stderr_);
  const double z = normal_quantile(1 - alpha / 2);
  Decision d;
  d.detectable = (z + normal_quantile(0.95)) * se;
  if (diff - z * se > 0) d.verdict = Verdict::confirmed;
  else if (diff + z * se < 0) d.verdict = Verdict::refuted;
  d.why = fmt::format("{:.4g} +/- {:.2g}", diff, z * se);
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
    d.why = undecided_bound_why(e, bound, d.band, false);
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

Decision unless_inconsistent(Decision d, bool inconsistent, const std::string& what) {
  if (!inconsistent) return d;
  d.verdict = Verdict::inconclusive;
  d.why += "; INTERNAL INCONSISTENCY: " + what;
  return d;
}

Verdict both(Verdict first, Verdict second) {
  return (first == Verdict::confirmed && second == Verdict::confirmed) ? Verdict::confirmed
         : (first == Verdict::refuted || second == Verdict::refuted)  ? Verdict::refuted
                                                                       : Verdict::inconclusive;
}

Decision both(const Decision& first, const Decision& second, std::string why) {
  Decision d = first;
  d.why = std::move(why);
  d.verdict = both(first.verdict, second.verdict);
  return d;
}

Decision combine_exact_first(const std::optional<Decision>& exact_vs_stated, const Decision& mc_vs_stated,
                             const std::optional<Decision>& mc_vs_exact) {
  if (mc_vs_exact && mc_vs_exact->verdict == Verdict::refuted) {
    Decision d = mc_vs_stated;
    d.verdict = Verdict::inconclusive;
    d.why = "INTERNAL INCONSISTENCY: Monte Carlo through the forward pass excludes the library's exact value (" +
            mc_vs_exact->why + "); no verdict on the claim";
    d.basis.clear();
    return d;
  }
  if (!exact_vs_stated) {
    Decision d = mc_vs_stated;
    d.basis.clear();
    if (d.verdict != Verdict::inconclusive) d.basis = {"mc_vs_stated"};
    return d;
  }
  Decision d = *exact_vs_stated;
  d.basis = {"exact_vs_stated"};
  d.why = "exact: " + exact_vs_stated->why;
  if (mc_vs_exact)
    d.why += fmt::format("; Monte Carlo through the forward pass, checking the exact value: {} ({})",
                         mc_vs_exact->verdict == Verdict::confirmed ? "within its band" : "does not exclude it",
                         mc_vs_exact->why);
  return d;
}

namespace {

// About how many prompts bring the interval's half-width down to `needed` (the mean and spread held where they are).
std::optional<std::uint64_t> samples_for_halfwidth(const Estimate& e, double needed, double alpha_case, std::uint64_t first) {
  if (e.samples == 0 || !(e.ci_high > e.ci_low) || !(needed > 0)) return std::nullopt;
  // half-width = z * sd / sqrt(N): the spread per prompt from the interval as it is.
  const double z_now = normal_quantile(1 - (1 - e.confidence) / 2);
  const double spread = 0.5 * (e.ci_high - e.ci_low) / z_now * std::sqrt(static_cast<double>(e.samples));
  double n = static_cast<double>(e.samples);
  for (int it = 0; it < 8; ++it) {
    const double budget = std::min(n, 4.6e18);
    const std::size_t looks = sequential_looks(first, static_cast<std::uint64_t>(budget)).size();
    const double z = normal_quantile(1 - alpha_case / static_cast<double>(std::max<std::size_t>(looks, 1)) / 2);
    const double next = std::pow(z * spread / needed, 2);
    if (!(next < 4.6e18)) return std::nullopt;
    if (next <= n + 1) break;  // n only grows (more looks, a wider interval), so this settles
    n = next;
  }
  const auto chunks = static_cast<std::uint64_t>(std::ceil(n / 256.0)) + 1;  // strictly inside, not on the edge
  return chunks * 256;
}

}  // namespace

std::optional<std::uint64_t> samples_to_decide(const Estimate& e, const std::vector<double>& edges, double alpha_case,
                                               std::uint64_t first) {
  if (edges.empty()) return std::nullopt;
  double dist = INFINITY;
  for (double x : edges) dist = std::min(dist, std::abs(e.mean - x));
  return samples_for_halfwidth(e, dist, alpha_case, first);
}

std::optional<std::uint64_t> samples_to_decide_equality(const Estimate& e, double target, double band, double alpha_case,
                                                        std::uint64_t first) {
  const double delta = std::abs(e.mean - target);
  return samples_for_halfwidth(e, std::max(delta, band - delta), alpha_case, first);
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
