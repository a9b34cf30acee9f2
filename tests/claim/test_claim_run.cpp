// The mechanics lib owns for every claim's run (lib/icl/claim/claim_run.hpp): the alpha ledger and the error_rates
// block written from it, cases with progress, findings last, and the verdict handed to the summary.
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim_run.hpp"
#include "icl/verdict/quantities.hpp"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

namespace test_claim_run {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// A context for the registered one-part claim sja.thm2 (its parts decide the verdict), with `cases` cases.
ClaimContext context(std::size_t cases, std::vector<std::pair<std::size_t, std::size_t>>& calls) {
  ClaimContext ctx;
  ctx.claim_id = "sja.thm2";
  ctx.alpha = 0.01;
  for (std::size_t i = 0; i < cases; ++i) ctx.cases.push_back(Case{{{"n", static_cast<double>(10 * (i + 1))}}});
  ctx.progress = [&calls](std::size_t done, std::size_t total) { calls.emplace_back(done, total); };
  return ctx;
}

CaseJson finished_case(const Case& c, Verdict v) {
  CaseJson j(c);
  j.decision("check", Decision{v, 0, 0, "a decision"});
  j.verdict(v, "evidence", {"check"});
  return j;
}

}  // namespace

TEST_CASE("claim run: the ledger splits alpha over the families, and error_rates is written from it") {
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  const ClaimContext ctx = context(4, calls);
  ClaimRun r(ctx);
  CHECK(r.split_alpha(ctx.cases.size()) == ctx.alpha / 4.0);
  CHECK(r.split_alpha(0) == ctx.alpha);  // no family counts as one
  CHECK(r.split_alpha(12) == ctx.alpha / 12.0);
  r.note_looks(3);
  r.note_looks(7);
  r.note_looks(5);
  CHECK(r.looks() == 7);
  const Tolerance tol{0.02, 0.0};
  r.error_rates(tol);
  CHECK(r.result().extra["error_rates"] == error_rates_json(ctx.alpha, 12, 7, tol));
  CHECK(r.result().extra["error_rates"]["split"] == "Bonferroni over 12 cases and up to 7 sequential looks per case");
  r.error_rates(nlohmann::ordered_json{{"family_alpha", 0.01}});  // a block of the claim's own replaces it
  CHECK(r.result().extra["error_rates"].size() == 1);
}

TEST_CASE("claim run: uncounted cases join the report in order without a unit of progress; step() counts instead") {
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  const ClaimContext ctx = context(2, calls);
  ClaimRun r(ctx, 1);  // one unit of progress: the measurement the cases are derived from
  CaseJson first = finished_case(ctx.cases[0], Verdict::confirmed);
  r.add_uncounted_case(first);
  r.add_uncounted_case(finished_case(ctx.cases[1], Verdict::confirmed));  // a temporary
  CHECK(calls.empty());
  r.step();
  CHECK(calls == std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}});
  REQUIRE(r.cases().size() == 2);
  CHECK(r.cases()[0]["params"]["n"] == 10);
  CHECK(r.cases()[1]["params"]["n"] == 20);
  CHECK_THROWS_AS(r.add_uncounted_case(CaseJson(ctx.cases[0]).verdict(Verdict::confirmed, "no basis", {})),
                  std::logic_error);  // checked as add_case checks it (CaseJson::take)
}

TEST_CASE("claim run: cases in order with progress; findings last; the verdict reaches the summary") {
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  const ClaimContext ctx = context(3, calls);
  ClaimRun r(ctx);
  r.finding("first");
  for (const Case& c : ctx.cases) {
    CaseJson j = finished_case(c, Verdict::confirmed);
    r.add_case(j);
  }
  r.extra("other") = 1;
  r.finding("second");
  CHECK(calls == std::vector<std::pair<std::size_t, std::size_t>>{{1, 3}, {2, 3}, {3, 3}});
  CHECK(r.cases().size() == 3);
  CHECK(r.cases()[1]["params"]["n"] == 20);
  CHECK(r.verdict() == Verdict::confirmed);
  Verdict seen = Verdict::refuted;
  const ClaimResult res = r.finish([&](Verdict v) {
    seen = v;
    return std::string(to_string(v)) + ": three cases";
  });
  CHECK(seen == Verdict::confirmed);
  CHECK(res.summary == "confirmed: three cases");
  CHECK(res.extra.back() == nlohmann::ordered_json{"first", "second"});
  CHECK(res.extra.begin().key() == "other");

  // One refuted case refutes the claim; progress past the announced total grows the total, never done > total.
  calls.clear();
  ClaimRun r2(ctx, 2);
  for (const Case& c : ctx.cases) {
    CaseJson j = finished_case(c, c.geti("n") == 20 ? Verdict::refuted : Verdict::confirmed);
    r2.add_case(j);
  }
  r2.part("a").on_refuted(Refutation{RefutationClass::slip, "a test refutation", {}, ""});
  CHECK(calls == std::vector<std::pair<std::size_t, std::size_t>>{{1, 2}, {2, 2}, {3, 3}});
  CHECK(r2.verdict() == Verdict::refuted);
  const ClaimResult res2 = r2.finish([](Verdict v) { return std::string(to_string(v)); });
  CHECK(res2.summary == "refuted");
  CHECK_FALSE(res2.extra.contains("findings"));
}

// A case of `claim` with every parameter at its first paper value.
Case paper_case(const Claim& claim) {
  Case c;
  for (const auto& p : claim.params)
    if (!p.budget) c.params.emplace_back(p.name, grid(p, Budget::paper).front());
  return c;
}

Case with_value(Case c, const std::string& name, double v) {
  for (auto& [k, x] : c.params)
    if (k == name) x = v;
  return c;
}

TEST_CASE("at_paper: every parameter of the claim at one of its paper values, whatever the budget") {
  const Claim* claim = find_claim("sja.fig1");
  REQUIRE(claim != nullptr);
  ClaimContext ctx;
  ctx.claim_id = "sja.fig1";
  ctx.budget = Budget::standard;  // the budget does not decide it: the case's values do, and the budget settings
  ctx.settings["attention"] = 1;   // (here as --set gives them: standard's attention is full, the paper budget's label_row)
  const Case paper = paper_case(*claim);
  CHECK(ctx.at_paper(paper));
  ctx.settings["attention"] = 0;
  CHECK_FALSE(ctx.at_paper(paper));  // a budget setting off its paper value
  ctx.settings["attention"] = 1;
  CHECK(ctx.at_paper(with_value(paper, "L", 6)));  // another of the paper's values
  ctx.budget = Budget::paper;
  CHECK_FALSE(ctx.at_paper(with_value(paper, "d", 5)));          // a model setting the paper does not use
  CHECK_FALSE(ctx.at_paper(with_value(paper, "steps", 1000)));   // a reduced schedule
  CHECK_FALSE(ctx.at_paper(with_value(paper, "init_sd", 0.1)));  // not the value the claim chose where the paper is silent
  ctx.claim_id = "no.such.claim";
  CHECK_FALSE(ctx.at_paper(paper));
}

TEST_CASE("claim run: judge_cases skips the cases outside the statement, splits alpha over the rest, and says why") {
  std::vector<std::pair<std::size_t, std::size_t>> calls;
  const ClaimContext ctx = context(4, calls);  // n = 10, 20, 30, 40
  ClaimRun r(ctx);
  std::vector<double> judged, alphas;
  r.judge_cases([](const Case& c) { return c.get("n") > 25 ? std::string() : std::string("n must exceed 25"); },
                [&](const Case& c, double alpha_case) {
                  judged.push_back(c.get("n"));
                  alphas.push_back(alpha_case);
                  r.note_looks(3);
                  CaseJson j = finished_case(c, Verdict::confirmed);
                  r.add_case(j);
                });
  CHECK(judged == std::vector<double>{30, 40});
  CHECK(alphas == std::vector<double>{ctx.alpha / 2, ctx.alpha / 2});
  CHECK(calls.size() == 4);  // a skipped case is a unit of progress too
  CHECK(r.cases().size() == 2);
  const Tolerance tol{0.02, 0.0};
  r.error_rates_over_judged(tol);
  CHECK(r.result().extra["error_rates"] == error_rates_json(ctx.alpha, 2, 3, tol));
  REQUIRE(r.result().extra["skipped"].size() == 2);
  CHECK(r.result().extra["skipped"][0] == ctx.cases[0].label() + ": n must exceed 25");

  // A grid with no case inside the statement: no case judged, and the error-rate block says 0 cases.
  std::vector<std::pair<std::size_t, std::size_t>> calls2;
  const ClaimContext none = context(2, calls2);
  ClaimRun r2(none);
  r2.judge_cases([](const Case&) { return std::string("outside"); }, [](const Case&, double) { FAIL("judged"); });
  r2.error_rates_over_judged(tol);
  CHECK(r2.result().extra["error_rates"] == error_rates_json(none.alpha, 0, 0, tol));
  CHECK(r2.result().extra["skipped"].size() == 2);
}

TEST_CASE("refuted_cases_text: each refuting case's part (or parameters) and evidence, in order; the others left out") {
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  cases.push_back({{"params", {{"n", 10}}}, {"part", "d"}, {"verdict", "inconclusive"}, {"evidence", "not decided"}});
  cases.push_back({{"params", {{"n", 10}}}, {"part", "e"}, {"verdict", "refuted"}, {"evidence", "too many runs lack it"}});
  cases.push_back({{"params", {{"n", 20}}}, {"verdict", "refuted"}, {"evidence", "off by 3"}});
  CHECK(icl::refuted_cases_text(cases) == "part e: too many runs lack it; {\"n\":20}: off by 3");
  CHECK(icl::refuted_cases_text(nlohmann::ordered_json::array()).empty());
}

TEST_CASE("all_confirmed: some case has the decision and every case that has it confirmed it") {
  const auto with = [](const char* v) {
    return nlohmann::ordered_json{{"decisions", {{"fix", {{"verdict", v}}}}}};
  };
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  CHECK(!icl::all_confirmed(cases, "fix"));  // no case has it
  cases.push_back(nlohmann::ordered_json{{"verdict", "refuted"}});
  cases.push_back(with("confirmed"));
  CHECK(icl::all_confirmed(cases, "fix"));
  CHECK(!icl::all_confirmed(cases, "other"));
  cases.push_back(with("inconclusive"));
  CHECK(!icl::all_confirmed(cases, "fix"));
}

}  // namespace test_claim_run
