// Proposed corrections: when a stated closed form is refuted and the library computes the quantity exactly (as a
// fraction), the closed form the exact values follow, fitted on a grid the toolkit chooses and verified exactly on
// cases it was not fitted on. Reported only when every held-out case matches; otherwise the report says that no
// formula in the searched family fits, and what was searched.
//
// The family, first: polynomials with rational coefficients in the variables of role `polynomial` (d, parameters of
// one's own) and in 1/v for those of role `reciprocal` (n):  sum_e q_e prod_i t_i^e_i,  t_i = v_i or 1/v_i,  0 <= e_i.
// Then, where no polynomial fits or the one through the grid misses a held-out case: rational functions N/D, N and D
// polynomials in the variables themselves (every role), of total degrees a and b with a + b <= m - 2 (m the fewest
// fitting values of a variable, so that every line of the grid has a redundant value), tried in increasing a + b:
// the first (a, b) at which N(x) - y D(x) = 0 on the grid has a one-dimensional solution (exact Gaussian
// elimination) gives the formula. Where f = N0/D0 in lowest terms, every N/D through the values is N0 q / D0 q, so
// the first fitting a + b is that of N0/D0 and the solution there is unique up to a constant: the smallest rational
// function through the values. Like the polynomial, it is reported only when it equals the exact value at every
// held-out case.
// The fitting grid is a tensor grid (m_i values of each variable) and the fit is its unique tensor interpolant,
// computed exactly one variable at a time (Newton's divided differences on every line of the grid, then the
// monomial coefficients). A formula is found when its degree in each variable is at most m_i - 2, i.e. when
// the values along every line of the grid follow a polynomial of lower degree than the points could force
// (at least one redundant value in each direction). The interpolant is then the smallest-degree member of the
// family through the grid values, and the only one: no formula with fewer terms or lower degrees fits.
// It is then evaluated exactly at the held-out points and compared with the exact values there; `verified`
// means that every one matches exactly (rational equality, no tolerance).
//
// Exactness is the oracle's: it must return the quantity as a fraction (exact Gaussian moments, exact_* functions
// of lib/icl/exact/), or nothing where it cannot.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icl {

enum class FitRole { polynomial, reciprocal };  // the formula is polynomial in v, or in 1/v

struct FitVariable {
  std::string name;
  FitRole role = FitRole::polynomial;
  std::vector<Rational> values;  // the fitting values, distinct (nonzero for a reciprocal variable)
};

// A closed form: sum of coefficient x prod_i v_i^power_i (power_i < 0 for 1/v_i), over a denominator of the same
// kind with nonnegative powers where there is one (a rational function; empty: 1).
struct ClosedForm {
  using Terms = std::vector<std::pair<std::vector<int>, Rational>>;  // powers, nonzero coefficient
  std::vector<std::string> names;
  Terms terms;
  Terms denominator;  // empty: the closed form is a polynomial (in v_i and 1/v_i)
  bool rational() const { return !denominator.empty(); }
  // The value at a point; throws std::domain_error where the denominator (or a 1/v_i) vanishes.
  Rational evaluate(const std::vector<Rational>& point) const;
  // Whether the closed form has a value at the point (no zero denominator).
  bool defined_at(const std::vector<Rational>& point) const;
  // Plain text that reads back unambiguously ("d*(d^3 + 18*d^2 + 95*d + 142)/(4*n)"): for each power of the
  // reciprocal variables, the polynomial part with its common factor taken out.
  std::string text() const;
  std::string latex() const;
};

// The oracle: the exact quantity at a point (one value per variable, in the order of `variables`), or nothing, with
// the reason in `why`, where it cannot be computed.
using ExactOracle = std::function<std::optional<Rational>(const std::vector<Rational>& point, std::string& why)>;

struct CorrectionSearch {
  std::vector<FitVariable> variables;
  std::vector<std::vector<Rational>> held_out;  // points not on the fitting grid (at least 3 for a verified proposal)
  ExactOracle exact;
  std::string reading;           // how the oracle reads the model's weights, appended to `family` ("" if exactly)
  std::string scope;             // what the formula is stated for ("task linear, Sigma = I, noise 0"), or ""
  double time_budget_s = 60;     // wall clock for the whole search; past it, the search stops and says so
  std::function<void()> between; // called before each exact evaluation (e.g. to let Python raise KeyboardInterrupt)
};

struct ProposedCorrection {
  bool searched = false;  // a search ran (false: why_not says why none could)
  bool found = false;     // a formula of the family goes through every fitting value
  bool verified = false;  // and equals the exact value at every held-out case
  ClosedForm formula;
  std::size_t fitted_on = 0;  // exact values the formula was fitted on
  std::size_t held_out = 0;   // held-out cases it was checked on
  std::string family;         // what was searched, in words
  std::string scope;          // what the formula is stated for (CorrectionSearch::scope)
  std::string why;            // why nothing is proposed (empty when verified)
  nlohmann::ordered_json fitting_grid = nlohmann::ordered_json::object();  // variable -> fitting values
  nlohmann::ordered_json held_out_cases = nlohmann::ordered_json::array();  // params, exact, proposed, equal
  std::size_t claim_cases_checked = 0, claim_cases_equal = 0;  // check_on_claim_cases
  double seconds = 0;

  // The report's `proposed_correction` block: formula, latex, fitted_on, held_out, verified (docs/reports.md),
  // then `why` when nothing is proposed (formula and latex null), family, fitting_grid, held_out_cases,
  // claim_cases and seconds.
  nlohmann::ordered_json to_json() const;
};

// Fit and verify (above). Never throws for a quantity that does not fit: the result says so.
ProposedCorrection propose_correction(const CorrectionSearch& s);

// Nothing searched, with the reason (a refuted claim whose quantity is not computed exactly, say).
ProposedCorrection no_correction_search(std::string why_not);

// One axis of a claim's parameter grid, for choosing a search's fitting grid and held-out cases.
struct GridAxis {
  std::string name;
  FitRole role = FitRole::polynomial;
  bool integer = true;
  double min = 1, max = 1e9;        // the parameter's declared range
  std::vector<double> values;       // the values the claim's grid gives
  bool from_one = false;            // fit from the range's smallest whole value (d: from 1) rather than the grid's
};

// A fitting grid of 6 values per variable and 4 held-out points, chosen from the axes: whole-number variables on
// consecutive values (a reciprocal one on multiples of its smallest value), real ones on a dyadic step (the largest
// power of two not above the smallest gap of the grid's values), so that values a user's code computes with stay
// exact in double precision; held-out points beyond the fitting grid in every variable (larger d and n) and one
// between its values for real variables. Returns nothing (and the reason in `why`) when the declared ranges leave
// no room for it.
std::optional<CorrectionSearch> choose_correction_grid(const std::vector<GridAxis>& axes, std::string& why);

// A verified correction checked at the claim's own cases as well (points, one value per variable, where the oracle
// computes one): `claim_cases` {checked, equal} in the report; a case where it misses the exact value withdraws
// it (verified false, with why).
void check_on_claim_cases(ProposedCorrection& c, const std::vector<std::vector<Rational>>& points,
                          const ExactOracle& exact);

// Whether two closed forms are the same polynomial term by term (the same variables, in order, and the same
// coefficient of every power, numerator and denominator), whatever the order their terms were found in.
bool same_polynomial(const ClosedForm& a, const ClosedForm& b);

// The fitting grid in words, for a report's sentence: "d in {1, 2, 3}; n in {25, 50}" (the values as the report's
// `fitting_grid` holds them).
std::string fitting_grid_text(const ProposedCorrection& c);

// The largest value of `variable` over the held-out cases checked (those whose value is a number); 0 when none.
double held_out_max(const ProposedCorrection& c, const std::string& variable);

// Adds the quantity `proposed` (the verified formula's value at each case's parameters) to every case of a report's
// `cases`; nothing when the correction is not verified. A case without a value for one of the formula's variables
// is left as it is.
void add_proposed_quantity(nlohmann::ordered_json& cases, const ProposedCorrection& c);

}  // namespace icl
