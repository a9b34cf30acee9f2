// Shared by acds.thm3 and acds.thm4 (002, Theorems 3 and 4): their binding of the stationary kind
// (lib/icl/claim/kinds/stationary.hpp) to the acds forms on the families A_i = a_i Sigma^-1 (form (8)) and
// A_i = a_i Sigma^-1, B_i = b_i I (form (11)) (constructions/acds_landscape.hpp: the setting, the symmetry, the
// engine's gradients and controls). The family search runs on the reduced family loss (exact/acds_family_loss.hpp),
// which also cross-checks the engine on both forms; the Monte Carlo check runs the real forward pass.
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/claim/kinds/stationary.hpp"

namespace icl::acds_landscape {

struct Settings : stationary::Settings {
  bool form11 = false;
  Settings() {
    reference = "zero network";
    objective = "reduced polynomial E tr(pi(W)^2)";
    objective_short = "reduced";
    search_on = "the reduced family loss";
  }
};

// The whole run of acds.thm3 (s.form11 = false) or acds.thm4 (true): every case (params d, L, n, cov), the
// error rates, the findings and the summary.
ClaimResult run_claim(const ClaimContext& ctx, const Settings& s);

}  // namespace icl::acds_landscape
