// Budgets (issue 26): --budget quick|standard|paper, what `list` shows of each, where a paper-budget run writes,
// and --estimate (the predicted time of a run, training steps calibrated, nothing written).
#include "icl/claim/claim.hpp"
#include "icl/cli/engine.hpp"
#include "tests/support/cli_support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <regex>
#include <string>

namespace test_cli_budgets {  // named: a unity build compiles several test files as one unit

namespace {

using icl::test::CliResult;
using icl::test::is_empty_dir;
using icl::test::list_dir;
using icl::test::run_cli;
using icl::test::TempDir;

TEST_CASE("budgets: a parameter's values under each budget; samples per budget") {
  const icl::Claim* c = icl::find_claim("sja.fig1");
  REQUIRE(c != nullptr);
  bool saw_steps = false;
  for (const auto& p : c->params) {
    if (p.name != "steps") continue;
    saw_steps = true;
    CHECK(icl::grid(p, icl::Budget::quick) == p.quick);
    CHECK(icl::grid(p, icl::Budget::standard) == p.defaults);
    CHECK(icl::grid(p, icl::Budget::paper) == std::vector<double>{20000});  // sja App. J: 20000 Adam steps
  }
  CHECK(saw_steps);
  icl::ParamSpec plain{"x", {1, 2}, {1}, 1, 9, true, "a parameter without paper values"};
  CHECK(icl::grid(plain, icl::Budget::paper) == plain.defaults);  // no paper values: the defaults
  icl::Claim k;
  k.default_samples = 100;
  k.quick_samples = 10;
  CHECK(k.samples(icl::Budget::paper) == 100);
  k.paper_samples = 1000;
  CHECK(k.samples(icl::Budget::paper) == 1000);
  CHECK(k.samples(icl::Budget::quick) == 10);
  CHECK(icl::budget_from_name("paper") == icl::Budget::paper);
  CHECK_THROWS_AS(icl::budget_from_name("fast"), std::invalid_argument);
}

TEST_CASE("budgets: the deciding budget keeps the paper's model settings and reduces the training (issue 43)") {
  CHECK(icl::budget_from_name("deciding") == icl::Budget::deciding);
  CHECK(std::string(icl::to_string(icl::Budget::deciding)) == "deciding");
  // A parameter without deciding values: its standard values (what a claim declaring none runs).
  icl::ParamSpec plain{"x", {1, 2}, {1}, 1, 9, true, "a parameter without deciding values"};
  CHECK(icl::grid(plain, icl::Budget::deciding) == plain.defaults);
  const icl::ParamSpec dec = icl::with_deciding(icl::with_paper(plain, {5}), {3});
  CHECK(icl::grid(dec, icl::Budget::deciding) == std::vector<double>{3});
  CHECK(icl::grid(dec, icl::Budget::paper) == std::vector<double>{5});
  CHECK(icl::grid(dec, icl::Budget::standard) == plain.defaults);
  icl::Claim k;
  k.default_samples = 100;
  k.params = {plain};
  CHECK_FALSE(k.has_deciding());
  CHECK(k.samples(icl::Budget::deciding) == 100);
  k.deciding_samples = 700;
  CHECK(k.samples(icl::Budget::deciding) == 700);
  k.params = {dec};
  CHECK(k.has_deciding());
  // The claims that declare a deciding budget: every model setting at the paper's value, the training reduced.
  for (const char* id : {"sja.fig1", "sja.fig4", "xlssc.fig2"}) {
    const icl::Claim* c = icl::find_claim(id);
    REQUIRE(c != nullptr);
    CHECK(c->has_deciding());
    for (const auto& p : c->params) {
      CAPTURE(id);
      CAPTURE(p.name);
      // training settings, and the ones the paper leaves out (clipping, initialisation), may differ from the paper's
      const bool training = p.name == "steps" || p.name == "batch" || p.name == "trials" || p.name == "lr" ||
                            p.name == "models" || p.name == "clip" || p.name == "init_sd";
      if (!training) CHECK(icl::grid(p, icl::Budget::deciding) == icl::grid(p, icl::Budget::paper));
      if (p.name == "steps") CHECK(icl::grid(p, icl::Budget::deciding).front() < icl::grid(p, icl::Budget::paper).front());
    }
  }
  // A claim that declares none runs its standard values under --budget deciding.
  const icl::Claim* thm2 = icl::find_claim("sja.thm2");
  REQUIRE(thm2 != nullptr);
  CHECK_FALSE(thm2->has_deciding());
  for (const auto& p : thm2->params) CHECK(icl::grid(p, icl::Budget::deciding) == p.defaults);
}

TEST_CASE("budgets: run options decide the budget, the run mode and the default folder") {
  icl::RunOptions o;
  o.claims = {"acds.exp43"};
  CHECK(icl::run_budget(o) == icl::Budget::standard);
  o.quick = true;
  CHECK(icl::run_budget(o) == icl::Budget::quick);
  o.budget = "quick";
  CHECK(icl::run_mode_of(o) == "quick");
  o.budget = "paper";
  CHECK_THROWS_AS(icl::run_budget(o), icl::UsageError);  // --quick with --budget paper
  o.quick = false;
  CHECK(icl::run_budget(o) == icl::Budget::paper);
  CHECK(icl::run_mode_of(o) == "paper");
  CHECK(icl::default_out_folder(o, 1) == std::string("reports/paper"));
  CHECK_FALSE(icl::standard_budget(o));
  o.sets = {"runs=3"};
  CHECK(icl::run_mode_of(o) == "custom");  // the paper budget with a setting changed is not the paper's
  o.sets = {"runs=20"};
  CHECK(icl::run_mode_of(o) == "paper");   // more runs than the paper's 5 are not a reduction (replications)
  o.sets = {"runs=5,20"};
  CHECK(icl::run_mode_of(o) == "paper");
  o.sets = {"runs=20", "n=10"};
  CHECK(icl::run_mode_of(o) == "custom");  // with another setting changed it is custom again
  o.claims = {"acds.exp43", "sja.fig2"};
  o.sets = {"runs=20"};
  CHECK(icl::run_mode_of(o) == "custom");  // a claim without that count
  o.claims = {"acds.exp43"};
  o.samples = 5000;
  CHECK(icl::run_mode_of(o) == "custom");  // --samples overridden
  o.samples.reset();
  {  // the same rule for a case: at the paper's settings with more runs, not with fewer
    icl::ClaimContext ctx;
    ctx.claim_id = "acds.exp51";
    ctx.budget = icl::Budget::paper;  // its budget settings (Adam's betas, the initial scale) at their paper values
    const icl::Claim* c = icl::find_claim("acds.exp51");
    REQUIRE(c != nullptr);
    icl::Case k;
    for (const auto& p : c->params)
      if (!p.budget) k.params.emplace_back(p.name, icl::grid(p, icl::Budget::paper).front());
    CHECK(ctx.at_paper(k));
    for (auto& [name, v] : k.params)
      if (name == "runs") v = 20;
    CHECK(ctx.at_paper(k));
    for (auto& [name, v] : k.params)
      if (name == "runs") v = 3;
    CHECK_FALSE(ctx.at_paper(k));
  }
  o.budget = "quick";
  CHECK(icl::run_mode_of(o) == "quick");   // a quick run stays quick
  o.sets.clear();
  o.budget = "deciding";
  CHECK(icl::run_budget(o) == icl::Budget::deciding);
  CHECK(icl::run_mode_of(o) == "deciding");
  CHECK(icl::default_out_folder(o, 1) == std::string("reports/deciding"));
  CHECK_FALSE(icl::standard_budget(o));
  o.sets = {"trials=2"};
  CHECK(icl::run_mode_of(o) == "custom");
  o.quick = true;
  CHECK_THROWS_AS(icl::run_budget(o), icl::UsageError);  // --quick with --budget deciding
}

TEST_CASE("budgets: list shows each budget's values; a bad --budget is refused; --estimate writes nothing") {
  TempDir work, capture;
  const CliResult l = run_cli("list acds.exp43", work.path, capture.path);
  CHECK(l.status == 0);
  CAPTURE(l.out);
  CHECK(std::regex_search(l.out, std::regex(R"(batch .*default 1000; --quick 300; --budget paper 20000)")));
  CHECK(std::regex_search(l.out, std::regex(R"(steps .*--budget paper 30000.*the authors' code)")));
  CHECK(std::regex_search(l.out, std::regex(R"(beta1 .*default 0\.9; --quick 0\.9; --budget paper 0\.99)")));

  // list shows the deciding values, and says when a claim declares none.
  const CliResult ld = run_cli("list sja.fig1", work.path, capture.path);
  CHECK(ld.status == 0);
  CAPTURE(ld.out);
  CHECK(std::regex_search(ld.out, std::regex(R"(steps .*default 200; --quick 40; --budget deciding 1000; --budget paper 20000)")));
  CHECK(std::regex_search(ld.out, std::regex(R"(d .*--budget deciding 3,4; --budget paper 3,4)")));
  CHECK(ld.out.find("deciding budget (--budget deciding): the values above") != std::string::npos);
  const CliResult ln = run_cli("list sja.thm2", work.path, capture.path);
  CHECK(ln.out.find("deciding budget (--budget deciding): none declared; it runs the standard values") != std::string::npos);

  const CliResult bad = run_cli("run acds.exp43 --budget fast", work.path, capture.path);
  CHECK(bad.status == 2);
  CHECK(bad.err.find("unknown budget 'fast'") != std::string::npos);
  const CliResult both = run_cli("run acds.exp43 --quick --budget paper", work.path, capture.path);
  CHECK(both.status == 2);
  CHECK(both.err.find("--quick is --budget quick") != std::string::npos);

  // The quick budget's estimate of a training claim: every run calibrated, nothing written anywhere.
  const CliResult e = run_cli("run acds.exp43 --quick --estimate --threads 1", work.path, capture.path);
  CAPTURE(e.err);
  CHECK(e.status == 0);
  CAPTURE(e.out);
  CHECK(e.out.find("predicted time on this machine (backend cpu, 1 thread, 1 rank; budget quick)") != std::string::npos);
  // acds.exp43 at --quick: 3 runs of 100 steps each
  CHECK(std::regex_search(e.out, std::regex(R"(acds\.exp43 .*\(3 training runs, 300 steps, up to [0-9.e-]+ s per step)")));
  CHECK(std::regex_search(e.out, std::regex(R"(total .*core-hours)")));
  INFO("files written: " << list_dir(work.path));
  CHECK(is_empty_dir(work.path));
}

}  // namespace

}  // namespace test_cli_budgets
