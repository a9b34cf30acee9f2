// Paper-ready output (lib/icl/report/paper.hpp, table.hpp, lib/icl/claim/param_names.hpp): number rounding, papers,
// tables, value names, and the LaTeX of a report.
#include "icl/claim/param_names.hpp"
#include "icl/cli/engine.hpp"
#include "icl/report/paper.hpp"
#include "icl/report/report.hpp"
#include "icl/claim/table.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace test_paper {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("paper: a value with an uncertainty is rounded to two significant digits of the uncertainty") {
  CHECK(text_number(round_with_uncertainty(0.6605, 0.2604)) == "0.66 \u00b1 0.26");
  CHECK(latex_number(round_with_uncertainty(0.6605, 0.2604)) == "\\num[uncertainty-mode=separate]{0.66 +- 0.26}");
  CHECK(text_number(round_with_uncertainty(3.663, 0.36)) == "3.66 \u00b1 0.36");
  CHECK(text_number(round_with_uncertainty(-0.987, 0.0233)) == "\u22120.987 \u00b1 0.023");
  CHECK(text_number(round_with_uncertainty(1234.4, 87.0)) == "1234 \u00b1 87");
  // Outside [1e-3, 1e5): a common power of ten.
  const Rounded big = round_with_uncertainty(3.49e6, 1.2e5);
  CHECK(big.mantissa == "3.49");
  CHECK(big.uncertainty == "0.12");
  CHECK(big.exponent == 6);
  CHECK(latex_number(big) == "\\num[uncertainty-mode=separate]{3.49 +- 0.12e6}");
}

TEST_CASE("paper: whole numbers print as whole numbers, others with four significant digits") {
  CHECK(latex_number(round_value(13730)) == "\\num{13730}");
  CHECK(latex_number(round_value(-1)) == "\\num{-1}");
  CHECK(text_number(round_value(-0.5)) == "\u22120.5");
  CHECK(text_number(round_value(0.25)) == "0.25");
  CHECK(text_number(round_value(0.123456)) == "0.1235");
  const Rounded small = round_value(9.589e-4);
  CHECK(small.mantissa == "9.589");
  CHECK(small.exponent == -4);
  CHECK(round_value(9.99996e-4).mantissa == "1");  // rounds up into the next power of ten
  CHECK(round_value(9.99996e-4).exponent == -3);
}

TEST_CASE("paper: every prefix names its paper; coded values have names both ways") {
  REQUIRE(paper_of("sja.thm2") != nullptr);
  CHECK(std::string(paper_of("sja.thm2")->short_authors) == "Sun, Jadbabaie and Azizan");
  CHECK(paper_of("acds.thm1")->year == 2023);
  CHECK(paper_of("zfb.thm4")->year == 2024);
  CHECK(std::string(paper_of("xlssc.onelayer")->prefix) == "xlssc");
  CHECK(paper_of("oswald.prop1") == nullptr);
  for (const auto& p : papers()) CHECK(bibtex_all().find(p.bibkey) != std::string::npos);
  CHECK(param_value_name("acds.thm1", "cov", 2) == "rotated");
  CHECK(param_value_from_name("acds.thm1", "cov", "rotated") == 2.0);
  CHECK(param_value_name("acds.thm1", "d", 2).empty());
  // A case parameter the claim sets itself (Claim::case_names), not a --set parameter.
  CHECK(param_value_name("sja.fig3", "test", 2) == "r2");
  CHECK(resolve_value_names({"cov=isotropic,2", "d=2"}, {"acds.thm1"}) ==
        std::vector<std::string>{"cov=0,2", "d=2"});
  CHECK_THROWS_AS(resolve_value_names({"cov=bogus"}, {"acds.thm1"}), UsageError);
  // zfb.thm4 and acds.thm1 code cov differently: a name that means two values is refused.
  CHECK_NOTHROW(resolve_value_names({"cov=isotropic"}, {"acds.thm1", "zfb.thm4"}));
  CHECK_THROWS_AS(resolve_value_names({"cov=rot-k100"}, {"acds.thm1", "zfb.thm4"}), UsageError);
}

TEST_CASE("paper: every registered claim has its paper and is listed once, in its paper's claim_order") {
  const std::vector<std::string> ids = listed_claim_ids();
  CHECK(ids.size() == claim_registry().size());
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == ids.size());
  for (const auto& c : claim_registry()) {
    CAPTURE(c.id);
    CHECK(paper_of(c.id) != nullptr);
  }
  // claim_order names registered claims of its own paper only (a renamed or removed claim is caught here), and a
  // paper's claims are listed in it, those it leaves out after them.
  for (const auto& p : papers()) {
    for (const auto& id : p.claim_order) {
      CAPTURE(id);
      CHECK(find_claim(id) != nullptr);
      CHECK(paper_of(id) == &p);
    }
    std::vector<std::string> listed;
    for (const auto& id : ids)
      if (paper_of(id) == &p) listed.push_back(id);
    REQUIRE(listed.size() >= p.claim_order.size());
    CHECK(std::equal(p.claim_order.begin(), p.claim_order.end(), listed.begin()));
  }
}

TEST_CASE("paper: a claim's table is its own declaration; an ID without one gets the generic equality table") {
  const Claim* c = find_claim("sja.thm2");
  REQUIRE(c != nullptr);
  REQUIRE(c->table.has_value());
  CHECK(claim_table("sja.thm2").where == c->table->where);
  CHECK(claim_table("sja.thm2").columns.size() == c->table->columns.size());
  const ClaimTable generic = claim_table("my.claim");
  CHECK(generic.kind == TableKind::equality);
  CHECK(generic.where.empty());
  REQUIRE(generic.columns.size() == 3);
  CHECK(generic.columns[0].header == "Stated");
}

TEST_CASE("paper: a LaTeX table cites the paper, names the run and shows at most 12 cases") {
  nlohmann::ordered_json r;
  r["schema"] = "icl-verify/report/v1";
  r["claim"] = "sja.thm2";
  r["title"] = "t";
  r["verdict"] = "refuted";
  r["seed"] = 7;
  r["quick"] = true;
  r["run_mode"] = "quick";
  r["sample_budget_per_case"] = 8192;
  r["parts"] = nlohmann::ordered_json::array({{{"id", "a"}, {"strength", "theorem"}, {"verdict", "refuted"}}});
  r["cases"] = nlohmann::ordered_json::array();
  for (int n = 1; n <= 20; ++n)
    r["cases"].push_back({{"params", {{"d", 1}, {"n", n}}},
                          {"part", "a"},
                          {"quantities", {{"stated", {{"value", 0.5}}}, {"exact", {{"value", 2.0 * n}}}}},
                          {"verdict", n == 17 ? "refuted" : "confirmed"}});
  const std::string tex = latex_table(r);
  CHECK(tex.find("\\citep[Theorem~2]{sun2025role}") != std::string::npos);
  CHECK(tex.find("Theorem~2") != std::string::npos);
  CHECK(tex.find("Quick run, \\num{8192} prompts per case, seed 7") != std::string::npos);
  CHECK(tex.find("12 of the 20 cases") != std::string::npos);
  CHECK(tex.find("\\num{34}") != std::string::npos);  // the refuted case (n = 17) is among the 12
  // The verdicts differ between cases: each row has its own.
  CHECK(tex.find("& Verdict") != std::string::npos);
  CHECK(tex.find("\\textbf{refuted} \\\\") != std::string::npos);
  CHECK(tex.find("Every case's verdict") == std::string::npos);
  CHECK(needs_cases_appendix(r));
  const std::string all = latex_cases_longtable(r);
  CHECK(all.find("\\begin{longtable}") != std::string::npos);
  CHECK(all.find("\\num{40}") != std::string::npos);  // every case, n = 20 included
  // summary.md shows the same 12 cases and says where the others are.
  const std::string md = markdown_claim(r);
  CHECK(md.find("12 of the 20 cases") != std::string::npos);
  CHECK(md.find("| 34 |") != std::string::npos);
  CHECK(md.find("d=1, n=2 |") == std::string::npos);  // not among the 12 (the LaTeX appendix has it)
  CHECK(md.find("d=1, n=20 |") != std::string::npos);
}

TEST_CASE("paper: parameters and a verdict equal in every case go to the notes, long text wraps, a column takes alternatives") {
  nlohmann::ordered_json r;
  r["schema"] = "icl-verify/report/v1";
  r["claim"] = "sja.fig4";
  r["title"] = "t";
  r["verdict"] = "inconclusive";
  r["seed"] = 1;
  r["run_mode"] = "standard";
  r["sample_budget_per_case"] = 2000;
  r["cases"] = nlohmann::ordered_json::array();
  r["cases"].push_back({{"params", {{"d", 3}, {"n_train", 200}, {"comparison", "n_train=200 < n_train=100"}}},
                        {"quantities", {{"larger_n_train_mean_loss", {{"value", 16.5}}},
                                        {"smaller_n_train_mean_loss", {{"value", 16.25}}}}},
                        {"verdict", "inconclusive"}});
  r["cases"].push_back({{"params", {{"d", 3}, {"n_train", 100}, {"n_test", 50}, {"comparison", "loss(n_test=50) > loss(n_test=100)"}}},
                        {"quantities", {{"short_mean_loss", {{"value", 344.75}}}, {"train_length_mean_loss", {{"value", 15.5}}}}},
                        {"verdict", "inconclusive"}});
  const std::string tex = latex_table(r);
  CHECK(tex.find("Every case has $d$$=$\\num{3}.") != std::string::npos);  // d is the same in both cases
  CHECK(tex.find("$d$ &") == std::string::npos);                           // and so is not a column
  CHECK(tex.find("$n_{\\mathrm{train}}$ &") != std::string::npos);          // n_train differs: a column, headed as
  CHECK(tex.find("\\texttt{", tex.find("\\begin{tabular}")) == std::string::npos);  // the paper writes it, no code
                                                                                   // name (the list of tables has the ID)
  CHECK(tex.find("Also") != std::string::npos);                            // n_test: only in the second case
  // Text over 26 characters wraps in a box; shorter text keeps its natural width.
  CHECK(tex.find("\\parbox[t]{9em}{\\raggedright loss($n_{\\mathrm{test}}$=50) \\textgreater{} loss($n_{\\mathrm{test}}$=100)}") !=
        std::string::npos);
  CHECK(tex.find("$n_{\\mathrm{train}}$=200 \\textless{} $n_{\\mathrm{train}}$=100 &") != std::string::npos);
  CHECK(tex.find("\\raggedright $n_{\\mathrm{train}}$=200") == std::string::npos);
  // Both cases are inconclusive: the notes say so once, and there is no Verdict column.
  CHECK(tex.find("Every case's verdict: inconclusive.") != std::string::npos);
  CHECK(tex.find("& Verdict") == std::string::npos);
  // "Left" reads larger_n_train_mean_loss in the first case and short_mean_loss in the second.
  CHECK(tex.find("\\num{16.5} & \\num{16.25}") != std::string::npos);
  CHECK(tex.find("\\num{344.8} & \\num{15.5}") != std::string::npos);
}

}  // namespace test_paper
