// The equality kind of a catalogue claim checked on the conditional Monte Carlo estimator
// (verdict/conditional_equality.hpp): "the in-context loss of a stack (column-wise feature layers, then masked
// attention) equals the stated formula". Per case the claim gives its stated value, its own exact value, the Monte
// Carlo tolerance and the stack; the kind
//   - judges them with conditional_equality: the exact value against the stated one within Spec::exact_tol, and the
//     forward pass's loss (the query integrated out exactly given the context, Psi = query_moment_matrix(model,
//     query_features), stream ctx.purpose(case label), looks Setting::looks) against the stated value within
//     Setting::tol, at the case's share of the claim's alpha (split over the cases);
//   - writes the case: the fields the claim wrote first, then stated, exact, mc, variance_reduction, linearity_rms,
//     the claim's own quantities (Setting::quantities), tolerance, the verdict and the decisions (exact_vs_stated,
//     mc_vs_stated, ...);
//   - after the cases: the error rates at Spec::error_rates with extra["error_rates"]["tolerance"] =
//     Spec::error_rates_text, and extra["variance_reduction"] (the range of the factors over the cases); then the
//     claim's after_cases (its refutation where a case can refute, findings);
//   - the summary: the claim's sentence (Spec::summary) with the verdict and the tally over the cases filled in.
#pragma once
#include "icl/algebra/flat_polynomial.hpp"
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/conditional_equality.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace icl::estimator_equality {

// What the conditional estimator runs: the feature layers, then the attention, on prompts of `model` in `shape`;
// query_features: u at the query as the feature layers compute it.
struct Stack {
  Transformer features, attention;
  GaussianIclModel model;
  std::vector<Poly> query_features;
  PromptShape shape;
};

// One case as the claim states it.
struct Setting {
  double stated = 0, exact = 0;
  Tolerance tol = {};        // Monte Carlo against the stated value
  Stack stack = {};
  EqualityLooks looks = {};  // conditional_equality's looks
  std::function<void(CaseJson&)> quantities = {};  // the claim's own quantities and fields, after the kind's (optional)
};

struct Spec {
  Tolerance exact_tol = {};           // the exact value against the stated one
  Tolerance error_rates = {};         // the error-rate block's tolerance
  std::string error_rates_text = {};  // and its words (extra["error_rates"]["tolerance"])
  // The claim's case: writes the fields that come first into the case and returns its setting.
  std::function<Setting(const Case& c, CaseJson& j)> at = {};
  std::function<void(ClaimRun& r)> after_cases = {};  // optional
  // The summary, a format string (fmt) with the named arguments {verdict}, {confirmed} and {cases} (the cases confirmed
  // of all), {exact_checks} and {mc_checks} (verdict/quantities.hpp tally_decisions of exact_vs_stated and
  // mc_vs_stated over the cases).
  std::string summary = {};
};

// One case (alpha_case: its share of the claim's alpha): judged, and written into j; its variance reduction joins vr.
void judge_case(ClaimRun& r, double alpha_case, const Case& c, const Spec& s, CaseJson& j, VarianceReductionRange& vr);

// Every case, the error rates, the variance reductions and the summary.
ClaimResult run_claim(const ClaimContext& ctx, const Spec& s);

// The kind's LaTeX table: the paper's value, the exact value and Monte Carlo, under `where` ("Lemma~12") and
// `latex_title`, with the case parameters' heads and values in words where given (claim/table.hpp with_param_text).
ClaimTable table(const std::string& where, const std::string& latex_title,
                 std::map<std::string, std::string> param_headers = {},
                 std::map<std::string, std::map<std::string, std::string>> param_values = {});

}  // namespace icl::estimator_equality
