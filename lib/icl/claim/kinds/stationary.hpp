// The stationary kind: "on a family of weights the loss has a stationary point, and there the gradient over every
// entry vanishes" (an infimum of a gradient norm that is 0). A binding supplies the family's own objective (the loss
// restricted to the family, with its gradient) and the engine's numbers at a point: the gradient over every entry,
// the same at a reference point (its scale), and at two controls. The kind owns the rest:
//   - the family search: L-BFGS from several starts (theta = 0, then N(0, 0.5^2) entries from the run's stream),
//     each finished by Newton steps (learn::newton_polish) to the floor of double precision;
//   - four exact decisions: the gradient at the point found against a declared precision relative to the reference's;
//     controls that must see a gradient (100 x the precision): off the family, and on it but off the point; the
//     engine against the family objective at the point (loss and family derivative); the search converged;
//   - the case verdict: confirmed where all four are and a Monte Carlo check through the forward pass does not
//     contradict the engine's loss; never refuted (no finite search refutes an infimum over an unbounded set);
//   - the case's quantities, decisions and multi-start profile, and the run's tally for the summary.
// acds's Theorems 3 and 4 are its claims (claims/common/acds_landscape, the binding).
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/learn/optimizers.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/checks.hpp"
#include "icl/verdict/decision.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <vector>

namespace icl::stationary {

struct Settings {
  int starts = 6;              // L-BFGS starts on the family (the first from theta = 0)
  double precision = 1e-8;     // declared: ||full gradient|| / ||gradient at the reference point|| at the found point
  double perturbation = 1e-4;  // off-family control: each matrix moved by this fraction of its norm
  bool on_family_control = true;
  double mc_tolerance = 0.10;  // relative band of the Monte Carlo loss check
  // The words of the decisions: the reference point, the family objective (and its short name, and what the search
  // runs on).
  std::string reference = "reference point";
  std::string objective = "family objective";
  std::string objective_short = "family objective";
  std::string search_on = "the family objective";
};

// The family search's outcome: the best start, how many converged (family gradient <= 1e-10), every start's loss.
struct Search {
  learn::MinimizeResult best;
  int converged = 0;
  std::vector<double> start_losses;
  int max_iterations = 0;
};

// Minimises `objective` over `size` family coordinates from s.starts starts; start k > 0 draws its entries from
// (seed, purpose, k).
Search search_family(const learn::Objective& objective, Eigen::Index size, const Settings& s, std::uint64_t seed,
                     std::uint64_t purpose);

// The engine's numbers at the point found (the binding computes them).
struct Gradients {
  double loss_engine = 0;    // the loss there
  double G_star = 0;         // ||gradient over every entry|| there
  double G_ref = 0;          // the same at the reference point (the scale)
  double relative = 0;       // G_star / G_ref
  double off_relative = 0;   // the same off the family (control), relative to G_ref
  double on_relative = NAN;  // on the family, off the point (control; NaN without it)
  double direction_residual = NAN;  // the on-family gradient's share outside the directions the symmetry predicts
  Eigen::VectorXd g_family_engine;  // the family derivative from the engine's full gradient
};

struct Decisions {
  Decision stationary, control, consistency, search;
};

// The four exact decisions at the point, given the family objective's own loss and gradient there.
Decisions decide(const Settings& s, const Gradients& gr, const Search& fs, double loss_family, const Eigen::VectorXd& g_family);

// Confirmed where the four exact decisions are and the Monte Carlo check (`mc`) does not refute; else inconclusive.
Verdict case_verdict(const Decisions& ds, const Decision& mc);

// The case's evidence: "<verdict>. Stationary point on the family: <point>. <stationary>. Controls: ... Loss check: ...".
std::string evidence(Verdict v, const std::string& point, const Decisions& ds, const Decision& mc);

// The kind's quantities, in two groups around the binding's own: the gradients and controls, then the losses.
void write_gradients(CaseJson& j, const Settings& s, const Gradients& gr);
void write_losses(CaseJson& j, const Gradients& gr, double loss_family, const EqualityOutcome& o, double variance_reduction);
// The verdict, its basis, every decision and the search's multi-start profile.
void write_verdict(CaseJson& j, Verdict v, const std::string& why, const Decisions& ds, const EqualityOutcome& o, const Search& fs);

// What the run keeps across cases for its summary: the worst relative gradient (and its case), the largest
// direction residual, the least off-family control, the Monte Carlo check's variance reduction.
struct Tally {
  double worst_relative = 0, worst_direction = 0, least_control = INFINITY;
  std::string worst_label;
  double vr_min = 1e300, vr_max = 0;
  void add(const std::string& label, const Settings& s, const Gradients& gr);
  void add_variance_reduction(double vr);
};

// The kind's LaTeX table (claim/table.hpp): the relative gradient at the point, the off-family control and the exact
// loss there, under `label` ("Theorem~3") and `caption`.
ClaimTable table(const std::string& label, const std::string& caption);

// The variance reduction of a check (variance of the plain estimator over the conditional one; 0 where undefined).
double variance_reduction(const EqualityOutcome& o);

}  // namespace icl::stationary
