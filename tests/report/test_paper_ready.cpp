// Tables and figures a paper's author pastes unedited (issue 46): confidence levels with at most two decimals, the run
// mode in the caption's text, human column heads and values, parts spelled out, no dead notes, no repeated columns,
// figure titles without claim IDs.
#include "icl/report/paper.hpp"
#include "icl/report/report.hpp"
#include "icl/io/svg_plot.hpp"
#include "icl/claim/table.hpp"

#include <doctest/doctest.h>

#include <string>

namespace test_paper_ready {  // named: a unity build compiles several test files as one unit

using namespace icl;
using json = nlohmann::ordered_json;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The table and its notes (what the page shows below the caption; the list of tables names the claim ID).
std::string body(const std::string& tex) {
  const auto start = tex.find("\\begin{tabular}");
  return start == std::string::npos ? tex : tex.substr(start);
}

// The text of the table's \caption{...} (not the % comment lines above it).
std::string caption_of(const std::string& tex) {
  const auto start = tex.find("}]{");
  const auto end = tex.find("}\n\\label{");
  return start == std::string::npos || end == std::string::npos ? "" : tex.substr(start + 3, end - start - 3);
}

// The head every report of these tests has: schema, claim, verdict and run mode.
json report_head(const std::string& claim, const std::string& verdict, const std::string& mode) {
  json r;
  r["schema"] = "icl-verify/report/v1";
  r["claim"] = claim;
  r["verdict"] = verdict;
  r["run_mode"] = mode;
  return r;
}

// A report of sja.thm2 with its corrected loss: equal to the exact loss in every case, or not in one.
json thm2_report(const std::string& mode, bool corrected_differs, bool dash) {
  json r = report_head("sja.thm2", "refuted", mode);
  r["title"] = "t";
  r["seed"] = 1;
  r["sample_budget_per_case"] = 8192;
  r["error_rates"] = {{"interval", "99.9955% Student-t"}};
  r["cases"] = json::array();
  for (int n : {25, 100, 400}) {
    const double exact = 2.56 * 25 / n;
    json q = {{"stated", {{"value", 0.14}}},
              {"exact", {{"value", exact}}},
              {"mc", {{"mean", exact}, {"stderr", 0.01}, {"ci_low", exact - 0.04}, {"ci_high", exact + 0.04},
                      {"samples", 8192}, {"confidence", 0.999955}}},
              {"corrected", {{"value", corrected_differs && n == 400 ? exact * 1.5 : exact * (1 + 1e-13)}}}};
    if (dash && n == 400) q.erase("stated");
    r["cases"].push_back({{"params", {{"d", 1}, {"n", n}}}, {"quantities", q}, {"verdict", "refuted"}});
  }
  return r;
}

}  // namespace

TEST_CASE("paper-ready: a confidence level has at most two decimals, rounded down") {
  bool down = false;
  CHECK(confidence_percent(0.999955, &down) == "99.99");
  CHECK(down);
  CHECK(confidence_percent(0.9975, &down) == "99.75");
  CHECK_FALSE(down);
  CHECK(confidence_percent(0.99833333, &down) == "99.83");
  CHECK(down);
  CHECK(confidence_percent(0.95) == "95");
  CHECK(confidence_percent(0.99) == "99");
  CHECK(confidence_percent(0.995) == "99.5");
  CHECK(confidence_percent(0.99999) == "99.99");
  const std::string tex = latex_table(thm2_report("standard", false, false));
  CHECK(has(tex, "Student-t interval at level at least 99.99\\%"));
  CHECK_FALSE(has(tex, "99.9955"));
}

TEST_CASE("paper-ready: a quick or custom run says so in the caption's text; a standard one says nothing") {
  const std::string quick = latex_table(thm2_report("quick", false, false));
  CHECK(has(caption_of(quick), "Quick run (a first look, not the standard budget): a reduced grid and \\num{8192} Monte "
                               "Carlo prompts per case."));
  CHECK(has(caption_of(latex_table(thm2_report("custom", false, false))), "Custom run"));
  CHECK(has(caption_of(latex_table(thm2_report("paper", false, false))), "Run at the paper's budget"));
  const std::string standard = caption_of(latex_table(thm2_report("standard", false, false)));
  CHECK_FALSE(standard.empty());
  CHECK_FALSE(has(standard, " run"));
}

TEST_CASE("paper-ready: a correction equal to the exact value has no column; a differing one keeps it") {
  const std::string same = latex_table(thm2_report("standard", false, false));
  CHECK_FALSE(has(same, "& Corrected"));
  CHECK(has(same, "Corrected ($d(d^3+18d^2+95d+142)/(4n)$) equals Exact in every case (to a relative $10^{-9}$)"));
  CHECK_FALSE(has(latex_cases_longtable(thm2_report("standard", false, false)), "& Corrected"));
  const std::string differs = latex_table(thm2_report("standard", true, false));
  CHECK(has(differs, "& Corrected"));
  CHECK_FALSE(has(differs, "equals Exact"));
}

TEST_CASE("paper-ready: the notes explain only what the cells hold") {
  const std::string full = latex_table(thm2_report("standard", false, false));
  CHECK_FALSE(has(full, "--: not computed"));
  CHECK(has(full, "Entries $x \\pm h$"));
  CHECK(has(latex_table(thm2_report("standard", false, true)), "--: not computed for that case."));
  // No cell with an interval (an identity table): no note on intervals.
  json r = thm2_report("standard", false, false);
  for (auto& c : r["cases"]) c["quantities"].erase("mc");
  CHECK_FALSE(has(latex_table(r), "Entries $x \\pm h$"));
  CHECK_FALSE(has(latex_table(r), "Monte Carlo entries"));
}

TEST_CASE("paper-ready: parameters and their values in words, as the claim declares them") {
  json r = report_head("sja.lemma12", "confirmed", "standard");
  r["cases"] = json::array();
  for (int setting : {1, 3, 6})
    r["cases"].push_back({{"params", {{"d", 1}, {"n", setting * 8}, {"setting", setting}}},
                          {"quantities", {{"stated", {{"value", 1.0}}}, {"exact", {{"value", 1.0}}}}},
                          {"verdict", "confirmed"}});
  const std::string tex = latex_table(r);
  CHECK(has(tex, "Task, features, $w$ &"));
  CHECK(has(tex, "quadratic, $\\bar x$, averaged $w$, random $\\Gamma$"));
  CHECK_FALSE(has(tex, "quad-avg-w-random-gamma"));
  CHECK_FALSE(has(body(tex), "\\texttt{"));
  // A parameter no claim names: its key in words, never in typewriter type; training settings as phrases.
  json t = r;
  t["claim"] = "mine.own";
  for (auto& c : t["cases"]) c["params"] = {{"prompts_per_n", 100}, {"steps", 200}, {"batch", 64}, {"n", c["params"]["n"]}};
  const std::string own = latex_table(t);
  CHECK(has(own, "Every case has prompts per n: \\num{100}, \\num{200} steps, minibatch \\num{64}."));
  CHECK_FALSE(has(body(own), "\\texttt{"));
}

TEST_CASE("paper-ready: a training table spells its parts out, names its reduced budget, and sends nobody elsewhere") {
  json r = report_head("acds.exp43", "inconclusive", "standard");
  r["training"] = {{"paper_settings", false},
                   {"paper_settings_differences", "minibatch 1000 (paper 20000); not stated by the paper (ours): 300 steps"}};
  r["parts"] = json::array();
  r["cases"] = json::array();
  for (const char* p : {"a", "b", "c"}) {
    r["parts"].push_back({{"id", p}, {"statement", "x"}, {"strength", "empirical"}, {"verdict", "inconclusive"}});
    r["cases"].push_back({{"params", {{"n", 20}, {"runs", 5}, {"batch", 1000}}},
                          {"part", p},
                          {"quantities", {{"bound", {{"value", 0.1}}}}},
                          {"verdict", std::string(p) == "c" ? "confirmed" : "inconclusive"}});
  }
  const std::string tex = latex_table(r);
  CHECK(has(caption_of(tex), "Training at a reduced budget (below)."));
  CHECK(has(tex, "Training at a reduced budget: minibatch 1000 (paper 20000)."));
  CHECK_FALSE(has(tex, "not stated by the paper"));
  CHECK(has(tex, "Parts of the statement: (a) the training loss converges to an almost $0$ value (empirical): "
                 "\\textbf{inconclusive};"));
  CHECK(has(tex, "(c) $\\mathrm{Dist}(A_i, I)$ stays away from $0$"));
  CHECK_FALSE(has(tex, "summary.md"));
  CHECK(has(tex, "Every case has $n$$=$\\num{20}, \\num{5} runs, minibatch \\num{1000}."));
  // A claim that trains beside its statement (not a training table): no budget sentence.
  json thm7 = r;
  thm7["claim"] = "sja.thm7";
  CHECK_FALSE(has(latex_table(thm7), "Training at a reduced budget"));
  // Parts without typeset text are spelled out from their statements.
  json own = r;
  own["claim"] = "mine.own";
  own["parts"][1]["statement"] = "The loss falls with n.";
  CHECK(has(latex_table(own), "(b) the loss falls with n (empirical)"));
}

TEST_CASE("paper-ready: figure titles name no claim") {
  CHECK(figure_title("sja.fig1: quadratic ICL, training loss") == "Quadratic ICL, training loss");
  CHECK(figure_title("zfb.thm4: L(t) - global minimum") == "L(t) - global minimum");
  CHECK(figure_title("||theta(t) - theta_*|| / ||theta_*||") == "||theta(t) - theta_*|| / ||theta_*||");
  CHECK(figure_title("Form (8), d = 5") == "Form (8), d = 5");
  PlotSpec p{"acds.exp43: form (8)", "step", "loss", false, true, {{"run 0", {1, 2}, {3, 2}, false}}};
  const std::string svg = svg_plot(p);
  CHECK(has(svg, ">Form (8)<"));
  CHECK_FALSE(has(svg, "acds.exp43"));
}

TEST_CASE("paper-ready: a law in the notes is set as a law (x ~ N(0, I) with \\sim, not a tilde accent)") {
  json r = thm2_report("standard", false, false);
  r["proposed_correction"] = {{"verified", true}, {"formula", "d/n"}, {"latex", "\\frac{d}{n}"},
                              {"scope", "quadratic task, x ~ N(0, I)"}, {"fitted_on", 3}, {"held_out", 1}};
  const std::string tex = latex_table(r);
  CHECK(has(tex, "x $\\sim$ N(0, I)"));
  CHECK_FALSE(has(tex, "textasciitilde"));
  // A tilde that is not spaced (a path, a code name) stays a character.
  r["proposed_correction"]["scope"] = "~/data";
  CHECK(has(latex_table(r), "\\textasciitilde{}/data"));
}

}  // namespace test_paper_ready
