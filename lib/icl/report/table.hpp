// The table a report's cases call for (<claim>.tex, report.hpp): its kind (equality, bound, identity, slope, trend,
// training comparison), its place in the paper, a typeset title and its columns. A claim declares its own
// (Claim::table, with_table in claim/claim.hpp); a claim that declares none (a claim of one's own, Python
// `icl_verify.check`) gets the generic equality table of stated, exact and Monte Carlo values.
#pragma once
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
};

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
