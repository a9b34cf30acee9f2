#include "icl/claim/kinds/stationary.hpp"

#include "icl/model/rng.hpp"
#include "icl/search/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl::stationary {

Search search_family(const learn::Objective& objective, Eigen::Index size, const Settings& s, std::uint64_t seed,
                     std::uint64_t purpose) {
  learn::LbfgsOptions lo;
  lo.gradient_tolerance = 1e-12;
  lo.relative_decrease = 1e-15;  // a stalled search hands over to the Newton steps
  lo.max_iterations = 500;
  Search f;
  f.max_iterations = lo.max_iterations;
  f.best.loss = INFINITY;
  for (int k = 0; k < s.starts; ++k) {
    Eigen::VectorXd th0 = Eigen::VectorXd::Zero(size);
    if (k > 0) {
      PromptRng rng(seed, purpose, static_cast<std::uint64_t>(k));
      rng.fill_normal(th0);
      th0 *= 0.5;
    }
    learn::MinimizeResult r = learn::minimize_lbfgs(objective, th0, lo);
    learn::newton_polish(objective, r);
    f.start_losses.push_back(r.loss);
    if (r.gradient_norm <= 1e-10) ++f.converged;
    if (std::isfinite(r.loss) && r.loss < f.best.loss) f.best = r;
  }
  return f;
}

Decisions decide(const Settings& s, const Gradients& gr, const Search& fs, double loss_family, const Eigen::VectorXd& g_family) {
  Decisions ds;
  Decision& stationary = ds.stationary;
  stationary.band = s.precision;
  stationary.verdict = gr.relative <= s.precision ? Verdict::confirmed : Verdict::inconclusive;
  stationary.why = fmt::format("at the family's best stationary point: ||full gradient|| = {:.3g}, {:.3g} of the {:.3g} at the "
                               "{} ({} {:.0e})",
                               gr.G_star, gr.relative, gr.G_ref, s.reference, gr.relative <= s.precision ? "<=" : ">", s.precision);
  const double control_floor = 100 * s.precision;  // a control must exceed the declared precision this much
  Decision& control = ds.control;
  control.band = control_floor;
  const bool on_ok = !s.on_family_control || gr.on_relative >= control_floor;
  control.verdict = gr.off_relative >= control_floor && on_ok ? Verdict::confirmed : Verdict::inconclusive;
  control.why = fmt::format("off the family (matrices moved by {:.0e} of their norm): relative gradient {:.3g}", s.perturbation,
                            gr.off_relative);
  if (s.on_family_control) control.why += fmt::format("; on the family at 1.1 x the point: {:.3g}", gr.on_relative);
  control.why += fmt::format(" ({} {:.0e}: the check sees a non-stationary point)", control.verdict == Verdict::confirmed ? ">=" : "<",
                             control_floor);
  const double engine_vs_family = std::abs(gr.loss_engine - loss_family) / gr.loss_engine;
  const double family_grad_gap = (gr.g_family_engine - g_family).norm() / std::max(gr.G_ref, 1e-300);
  Decision& consistency = ds.consistency;
  // 1e-8: the double-precision floor of an engine that sums millions of Wick matchings with cancellations.
  consistency.band = 1e-8;
  consistency.verdict = engine_vs_family <= 1e-8 && family_grad_gap <= 1e-8 ? Verdict::confirmed : Verdict::inconclusive;
  consistency.why = fmt::format("family loss: engine {:.12g}, {} {:.12g} (relative {:.1e}); family gradient engine vs {} {:.1e} "
                                "of the {}'s gradient",
                                gr.loss_engine, s.objective, loss_family, engine_vs_family, s.objective_short, family_grad_gap,
                                s.reference);
  Decision& search = ds.search;
  search.verdict = fs.best.gradient_norm <= 1e-10 ? Verdict::confirmed : Verdict::inconclusive;
  search.why = fmt::format("L-BFGS and Newton steps on {} from {} starts, {} reached family gradient "
                           "<= 1e-10; best loss {:.12g}, family gradient {:.2e} (L-BFGS: {})",
                           s.search_on, s.starts, fs.converged, fs.best.loss, fs.best.gradient_norm, fs.best.status);
  return ds;
}

Verdict case_verdict(const Decisions& ds, const Decision& mc) {
  // The Monte Carlo loss check is a cross-check of the engine through the real forward pass: a contradiction
  // (refuted) makes the case inconclusive; a check too noisy at the budget is reported with its detectable
  // discrepancy and does not block the exact verdict.
  const bool all = ds.stationary.verdict == Verdict::confirmed && ds.control.verdict == Verdict::confirmed &&
                   ds.consistency.verdict == Verdict::confirmed && ds.search.verdict == Verdict::confirmed &&
                   mc.verdict != Verdict::refuted;
  // No finite search refutes an infimum over an unbounded set: a failed check leaves the case inconclusive.
  return all ? Verdict::confirmed : Verdict::inconclusive;
}

std::string evidence(Verdict v, const std::string& point, const Decisions& ds, const Decision& mc) {
  return fmt::format("{}. Stationary point on the family: {}. {}. Controls: {}. {}. Loss check: {}", to_string(v), point,
                     ds.stationary.why, ds.control.why, ds.consistency.why, mc.why);
}

void write_gradients(CaseJson& j, const Settings& s, const Gradients& gr) {
  j.quantity("stated", 0.0);
  j.quantity("exact", gr.G_star * gr.G_star);
  j.quantity("gradient_norm", gr.G_star);
  j.quantity("reference_gradient_norm", gr.G_ref);
  j.quantity("relative_gradient_norm", gr.relative);
  j.quantity("family_gradient_norm", gr.g_family_engine.norm());
  j.quantity("control_off_family", gr.off_relative);
  if (s.on_family_control) {
    j.quantity("control_on_family", gr.on_relative);
    j.quantity("gradient_direction_residual", gr.direction_residual);
  }
}

void write_losses(CaseJson& j, const Gradients& gr, double loss_family, const EqualityOutcome& o, double vr) {
  j.quantity("loss_exact", gr.loss_engine);
  j.quantity("loss_reduced", loss_family);
  j.quantity("loss_mc", o.mc);
  j.quantity("loss_mc_variance_reduction", vr);
  j.quantity("loss_mc_linearity_rms", std::sqrt(o.total.mean[2]));
}

void write_verdict(CaseJson& j, Verdict v, const std::string& why, const Decisions& ds, const EqualityOutcome& o, const Search& fs) {
  // Confirmed rests on the exact decisions; the Monte Carlo loss check only has to not contradict them.
  j.verdict(v, why, {"stationary", "controls", "engine_vs_reduced", "family_search"});  // inconclusive: no basis recorded
  j.decision("stationary", ds.stationary);
  j.decision("controls", ds.control);
  j.decision("engine_vs_reduced", ds.consistency);
  j.decision("family_search", ds.search);
  j.decision("loss_mc_vs_exact", o.mc_vs_stated);
  j.decision("loss_mc_looks", o.looks_used);
  j.decision("family_start_losses", nlohmann::ordered_json(fs.start_losses));
  // The multi-start search's profile (informational: the statement asks for a stationary point, which any converged
  // start gives; the search decision requires one).
  std::vector<double> values;
  for (double l : fs.start_losses) values.push_back(-l);
  j.field("search", profile_of_starts({}, values, fs.max_iterations, "L-BFGS iterations (at most) and Newton steps", 1e-12).to_json(12));
}

void Tally::add(const std::string& label, const Settings& s, const Gradients& gr) {
  if (gr.relative >= worst_relative) {
    worst_relative = gr.relative;
    worst_label = label;
  }
  if (s.on_family_control) worst_direction = std::max(worst_direction, gr.direction_residual);
  least_control = std::min(least_control, gr.off_relative);
}

void Tally::add_variance_reduction(double vr) {
  vr_min = std::min(vr_min, vr);
  vr_max = std::max(vr_max, vr);
}

ClaimTable table(const std::string& label, const std::string& caption) {
  return {TableKind::identity,
          label,
          caption,
          {{"relative_gradient_norm", "Gradient", "gradient norm at the stationary point, relative to the zero network's"},
           {"control_off_family", "Off family", "the same $10^{-4}$ off the family (control)"},
           {"loss_exact", "Loss", "exact loss there"}}};
}

double variance_reduction(const EqualityOutcome& o) {
  return o.total.variance(1) > 0 ? o.total.variance(0) / o.total.variance(1) : 0.0;
}

}  // namespace icl::stationary
