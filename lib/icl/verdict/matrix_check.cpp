#include "icl/verdict/matrix_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl {

Decision judge_matrix_equal(const GammaLeastSquares& est, const Eigen::MatrixXd& target, double band, double alpha) {
  Decision d;
  d.band = band;
  const Eigen::Index p = target.rows();
  const double entries = static_cast<double>(p * p);
  const double t = student_t_quantile(1 - alpha / (2 * entries), est.batches - 1.0);
  bool outside = false, all_inside = true;
  double worst_z = 0, worst_half = 0;
  std::string worst;
  for (Eigen::Index j = 0; j < p; ++j)
    for (Eigen::Index k = 0; k < p; ++k) {
      const double diff = est.gamma(j, k) - target(j, k), half = t * est.stderr_(j, k);
      worst_half = std::max(worst_half, half);
      if (std::abs(diff) - half > band) outside = true;
      if (std::abs(diff) + half > band) all_inside = false;
      const double z = est.stderr_(j, k) > 0 ? std::abs(diff) / est.stderr_(j, k) : (std::abs(diff) > 0 ? INFINITY : 0);
      if (z >= worst_z) {
        worst_z = z;
        worst = fmt::format("entry ({},{}): estimate {:.6g} +/- {:.3g} vs {:.6g}", j, k, est.gamma(j, k), half,
                            target(j, k));
      }
    }
  d.detectable = band + worst_half;
  if (outside) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("least-squares Gamma off the target beyond {:.3g}: {}", band, worst);
  } else if (all_inside) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("every entry's interval lies within target +/- {:.3g} (largest half-width {:.3g}; "
                        "most extreme {})", band, worst_half, worst);
  } else {
    d.verdict = Verdict::inconclusive;
    d.why = fmt::format("some interval overlaps the edge of target +/- {:.3g}: {}", band, worst);
  }
  return d;
}

Decision judge_relative_difference(double rel, double tol, const std::string& what) {
  const bool within = rel <= tol;
  return Decision(within ? Verdict::confirmed : Verdict::refuted, tol, 0,
                  fmt::format("{} = {:.3g} ({} {:.2g})", what, rel, within ? "<=" : ">", tol));
}

MatrixFit judge_matrix_in_looks(const Transformer& feature_layers, const GaussianIclModel& model, const PromptShape& shape,
                                std::uint64_t seed, int threads, const std::vector<MatrixLook>& looks, int batches,
                                const Eigen::MatrixXd& query_moments, const Eigen::MatrixXd& target, double band,
                                double alpha) {
  MatrixFit f;
  const double alpha_look = alpha / static_cast<double>(looks.size());
  for (const MatrixLook& look : looks) {
    f.lsq = mc_least_squares_gamma(feature_layers, model, shape, seed, look.purpose, threads, look.samples, batches, +1.0,
                                   query_moments.size() ? &query_moments : nullptr);
    f.decision = judge_matrix_equal(f.lsq, target, band, alpha_look);
    ++f.looks;
    if (f.decision.verdict != Verdict::inconclusive) break;
  }
  return f;
}

}  // namespace icl
