// A claim of one's own about the in-context loss of a model one builds (the Python module's `check`, and C++ callers):
// a stated loss formula, or a bound, for linear-attention weights, judged by the same mechanism as the catalogue's
// claims (claim.hpp: a registered Claim, run by run_command, whose report is the same JSON, Markdown and LaTeX).
//
// Per case (one per combination of the grid's values; the grid must name d and n, and may name cov (0 isotropic,
// 1 diagonal, 2 rotated, 3 rotated with condition number 100; default 0), noise (label noise sd; default 0) and any
// parameter of one's own):
//   stated   the formula's value, stated(case);
//   exact    the library's own exact loss of the weights model(case) where it integrates one (one layer, any heads;
//            d <= 12 on the linear task, d <= 3 on the quadratic one), which knows nothing of the formula;
//   mc       Monte Carlo through the forward pass of those weights (the acds embedding; loss E[(yhat - y_q)^2],
//            yhat = -Z[d, n], as `icl-verify eval`).
// Equality and bounds ("upper_bound": loss <= stated; "lower_bound": loss >= stated) follow one decision rule
// (verdict/decision.hpp rule 4, verdict/checks.hpp exact_first_check): where the exact loss exists it decides (equal
// to, or on the stated side of, the stated value within exact_tolerance: confirmed; else refuted), and Monte Carlo
// through the forward pass checks the exact engine: excluding the exact loss (beyond `tolerance`) leaves the case
// inconclusive, flagged INTERNAL INCONSISTENCY, never a verdict on the formula. Without an exact loss, Monte Carlo
// against the stated value decides alone, in looks doubling from 4096 prompts up to `samples` (the cap; alpha split
// over the looks); a case it leaves undecided records `samples_to_decide`, the prompt count that would decide it
// (extrapolated from the interval's half-width), and the summary names those cases with that count.
// Argmin ("argmin", argmin_over = "eta"): stated(case) is the claimed minimiser of the loss over that parameter. On
// the exact loss (one layer, d within the exact range): a coarse grid of 41 points over the search range (for
// several minima) and Brent's method (Boost.Math brent_find_minima) from the grid's best point; confirmed when the
// loss at the stated minimiser is <= the loss at every searched point within exact_tolerance and the search's
// minimiser lies within argmin_tolerance of the stated one (or, off it, has no lower loss: a flat minimum); refuted
// otherwise, the counterexample the case with the better point and both losses. Monte Carlo of the loss at the
// stated minimiser checks the exact engine there as above. Without an exact loss the case is inconclusive (the
// argmin kind does not search on Monte Carlo estimates). A refuted claim carries the first refuted case as its
// counterexample.
//
// A refuted equality gets a proposed correction (verdict/proposed_correction.hpp) where the library computes the loss
// as an exact fraction: one layer, isotropic inputs (cov 0 in every case). The model is called at a fitting grid the
// toolkit chooses beyond the user's (d = 1..6, six values of n and of every parameter of one's own the grid varies;
// parameters with one value, and noise with one, are held fixed at it) and at held-out cases beyond that grid (larger
// d and n); the exact loss of its weights at each is fitted by a polynomial in d and those parameters and in 1/n, and
// reported only when it equals the exact loss at every held-out case and at every case of the user's grid. The report
// then holds `proposed_correction` and each case the quantity `proposed`; otherwise `proposed_correction` says why
// nothing is proposed. An exception from `model` at a point of the search ends the search (the report says where
// and why), not the run.
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/model/attention_weights.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icl {

struct FormulaClaim {
  std::string id;         // letters, digits, '.', '_', '-'; not a claim the library already has, nor 'all' or a subcommand
  std::string title;      // default: the statement, cut to 100 characters
  std::string source;     // default: "stated by the user"
  std::string statement;  // required
  std::string kind = "equality";  // "equality", "upper_bound" (loss <= stated), "lower_bound" (loss >= stated),
                                  // "argmin" (stated(case) minimises the loss over argmin_over; below)
  std::string task = "linear";    // "linear" or "quadratic" (eval.hpp)
  std::vector<ParamSpec> grid;    // d and n required; cov, noise optional
  std::function<double(const Case&)> stated;
  std::function<LsaStack(const Case&)> model;
  std::function<void()> between_cases;  // called before each case (e.g. to let Python raise KeyboardInterrupt)
  double tolerance = 0.05;              // Monte Carlo against the stated and the exact value, relative
  double exact_tolerance = 1e-9;        // exact against stated (floating point), relative (plus 1e-12 absolute)
  std::uint64_t samples = 262144;       // Monte Carlo prompts per case (the budget of the sequential looks)
  bool propose = true;                  // search for a correction when a stated equality is refuted (above)
  double propose_budget_s = 60;         // the search's time budget (wall clock)
  // kind "argmin": the parameter (not in the grid) whose minimiser stated(case) gives; model(case) is called with it
  // added. The search range (default: the stated value +/- max(|stated|, 1)); the tolerance on the minimiser's
  // place, relative to max(|stated|, 1).
  std::string argmin_over;
  std::optional<std::pair<double, double>> argmin_range;
  double argmin_tolerance = 1e-6;
};

// The claim, ready to register. Throws UsageError (engine.hpp) for an invalid description.
Claim formula_claim(const FormulaClaim& f);

// Registers the claim for the time of the run, runs it as `icl-verify run ID --out OUT` would (writing OUT/ID.json,
// ID.tex, summary.md, ...) and returns its report. Throws UsageError for bad input (nothing written); an exception
// from `stated`, `model` or `between_cases` propagates unchanged.
// `command` is what the report's provenance names as the invocation (e.g. the Python call).
nlohmann::ordered_json check_formula_claim(const FormulaClaim& f, const std::string& out, std::uint64_t seed = 1,
                                           int threads = 0, double alpha = 0.01, const std::string& command = "");

}  // namespace icl
