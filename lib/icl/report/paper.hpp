// What a paper needs from a report: the four papers (authors, title, year, BibTeX), per claim the kind of
// table its cases call for (equality, bound, identity, slope, trend, training comparison), its place in the
// paper and a typeset title, and careful number formatting for LaTeX (siunitx) and Markdown.
//
// Claims outside the catalogue (examples/own_claim, `icl-verify eval`) get the generic equality table.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace icl {

struct PaperRef {
  const char* prefix;   // "sja"
  const char* bibkey;   // "sun2025role"
  const char* authors;  // "Haoyuan Sun, Ali Jadbabaie and Navid Azizan"
  const char* short_authors;  // "Sun, Jadbabaie and Azizan"
  const char* title;
  int year;
  const char* venue;    // where it appeared, as the seed files and citing papers give it
  const char* bibtex;   // the full @article/@inproceedings entry
};
const std::vector<PaperRef>& papers();
// The paper a claim ID belongs to (by its prefix), or nullptr.
const PaperRef* paper_of(const std::string& claim_id);
// "Sun, Jadbabaie and Azizan (2025), *On the Role of ...*": for Markdown and the command line.
std::string paper_citation(const PaperRef& p);
// Every paper as BibTeX (icl-verify.bib).
std::string bibtex_all();

enum class TableKind { equality, bound, identity, slope, trend, training };
const char* to_string(TableKind k);

struct TableColumn {
  std::string quantity;  // key in a case's "quantities"
  std::string header;    // LaTeX
  std::string meaning;   // for the caption
};

struct ClaimTable {
  TableKind kind = TableKind::equality;
  std::string where;        // "Theorem~2", LaTeX
  std::string latex_title;  // the claim's title with its maths typeset
  std::vector<TableColumn> columns;
};
// The table for a claim ID; a generic equality table for an ID it does not know.
ClaimTable claim_table(const std::string& claim_id);

// Number formatting. A value with an uncertainty is rounded to the uncertainty (two significant digits of
// the uncertainty); whole numbers print as whole numbers; others with 4 significant digits.
struct Rounded {
  std::string mantissa;     // "0.66", "-3.49", "12"
  std::string uncertainty;  // "" or "0.26" (same decimal places as the mantissa)
  int exponent = 0;         // power of ten (0: none)
};
Rounded round_value(double v);
Rounded round_with_uncertainty(double v, double half_width);
// siunitx input: "\num{0.66 +- 0.26}", "\num{3.49e6}"; inside a table cell.
std::string latex_number(const Rounded& r);
// Plain text: "0.66 ± 0.26", "3.49e6", "−0.5" (true minus sign).
std::string text_number(const Rounded& r);

// A report's run mode: "standard" (default grid and budget), "quick", or "custom" (--set or --samples).
std::string run_mode(const nlohmann::ordered_json& report);

}  // namespace icl
