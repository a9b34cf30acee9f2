// Regression: the deep-construction claims of issue 4 run end to end through the CLI at --quick and
// keep the numbers that decide them. The verdicts checked here are the ones these runs produced
// when the claims were written; a change means the code changed, and the report should say why.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace test_deep_construction_claims_regression {  // named: a unity build compiles several test files as one unit

namespace {

// Runs `claim` with `flags` (the budget, e.g. "--quick", and any restriction) into a temporary folder; its report.
nlohmann::json run_claim(const std::string& claim, const std::string& flags, const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("icl-regression-" + tag + claim + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string cmd = std::string(ICL_VERIFY_BINARY) + " run " + claim + " " + flags + " --threads 2 --out " +
                          dir.string() + " > /dev/null";
  const int rc = std::system(cmd.c_str());
  REQUIRE(rc == 0);
  std::ifstream f(dir / (claim + ".json"));
  REQUIRE(f.good());
  nlohmann::json j = nlohmann::json::parse(f);
  fs::remove_all(dir);
  return j;
}

nlohmann::json run_quick(const std::string& claim, const std::string& extra = "") {
  return run_claim(claim, "--quick " + extra, "");
}

// The standard budget (no --quick), for a claim run restricted by `extra` to a few cases.
nlohmann::json run_standard(const std::string& claim, const std::string& extra) { return run_claim(claim, extra, "std-"); }

double worst(const nlohmann::json& r, const std::string& q) {
  double w = 0;
  for (const auto& c : r["cases"]) w = std::max(w, c["quantities"][q]["value"].get<double>());
  return w;
}

}  // namespace

TEST_CASE("regression: acds.lemma1 --quick") {
  const auto r = run_quick("acds.lemma1");
  CHECK(r["verdict"] == "refuted");  // general A_l: the stack uses A_l^T
  CHECK(r["refutation"]["class"] == "slip");
  // Led by the smallest clean counterexample, not by blown-up iterates.
  CHECK(r["refutation"]["counterexample"] == nlohmann::json{{"d", 2}, {"n", 1}, {"L", 1}, {"sym", 0}});
  CHECK(worst(r, "max_rel_error_corrected") < 1e-9);
  for (const auto& c : r["cases"])
    if (c["params"]["sym"] == 1 || c["params"]["d"] == 1) CHECK(c["verdict"] == "confirmed");
}

TEST_CASE("regression: sja.thm7 --quick") {
  const auto r = run_quick("sja.thm7");
  CHECK(r["verdict"] == "confirmed");
  CHECK(worst(r, "max_rel_error") < 1e-9);
  CHECK(worst(r, "max_scratch_error") < 1e-9);
  for (const auto& c : r["cases"]) CHECK(c["quantities"]["negative_control_error"]["value"].get<double>() > 1e-3);
  // Learned vs constructed: a trained stack compared block by block with BCD (a finding, not the verdict).
  const auto& t = r["trained_stack"];
  CHECK(t["status"] == "finished");
  REQUIRE(t["per_block"].size() == 2);
  for (const auto& b : t["per_block"]) {
    CHECK(b["mean_sq_distance"].get<double>() >= 0);
    CHECK(b["relative_distance"].get<double>() > 0);
    CHECK(b["trained_loss"].get<double>() > 0);
  }
  CHECK(r["training"]["curve_file"] == "sja.thm7.training.svg");
}

TEST_CASE("regression: sja.cor8 --quick") {
  const auto r = run_quick("sja.cor8");
  CHECK(r["verdict"] == "confirmed");
  for (const auto& c : r["cases"]) {
    CHECK(c["quantities"]["covered"]["value"] == c["quantities"]["monomials"]["value"]);
    CHECK(c["quantities"]["exact"]["value"].get<double>() <= c["quantities"]["bound"]["value"].get<double>());
  }
  CHECK(worst(r, "max_rel_error") < 1e-9);
}

TEST_CASE("regression: sja.cor8, a prompt whose exact descent leaves the double range is set aside, not a refutation") {
  // d = 3, p = 6, n = 6 (126 blocks a cycle): at seed 1 prompts 0-19 include some whose long-double block-coordinate
  // descent diverges past 1e100 (one to -5.8e161, where the double forward pass returns NaN). They are counted and
  // set aside; the others must still agree to 1e-9 and the case is confirmed.
  const auto r = run_quick("sja.cor8", "--set d=3 --set p=6 --set n=6 --samples 20 --seed 1");
  REQUIRE(r["cases"].size() == 1);
  const auto& c = r["cases"][0];
  CHECK(c["verdict"] == "confirmed");
  CHECK(c["quantities"]["prompts_out_of_double_range"]["value"].get<double>() >= 1);
  CHECK(c["quantities"]["prompts_out_of_double_range"]["value"].get<double>() < 20);
  CHECK(c["quantities"]["max_rel_error"]["value"].get<double>() < 1e-9);
}

TEST_CASE("regression: sja.sec42 --quick") {
  const auto r = run_quick("sja.sec42");
  CHECK(r["verdict"] == "refuted");  // the row-writing stack with sparse bilinear layers goes below the floor
  CHECK(r["floor"].get<double>() == doctest::Approx(2.0).epsilon(1e-12));
  for (const auto& c : r["cases"]) {
    const double exact = c["quantities"]["exact"]["value"], floor = c["quantities"]["floor"]["value"];
    if (c["params"]["stack"] == 0) CHECK(exact >= floor);
    else CHECK(exact < floor);
  }
}

TEST_CASE("regression: xlssc.onelayer --quick") {
  const auto r = run_quick("xlssc.onelayer");
  // Linear: 0 is the minimiser at every D (yhat even in theta). Softmax, judged at each D: the worst-case search finds
  // weights that beat predicting 0 on fresh prompts, so part b is refuted (substantive).
  CHECK(r["verdict"] == "refuted");
  REQUIRE(r.contains("refutation"));
  CHECK(r["refutation"]["class"] == "substantive");
  int softmax = 0;
  for (const auto& c : r["cases"]) {
    if (c["params"]["act"] == 0) {
      CHECK(c["part"] == "a");
      CHECK(c["verdict"] == "confirmed");
      CHECK(c["quantities"]["evenness_error"]["value"].get<double>() <= 1e-12);
    } else {
      ++softmax;
      CHECK(c["part"] == "b");
      CHECK(c["verdict"] == "refuted");
      const auto& g = c["quantities"]["gain_over_zero"];
      CHECK(g["ci_low"].get<double>() > 0);
      CHECK(g["mean"].get<double>() > 0);
      // The search reports its budget and convergence profile.
      REQUIRE(c.contains("search"));
      CHECK(c["search"]["profile"].size() >= 2);
      CHECK(c["search"]["starts"].get<int>() >= 3);
    }
  }
  CHECK(softmax == 2);
}

TEST_CASE("regression: xlssc.onelayer's search reaches the near-hard optimum at d = 5, D = 30 (standard budget)") {
  // Issue 44: an independent search reached a gain of 0.187 over predicting 0 at d = 5, D = 30 (softmax, symmetric
  // law) with |K| ~ 9e3; the family it found (claims/xlssc_onelayer.cpp, "the mechanism") gives 0.185 at |K| ~ 1.4e3
  // and 0.187 at ~6e3. The search must come within 5% of 0.187 on fresh prompts, which the base continuation (K
  // doubled 4 times, |K| = 185: 0.174) does not; and its profile must be flat at the end.
  const auto r = run_standard("xlssc.onelayer", "--set d=5 --set D=30 --set act=1 --set gaussian=0");
  CHECK(r["verdict"] == "refuted");
  REQUIRE(r["cases"].size() == 1);
  const auto& c = r["cases"][0];
  CHECK(c["part"] == "b");
  CHECK(c["verdict"] == "refuted");
  const auto& g = c["quantities"]["gain_over_zero"];
  CHECK(g["mean"].get<double>() >= 0.95 * 0.187);
  CHECK(g["ci_low"].get<double>() > 0.17);
  CHECK(g["samples"].get<double>() >= 262144);  // the whole test stream, not its first look
  CHECK(c["quantities"]["K_norm"]["value"].get<double>() > 500);  // beyond the base continuation's scale
  const auto& s = c["search"];
  CHECK(s["still_improving"] == false);
  CHECK(s["budget"]["extend_leaders"].get<int>() >= 1);
  int extended = 0;
  for (const auto& p : s["paths"]) extended += p.value("extended_rounds", 0);
  CHECK(extended > 0);
  REQUIRE(s["profile"].size() >= 2);
  CHECK(s["profile"].back()["best"].get<double>() == doctest::Approx(s["best_value"].get<double>()));
  CHECK(s["profile"].back()["effort"].get<double>() == doctest::Approx(s["effort"].get<double>()));
}

TEST_CASE("regression: xlssc.twolayer --quick") {
  const auto r = run_quick("xlssc.twolayer");
  // An asymptotic statement ("when D is large enough"): judged by trend and limit, never by a finite-D test.
  CHECK(r["verdict"] == "confirmed");
  for (const auto& p : r["parts"]) CHECK(p["strength"] == "asymptotic");
  for (const auto& c : r["cases"])
    if (c.contains("check")) CHECK(c["verdict"] == "confirmed");  // the loss does fall with D
  REQUIRE(r.contains("findings"));
  bool worse_than_zero = false;
  for (const auto& f : r["findings"]) worse_than_zero |= f.get<std::string>().find("Worse than predicting 0") == 0;
  CHECK(worse_than_zero);
}

TEST_CASE("regression: sja.cor10 --quick") {
  const auto r = run_quick("sja.cor10");
  CHECK(r["verdict"] == "confirmed");
  CHECK(worst(r, "max_rel_error") < 1e-9);
  CHECK(worst(r, "max_hidden_error") < 1e-9);
}

}  // namespace test_deep_construction_claims_regression
