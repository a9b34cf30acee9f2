// The rate kind of a claim of one's own (formula.hpp, kind "rate", rate_over = e.g. "n"): the loss behaves like
// C x^p as x = rate_over grows, p = stated(case) (the same for every x of a group). A statement "as x grows", judged
// by its trend and limit on the grid's values of x (at least 3; each group is one combination of the other
// parameters). The loss at each x: the library's exact loss where it has one, else Monte Carlo through the forward
// pass (`samples` prompts). The local log-log slopes s_j between consecutive x are the evidence:
//   exact:  confirmed when the last slope is within rate_tolerance of p; refuted when it is not and it is no nearer
//           p than the slope before it (the trend does not approach p); else inconclusive (approaching: larger x
//           would decide).
//   Monte Carlo: each slope with an interval (delta method on the logs, one-sided at the group's alpha over both
//           slopes); confirmed when the last slope's interval lies within the band, refuted when both slopes'
//           intervals lie outside it on the same side, else inconclusive.
// The kind owns its loop over groups (one report case per group, its x values and losses listed).
#pragma once
#include "icl/claim/kinds/formula.hpp"
#include "icl/claim/table.hpp"

#include <string>

namespace icl {

// The fields only this kind takes (rate_over, rate_tolerance); throws UsageError where one is wrong.
void check_rate_fields(const FormulaClaim& f);
// The part the claim asserts (Claim::parts) and the columns of its table.
std::string rate_part(const FormulaClaim& f);
ClaimTable rate_table(const FormulaClaim& f);
// The whole run of a rate claim.
ClaimResult run_rate(const FormulaClaim& f, const ClaimContext& ctx);

}  // namespace icl
