// Sun, Jadbabaie, Azizan (000), Corollary 8 (Sec. 4.2) and Appendix H, the checks of the App. H stack (sja_appH.hpp):
// one cycle of the schedule pushed through the layers' actual weight matrices as polynomials
// (exact/symbolic_forward.hpp), and one prompt through the real stack against an independent block-coordinate
// descent over all monomials of degree <= p (long double, sja_bcd_reference.hpp); and a finding beside them, the
// stack's loss after each block (what depth buys).
#pragma once
#include "constructions/sja_appH.hpp"
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/claim/claim.hpp"
#include "icl/montecarlo/worst_case.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <set>
#include <vector>

namespace icl::sja {

// A block: the monomial in each of the dbar feature rows (an empty exponent: the row is zero).
struct AppHBlock {
  std::vector<Exponent> rows;  // size dbar; a zero row is marked by an empty exponent
};

struct AppHCycle {
  std::vector<AppHBlock> blocks;  // one cycle plus the first steps of the next
  std::size_t cycle = 0;
  int non_monomial_rows = 0;
  std::set<Exponent> covered;
  bool second_cycle_repeats = true;
};

// One cycle of the schedule and the first p + 1 blocks of the next through the layers, as polynomials: each block's
// scratch rows (0 or a single monomial with coefficient 1; anything else counted in non_monomial_rows and marked
// zero), the monomials the first cycle reaches, and whether the second cycle repeats the first.
AppHCycle appH_simulate(int d, int p, const std::vector<AppHStep>& schedule);

// The numeric setting of the identity check at context length n: all monomials of degree <= p, per block its non-zero
// rows, their monomials' indices and Lambda_b^+ (the inverse population Gram of the block's non-zero features, exact
// Gaussian moments, zero on the zero rows).
struct AppHNumeric {
  int d, p, n, L, dbar;
  std::vector<Exponent> monomials;
  std::vector<std::vector<int>> rows_nonzero;  // per block: rows holding a monomial
  std::vector<std::vector<int>> block_index;   // per block: monomial index of those rows
  std::vector<Eigen::MatrixXd> lambda_pinv;    // per block: dbar x dbar, zero on zero rows
  std::vector<Exponent> scratch_monomial_dummy;
  const AppHCycle* sym;
};
AppHNumeric appH_numeric(int d, int p, int n, const AppHCycle& sym);

// One prompt (stream purpose, index i; labels a degree-p polynomial with N(0, 1) coefficients) through the stack of
// nm.L blocks against block-coordinate descent with eta = -Gamma^T. Gamma per block: -Lambda_b^+ on even prompts, the
// non-symmetric -Lambda_b^+ (I + 0.3 G / sqrt(dbar)) / 2 on odd ones. The errors:
//   kLabels      the label row after each attention layer against the reference, relative to each entry's terms;
//   kScratch     the scratch rows after each bilinear layer against the block's monomials (relative to prod(1 + |x|));
//   kQueryPlain  the final prediction against the reference's, plain relative;
//   kRefSelf     the double reference against the long double one (the rounding floor);
//   kOutOfRange  1 for a prompt whose exact (long double) block-coordinate descent leaves the range a double forward
//                pass can carry (BcdReference::leaves_double_range(kDoubleRangeTerm), montecarlo/worst_case.hpp);
//                such a prompt tests floating point, not the identity, and nothing else is measured. With n = 6
//                context points and hundreds of blocks (d = 3, p = 6: 126 per cycle) an occasional prompt makes the
//                preconditioned descent diverge (e.g. to 6e161).
struct AppHPrompt {
  enum Error : int { kLabels = 0, kScratch, kQueryPlain, kRefSelf, kOutOfRange, kDims };
};
std::array<double, AppHPrompt::kDims> appH_check_prompt(const AppHNumeric& nm, const std::vector<AppHStep>& schedule,
                                                        std::uint64_t seed, std::uint64_t purpose, std::uint64_t i);

// appH_check_prompt over prompts 0..count-1 (the worst of each error and where; a prompt out of range set aside), the
// same at any thread count.
WorstCase appH_worst_over_prompts(const AppHNumeric& nm, const std::vector<AppHStep>& schedule, std::uint64_t seed,
                                  std::uint64_t purpose, std::uint64_t count, int threads);

// What depth buys for a cubic target (not part of the verdict): Monte Carlo loss after each block of the
// App. H stack (d = 4, p = 3, two cycles), Gamma_b = -Lambda_b^+ over the block's non-zero features,
// beside OLS over all C(d+p, p) monomials on the same prompts. Stream ctx.purpose("depth d=D p=P n=N"), the same prompts for every damping.
nlohmann::ordered_json appH_depth_table(const ClaimContext& ctx, int d, int p, int n, int cycles, std::uint64_t prompts,
                                        double damping);

}  // namespace icl::sja
