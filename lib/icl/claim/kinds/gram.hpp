// The Gram kind: "the matrix of expectations E[v v^T] of a vector of variables v(x), x ~ N(0, I), is the stated
// matrix" (orthonormality of a set of variables under <u, v> = E[uv], say). A claim declares per case the stated
// matrix, its own exact matrix with whether it equals the stated one (decided exactly, in rationals say, and the
// first entry that does not), and v as a function of x; the kind owns the rest:
//   exact_vs_stated  the claim's exact decision, in words;
//   mc_vs_stated     Monte Carlo: each upper-triangle entry of E[v v^T] estimated from prompts x ~ N(0, I) (prompt i
//                    draws x from PromptRng(seed, purpose, i), purpose = ctx.purpose(case label)) and judged against
//                    the stated entry within an absolute band (verdict/decision.hpp judge_mc_equal), Bonferroni over
//                    the entries and over the looks; looks double from `first` up to the budget and, while some
//                    entry is undecided, on to 4x the budget (every planned look shares the case's alpha). Refuted
//                    where some entry lies outside the band, confirmed where every entry lies within it;
//   the case         combine_equality of the two (verdict/decision.hpp); quantities stated, exact, mc (the entry
//                    farthest from the stated one, in standard errors), mc_gram and mc_gram_stderr (every entry),
//                    and the field `variables` (v's names).
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace icl::gram {

// v at x: writes the entries of v(x) (as many as the variables' names) for x of length `inputs`. Called from several
// threads at once.
using Variables = std::function<void(const double* x, double* v)>;

// A case's declaration.
struct CaseSpec {
  std::vector<std::string> names;  // v's entries, in order ("v0", "v1", ...)
  Eigen::MatrixXd stated;          // the stated E[v v^T]
  Eigen::MatrixXd exact;           // the claim's exact E[v v^T]
  bool exact_equal = false;        // whether `exact` is `stated`, decided exactly
  std::string exact_failure;       // where not: the first entry that differs, in words ("<v0, v2> = 0.5")
  int inputs = 0;                  // the dimension of x ~ N(0, I)
  Variables variables;             // v(x)
};

struct Spec {
  double band = 0;                               // absolute, per entry
  std::string stated_name;                       // the stated matrix in words ("the identity")
  std::string exact_name = "exact Gram matrix";  // the exact one, in its confirmation ("exact rational Gram matrix")
  std::uint64_t first = 16384;                   // the first look's prompts
  std::function<CaseSpec(const Case&)> at{};     // the case's declaration
  std::function<std::string()> confirmed{};      // the summary of a confirmed claim, after "confirmed: "
};

// exact_vs_stated: "<exact_name> of all <m> variables is <stated_name>", or "exact Gram matrix is not <stated_name>:
// <exact_failure>" (band and detectable 0).
Decision exact_decision(const CaseSpec& k, const Spec& s);

// Monte Carlo of E[v v^T] against k.stated.
struct Sampled {
  Eigen::MatrixXd mean, stderr_;  // every entry's estimate and standard error (symmetric)
  Verdict verdict = Verdict::inconclusive;
  Estimate worst;                 // the entry farthest from the stated one, in standard errors
  std::string why;                // "<c> of <e> Gram entries within ±<band> of <stated_name> at <n> samples ..."
  std::size_t looks_planned = 0;  // for the run's alpha ledger (ClaimRun::note_looks)
};
Sampled monte_carlo(const SamplingPlan& plan, std::uint64_t purpose, const CaseSpec& k, const Spec& s, double alpha);

// The whole run: a case per ctx.cases (alpha split over them), the error rates (Bonferroni also over the entries)
// and the summary: s.confirmed() where the claim is confirmed, else the Monte Carlo decisions' tally.
ClaimResult run(const ClaimContext& ctx, const Spec& s);

// The kind's LaTeX table (claim/table.hpp): Monte Carlo's worst entry, under `where` ("Lemma~1") and `caption`.
ClaimTable table(const std::string& where, const std::string& caption, const std::string& stated_name);

}  // namespace icl::gram
