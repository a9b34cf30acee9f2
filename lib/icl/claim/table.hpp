// The table a report's cases call for (<claim>.tex, report.hpp): its kind (equality, bound, identity, slope, trend,
// training comparison), its place in the paper, a typeset title and its columns. A claim declares its own
// (Claim::table, with_table in claim/claim.hpp); a claim that declares none (a claim of one's own, Python
// `icl_verify.check`) gets the generic equality table of stated, exact and Monte Carlo values.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace icl {

enum class TableKind { equality, bound, identity, slope, trend, training };
const char* to_string(TableKind k);

struct TableColumn {
  std::string quantity;  // key in a case's "quantities"; "a|b": the first of them the case has
  std::string header;    // LaTeX
  std::string meaning;   // for the caption
};

struct ClaimTable {
  TableKind kind = TableKind::equality;
  std::string where;        // "Theorem~2", LaTeX
  std::string latex_title;  // the claim's title with its maths typeset
  std::vector<TableColumn> columns;
  // How the case parameters read in the table, where the defaults (report.cpp: the papers' symbols for d, n, L, ...,
  // plain words for the training settings, the covariances' names in words) do not serve. LaTeX.
  //   param_headers: parameter key -> column head ("setting" -> "Loss, features")
  //   param_values:  parameter key -> (a coded value's name, or a text value, or a plain number as "{:g}" writes
  //                  it) -> what the cell shows ("quad-avg-w-random-gamma" -> "quadratic, averaged $w$, random
  //                  $\Gamma$")
  std::map<std::string, std::string> param_headers = {};
  std::map<std::string, std::map<std::string, std::string>> param_values = {};
  // The parts of the statement as the table's notes spell them out, in LaTeX (part ID -> text); a part without one
  // is spelled out from its plain-text statement.
  std::map<std::string, std::string> part_text = {};
};

// A table with the parts of its statement typeset (ClaimTable::part_text).
inline ClaimTable with_part_text(ClaimTable t, std::map<std::string, std::string> parts) {
  for (auto& [k, v] : parts) t.part_text[k] = std::move(v);
  return t;
}

// A table with the heads and values of its case parameters in words (ClaimTable::param_headers, param_values).
inline ClaimTable with_param_text(ClaimTable t, std::map<std::string, std::string> headers,
                                  std::map<std::string, std::map<std::string, std::string>> values = {}) {
  for (auto& [k, v] : headers) t.param_headers[k] = std::move(v);
  for (auto& [k, v] : values) t.param_values[k] = std::move(v);
  return t;
}

// The columns most tables share: the paper's value ("stated", headed "Paper"), the project's exact value and the Monte
// Carlo estimate. Functions, not constants: claims build their tables in static initialisers of other translation
// units.
TableColumn paper_value_column();
TableColumn exact_column();
TableColumn mc_column();

// The table of the claim (or unlisted claim, claim.hpp) registered under this ID; the generic equality table for
// one that declares none or an ID nobody registered.
ClaimTable claim_table(const std::string& claim_id);

}  // namespace icl
