#include "icl/claim/table.hpp"

#include "icl/claim/claim.hpp"

namespace icl {

const char* to_string(TableKind k) {
  switch (k) {
    case TableKind::equality: return "equality";
    case TableKind::bound: return "bound";
    case TableKind::identity: return "identity";
    case TableKind::slope: return "slope";
    case TableKind::trend: return "trend";
    case TableKind::training: return "training comparison";
  }
  return "equality";
}

TableColumn paper_value_column() { return {"stated", "Paper", "the paper's value"}; }
TableColumn exact_column() { return {"exact", "Exact", "our own exact value"}; }
TableColumn mc_column() {
  return {"mc", "Monte Carlo", "Monte Carlo through the forward pass, mean $\\pm$ interval half-width"};
}

ClaimTable claim_table(const std::string& claim_id) {
  if (const Claim* c = find_report_claim(claim_id); c && c->table) return *c->table;
  // A claim of one's own: its formula is "Stated", not the paper's.
  return ClaimTable{TableKind::equality, "", "", {{"stated", "Stated", "the stated value"}, exact_column(), mc_column()}};
}

}  // namespace icl
