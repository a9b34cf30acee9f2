// What a paper needs from a report: the papers (authors, title, year, BibTeX), registered by the claims' code
// (claims/papers.cpp), and careful number formatting for LaTeX (siunitx) and Markdown. A claim's paper is the one
// registered for its ID's prefix; a claim of no registered paper (examples/own_claim registers its own) is cited
// by none. A claim's table: table.hpp.
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
  // Its claims' IDs in the order `icl-verify list` shows them; a registered claim of the paper not named here
  // follows them, in ID order.
  std::vector<std::string> claim_order = {};
};
// Every registered paper, in registration order (the order of `list`, summary.md's paper list and icl-verify.bib).
const std::vector<PaperRef>& papers();
struct RegisterPaper {
  explicit RegisterPaper(PaperRef p);
};
// The paper a claim ID belongs to (by its prefix), or nullptr.
const PaperRef* paper_of(const std::string& claim_id);
// "Sun, Jadbabaie and Azizan (2025), *On the Role of ...*": for Markdown and the command line.
std::string paper_citation(const PaperRef& p);
// Every paper as BibTeX (icl-verify.bib).
std::string bibtex_all();
// Every registered claim ID in the order `icl-verify list` shows them: paper by paper (papers()), each paper's claims
// in its claim_order and then the others of it in ID order; last the claims of no registered paper, in ID order.
std::vector<std::string> listed_claim_ids();

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

// A confidence level as a percentage for a table: 0.9975 -> "99.75", 0.95 -> "95", 0.999955 -> "99.99": rounded
// down to two decimals (a 99.9955% interval is also a 99.99% interval), trailing zeros dropped. `rounded_down` (if
// given) is set when that changed the level.
std::string confidence_percent(double confidence, bool* rounded_down = nullptr);

// A report's run mode: "standard" (default grid and budget), "quick", or "custom" (--set or --samples).
std::string run_mode(const nlohmann::ordered_json& report);

}  // namespace icl
