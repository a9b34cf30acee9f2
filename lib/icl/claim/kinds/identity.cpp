// The identity kind (identity.hpp): the forward pass's prediction against the stated reference, prompt by prompt.
#include "icl/claim/kinds/identity.hpp"

#include "icl/claim/usage_error.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace icl {

std::string identity_part() { return "the model's forward pass computes the stated prediction on every prompt"; }

ClaimTable identity_table() {
  return ClaimTable{TableKind::identity,
                    "",
                    "",
                    {{"max_abs_error", "Max error", "the largest |model - reference| over the case's prompts"},
                     {"max_rel_error", "Max relative", "the largest |model - reference| / max(|reference|, 1e-300)"},
                     {"prompts", "Prompts", "the prompts compared"}}};
}

Decision identity_case(FormulaRun& run, FormulaCase& k, CaseJson& j) {
  const FormulaClaim& f = run.f;
  const Case& c = k.c;
  MixturePromptWorker w = k.worker();
  double max_abs = 0, max_rel = 0;
  std::uint64_t worst = 0, first_bad = f.prompts;
  double bad_model = 0, bad_reference = 0;
  for (std::uint64_t i = 0; i < f.prompts; ++i) {
    if (f.between_cases && i % 4096 == 4095) f.between_cases();  // Ctrl-C from Python within a long case
    const double model = w.prediction(i);
    const Eigen::VectorXd y = w.labels().head(k.n).transpose();
    const double ref = f.reference(c, w.inputs(), y);
    if (!std::isfinite(ref))
      throw UsageError(fmt::format("{}: the reference at {}, prompt {}, is {} (not a finite number)", f.id, c.label(),
                                   i, ref));
    const double err = std::abs(model - ref);
    const bool within = std::isfinite(model) && err <= 1e-12 + f.exact_tolerance * std::max(std::abs(model), std::abs(ref));
    if (std::isfinite(model)) {  // a prediction that is not a number refutes below; the maxima stay finite
      if (err > max_abs) {
        max_abs = err;
        worst = i;
      }
      max_rel = std::max(max_rel, err / std::max(std::abs(ref), 1e-300));
    }
    if (!within) {
      first_bad = i;
      bad_model = model;
      bad_reference = ref;
      break;  // one prompt outside the tolerance refutes the case
    }
  }
  const bool refuted = first_bad < f.prompts;
  const std::uint64_t compared = refuted ? first_bad + 1 : f.prompts;
  j.quantity("max_abs_error", max_abs);
  j.quantity("max_rel_error", max_rel);
  j.quantity("prompts", static_cast<double>(compared));
  Decision v;
  v.band = f.exact_tolerance;
  if (refuted) {
    v.verdict = Verdict::refuted;
    v.why = fmt::format("prompt {} (of the case's stream): the forward pass predicts {:.15g}, the reference {:.15g}; "
                        "they differ by {:.3g}, beyond {:.3g} relative (plus 1e-12)",
                        first_bad, bad_model, bad_reference, std::abs(bad_model - bad_reference), f.exact_tolerance);
  } else {
    v.verdict = Verdict::confirmed;
    v.why = fmt::format("on all {} prompts the forward pass's prediction equals the reference within {:.3g} relative "
                        "(plus 1e-12); the largest difference {:.3g} (prompt {}), the largest relative {:.3g}",
                        f.prompts, f.exact_tolerance, max_abs, worst, max_rel);
  }
  j.verdict(v, {"forward_vs_reference"});
  j.decision("forward_vs_reference", v);
  if (refuted && !run.counterexample) {
    nlohmann::ordered_json ce = c.to_json();
    ce["prompt"] = first_bad;
    ce["model_prediction"] = bad_model;
    ce["reference"] = bad_reference;
    if (w.inputs().size() <= 2000) {  // the prompt itself, where it is small enough to read
      ce["inputs"] = quantity_matrix(w.inputs())["matrix"];
      ce["labels"] = nlohmann::ordered_json::array();
      for (int i = 0; i < k.n; ++i) ce["labels"].push_back(w.labels()[i]);
    }
    run.counterexample = ce;
  }
  return v;
}

std::string identity_refutation(const FormulaClaim& f) {
  return fmt::format("the stated prediction fails: on a prompt of the case's stream the model's forward pass and the "
                     "reference differ by more than {:.3g} relative (the counterexample gives the prompt and both "
                     "predictions).",
                     f.exact_tolerance);
}

nlohmann::ordered_json identity_quantity_meanings(const FormulaClaim& f) {
  return {{"max_abs_error", "the largest |forward-pass prediction - reference| over the prompts compared"},
          {"max_rel_error", "the largest |forward-pass prediction - reference| / |reference| over the prompts compared"},
          {"prompts", fmt::format("the prompts compared (all {} where none differs; up to the first that differs)",
                                  f.prompts)}};
}

Verdict judge_identities(CaseJson& j, const WorstCase& w, const std::vector<NamedIdentity>& ids,
                         const IdentityTolerance& tol, const std::string& tail, const std::string& why_set_aside) {
  Verdict v = Verdict::confirmed;
  std::string why;
  std::vector<std::string> names;
  for (const NamedIdentity& id : ids) {
    const Decision d = judge_identity_over(w, id.worst, tol, id.what, why_set_aside);
    v = both(v, d.verdict);
    why += (why.empty() ? "" : "; ") + d.why;
    names.push_back(id.name);
    j.decision(id.name, d);
  }
  j.verdict(v, why + tail, j.decisions_with(v, names));
  return v;
}

ClaimResult run_identity_claim(const ClaimContext& ctx, const IdentityClaimSpec& s) {
  ClaimRun r(ctx);
  IdentityTally t;
  for (const auto& c : ctx.cases) {
    CaseJson j(c);
    IdentityCase k = s.check(c, j);
    if (s.refuted) {  // the corrected identity, judged beside the case's own (its words end the evidence)
      const Decision corrected = judge_identity_over(k.w, k.corrected.worst, s.tol, k.corrected.what, kDoubleRangeWhy);
      j.decision("corrected", corrected);
      k.tail += " Corrected: " + corrected.why + ".";
      t.worst_corrected = std::max(t.worst_corrected, k.corrected.worst);
      t.corrected_everywhere = t.corrected_everywhere && corrected.verdict == Verdict::confirmed;
    }
    const Verdict v = judge_identities(j, k.w, k.ids, s.tol, k.tail);
    if (s.refuted) {
      const auto id = std::find_if(k.ids.begin(), k.ids.end(),
                                   [&](const NamedIdentity& i) { return i.name == s.refuted->identity; });
      if (id == k.ids.end()) throw std::logic_error("identity kind: no identity named " + s.refuted->identity);
      t.worst = std::max(t.worst, id->worst), t.what = id->what;
      if (c.get(s.refuted->family_param) == s.refuted->family_value) {
        t.worst_family = std::isnan(t.worst_family) ? id->worst : std::max(t.worst_family, id->worst);
        t.family_everywhere = t.family_everywhere && !j.decisions_with(Verdict::confirmed, {id->name}).empty();
      }
      if (v == Verdict::refuted && t.counterexample.empty()) t.counterexample = k.counterexample;
    }
    r.add_case(j);
  }
  r.extra("tolerance") = s.tolerance_text.empty() ? identity_tolerance_text(s.tol) : s.tolerance_text;
  if (s.refuted) identity_refutation_findings(r, *s.refuted, t);
  if (s.after_cases) s.after_cases(r);
  return r.finish([&](Verdict v) {
    return s.summary ? s.summary(v, r) : identity_refutation_summary(v, s.refuted.value(), t);
  });
}

void identity_refutation_findings(ClaimRun& r, const IdentityRefutation& f, const IdentityTally& t) {
  r.part(f.part).on_refuted(Refutation{f.cls, f.explanation, {}, t.corrected_everywhere ? f.correction : ""});
  if (!std::isnan(t.worst_family))
    r.finding(fmt::format("With {} the {} {}: worst relative error {:.2g} over those cases.", f.family, t.what,
                          t.family_everywhere ? "holds" : "does NOT hold on every case", t.worst_family));
  r.finding(fmt::format("With the correction ({}) the identity {}: worst relative error {:.2g}.", f.correction,
                        t.corrected_everywhere ? "holds on every case" : "does NOT hold on every case (not offered)",
                        t.worst_corrected));
  if (!t.counterexample.empty())
    r.finding("Counterexample (the first refuted case, in the order of the cases): " + t.counterexample + ".");
}

std::string identity_refutation_summary(Verdict v, const IdentityRefutation& f, const IdentityTally& t) {
  if (v != Verdict::refuted)
    return fmt::format("{}: worst relative error {:.2g} ({}), {:.2g} (corrected).", to_string(v), t.worst, t.what,
                       t.worst_corrected);
  const std::string family = std::isnan(t.worst_family) || !t.family_everywhere
                                 ? "does not hold in general"
                                 : fmt::format("holds for {} (worst error {:.2g}) but not in general", f.family,
                                               t.worst_family);
  const std::string corrected = t.corrected_everywhere
                                    ? fmt::format("With the correction ({}) it holds on every case (worst {:.2g}).",
                                                  f.correction, t.worst_corrected)
                                    : fmt::format("The correction ({}) does not hold on every case either (worst "
                                                  "{:.2g}).", f.correction, t.worst_corrected);
  return fmt::format("refuted ({}): the {} {}: counterexample {}. {}", to_string(f.cls), t.what, family,
                     t.counterexample, corrected);
}

}  // namespace icl
