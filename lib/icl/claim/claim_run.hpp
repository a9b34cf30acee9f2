// The mechanics of a claim's run that are not its mathematics, owned here so that a claim file keeps only what is
// particular to its theorem: the cases in order with progress, the alpha ledger (the claim's family-wise false-fail
// rate ctx.alpha split over its decisions, Bonferroni), the error_rates block written from that ledger
// (docs/reports.md), the findings, and the claim's verdict and summary at the end.
//
//   ClaimResult run(const ClaimContext& ctx) {
//     ClaimRun r(ctx);
//     const double alpha_case = r.split_alpha(ctx.cases.size());   // one decision family per case
//     for (const Case& c : ctx.cases) {
//       CaseJson j(c);
//       ... the claim's own mathematics: stated, exact, Monte Carlo, decisions ...
//       r.note_looks(o.looks_planned);
//       r.add_case(j);                                              // the finished case, then progress
//     }
//     r.error_rates(tol);             // error_rates_json(ctx.alpha, 20 cases, the most looks, tol)
//     r.finding("...");               // extra["findings"], in order
//     return r.finish([&](Verdict v) { return fmt::format("{}: ...", to_string(v)); });
//   }
//
// finish() derives the verdict as the engine will (claim_verdict: the declared parts, the claim's part outcomes and
// its cases), hands it to the summary, and returns the result; findings go last into `extra`.
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/decision.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace icl {

class ClaimRun {
public:
  // total: the units of progress the run reports (0: one per case of ctx.cases).
  explicit ClaimRun(const ClaimContext& ctx, std::size_t total = 0);

  const ClaimContext& ctx() const { return ctx_; }
  ClaimResult& result() { return res_; }
  const nlohmann::ordered_json& cases() const { return res_.cases; }
  PartOutcome& part(const std::string& id) { return res_.part(id); }
  nlohmann::ordered_json& extra(const std::string& key) { return res_.extra[key]; }

  // The alpha ledger. split_alpha(k): the false-fail rate of each of k decision families, ctx.alpha / k (k = 0
  // counts as 1), recorded for error_rates(); calling it again replaces the split. note_looks(m): a family used up to
  // m sequential looks (error_rates() reports the most).
  double split_alpha(std::size_t families);
  void note_looks(std::size_t looks);
  std::size_t families() const { return families_; }
  std::size_t looks() const { return looks_; }

  // extra["error_rates"]: the equality checks' block from the ledger (verdict/quantities.hpp error_rates_json:
  // ctx.alpha over families() and up to looks() looks), or one the claim assembles itself (trained comparisons).
  void error_rates(const Tolerance& tol);
  void error_rates(nlohmann::ordered_json block);

  // A grid some of whose cases lie outside the statement: skip(c) says why a case is not judged ("" to judge it).
  // judge_cases calls judge(c, alpha_case) on every other case in order, the alpha split over them (split_alpha);
  // a skipped case is one unit of progress. error_rates_over_judged(tol) then writes the error-rate block over the
  // cases judged as counted (a grid with none says 0 cases), and extra["skipped"], "label: why" for each skipped.
  void judge_cases(const std::function<std::string(const Case&)>& skip,
                   const std::function<void(const Case&, double alpha_case)>& judge);
  void error_rates_over_judged(const Tolerance& tol);

  // A finished case (CaseJson::take() checks it), then one unit of progress.
  void add_case(CaseJson& j);
  void add_case(nlohmann::ordered_json j);
  // A finished case that is not a unit of progress: cases derived from measurements whose progress is counted
  // otherwise (training runs, grid points, groups).
  void add_uncounted_case(CaseJson& j);
  void add_uncounted_case(CaseJson&& j) { add_uncounted_case(j); }
  // One unit of progress without a case (claims whose units are training runs or grid points).
  void step();

  // A sentence of extra["findings"] (what the run finds beyond the statement; never moves a verdict).
  void finding(std::string sentence);

  // The claim's verdict as the engine will derive it from its parts (claim_verdict).
  Verdict verdict() const;
  // The result, with its summary written from the verdict, and the findings (if any) last in `extra`.
  ClaimResult finish(const std::function<std::string(Verdict)>& summary);

private:
  const ClaimContext& ctx_;
  ClaimResult res_;
  std::size_t total_, done_ = 0, families_ = 1, looks_ = 0, judged_ = 0;
  nlohmann::ordered_json skipped_ = nlohmann::ordered_json::array();
  nlohmann::ordered_json findings_ = nlohmann::ordered_json::array();
};

}  // namespace icl
