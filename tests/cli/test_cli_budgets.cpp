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
  o.budget = "quick";
  CHECK(icl::run_mode_of(o) == "quick");   // a quick run stays quick
}

TEST_CASE("budgets: list shows each budget's values; a bad --budget is refused; --estimate writes nothing") {
  TempDir work, capture;
  const CliResult l = run_cli("list acds.exp43", work.path, capture.path);
  CHECK(l.status == 0);
  CAPTURE(l.out);
  CHECK(std::regex_search(l.out, std::regex(R"(batch .*default 1000; --quick 300; --budget paper 20000)")));
  CHECK(std::regex_search(l.out, std::regex(R"(steps .*--budget paper 5000.*our choice)")));

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
