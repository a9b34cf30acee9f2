// Claims: one registered entry per claim the project checks (claims/<id>.cpp, docs/claims.md).
//
// A claim declares its parameters (with default and --quick grids, and the names of coded values), its Monte Carlo
// budget, a run function that computes `stated`, `exact` and `mc` per case and decides each case, its parts: what
// the paper asserts, part by part, with the paper's own strength (parts.hpp), and the layout of its LaTeX table
// (claim/table.hpp). Its paper is the one registered for its ID's prefix (report/paper.hpp). The engine (engine.cpp)
// wraps the result into the report envelope and derives each part's verdict and the claim's from them
// (judge_claim); nothing in the engine knows what any claim is expected to give.
#pragma once
#include "icl/claim/parts.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/claim/table.hpp"
#include "icl/verdict/decision.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace icl {

// A coded parameter's names: (value, name) pairs in order.
using ValueNames = std::vector<std::pair<double, std::string>>;

struct ParamSpec {
  std::string name;
  std::vector<double> defaults;
  std::vector<double> quick;
  double min = 1;
  double max = 1e9;
  bool integer = true;
  std::string help;
  // A budget setting (e.g. `search`, the worst-case search's effort multiplier): one value for the whole run,
  // read with ClaimContext::setting(); not a grid coordinate, so it names no case and moves no random stream.
  bool budget = false;
  // The paper's values (`--budget paper`): every setting the paper states, and for what it leaves out the value the
  // claim's file chooses and justifies. Empty: the defaults (a parameter the paper budget does not change).
  std::vector<double> paper = {};
  // The deciding budget's values (`--budget deciding`): a claim that declares them keeps every model setting the paper
  // states and reduces only the training (steps, batch, trials). Empty: the defaults (the standard values), so a
  // claim that declares no deciding value anywhere runs its standard budget under `--budget deciding`.
  std::vector<double> deciding = {};
  // A coded parameter's names, (value, name) in order (`--set cov=rotated` for `--set cov=2`): what `list`, --set, the
  // tables and summary.md use (param_names.hpp). Empty: the values are plain numbers.
  ValueNames names = {};
  // A count of independent repetitions (runs, trials): more than a budget's value is not a reduction, so a run that
  // only raises it keeps its budget's run mode (run_mode_of) and stays at the paper's settings (at_paper).
  bool replications = false;
};

// A ParamSpec marked as a count of independent repetitions (ParamSpec::replications).
inline ParamSpec as_replications(ParamSpec p) {
  p.replications = true;
  return p;
}

// A ParamSpec with its paper values (--budget paper).
inline ParamSpec with_paper(ParamSpec p, std::vector<double> paper) {
  p.paper = std::move(paper);
  return p;
}

// A ParamSpec with its deciding values (--budget deciding).
inline ParamSpec with_deciding(ParamSpec p, std::vector<double> deciding) {
  p.deciding = std::move(deciding);
  return p;
}

// A ParamSpec with the names of its coded values (e.g. test_covariance_names(), model/gaussian_model.hpp, or
// numbered_names(...), param_names.hpp).
inline ParamSpec with_names(ParamSpec p, ValueNames names) {
  p.names = std::move(names);
  return p;
}

// How much a run spends: `quick` (small grids and budgets, for CI and a first look), `standard` (the defaults: what
// ./verify runs and reports/latest holds), `deciding` (between standard and paper: a claim that declares deciding
// values keeps every model setting the paper states and reduces only steps, batch and trials; one that declares none
// runs its standard values) or `paper` (every setting the paper states; only a paper-budget run can refute an
// empirical claim, a reduced one, deciding included, reports inconclusive where it disagrees).
enum class Budget { quick, standard, deciding, paper };
const char* to_string(Budget b);
// "quick", "standard", "deciding", "paper"; anything else throws std::invalid_argument naming the four.
Budget budget_from_name(const std::string& name);
// A parameter's values under a budget.
const std::vector<double>& grid(const ParamSpec& p, Budget b);
// Whether v is more repetitions than the budget asks: p counts repetitions (ParamSpec::replications) and v is at least
// the largest of grid(p, b). Such a value is not a reduction (ClaimContext::at_paper, the run mode).
bool more_repetitions(const ParamSpec& p, Budget b, double v);

struct Case {
  std::vector<std::pair<std::string, double>> params;
  double get(const std::string& name) const;
  int geti(const std::string& name) const { return static_cast<int>(get(name)); }
  nlohmann::ordered_json to_json() const;
  std::string label() const;  // "d=2, n=100"
};

// The run context of one claim: seed, threads and budget (SamplingPlan), and what the claim decides with.
struct ClaimContext : SamplingPlan {
  std::string claim_id;
  bool quick = false;         // budget == Budget::quick
  Budget budget = Budget::standard;
  double alpha = 0.01;        // family-wise false-fail rate for the whole claim
  std::vector<Case> cases;
  std::map<std::string, double> settings;  // budget parameters (ParamSpec::budget) given with --set
  std::function<void(std::size_t done, std::size_t total)> progress;
  // A budget parameter's value: --set's, else the claim's value under the run's budget (grid()). Throws
  // std::logic_error for a name the claim does not declare as a budget parameter.
  double setting(const std::string& name) const;
  // Random-stream id for one use within this claim (e.g. "case 3"): the same for the same seed.
  std::uint64_t purpose(const std::string& tag) const;
  // Whether case c runs at the paper's settings: every parameter of the claim at one of its paper values
  // (grid(p, Budget::paper)) or, for a count of repetitions (ParamSpec::replications), at least the largest, the
  // budget parameters (ParamSpec::budget) by setting(). Whatever --budget says: a
  // `--budget paper --set d=5` case is not at the paper's settings, a `--set steps=20000 ...` one can be. Only there
  // may an empirical claim's reversal refute. False for a claim that is not registered. The Monte Carlo sample
  // count is a precision, not a setting of the paper's, and is not compared.
  bool at_paper(const Case& c) const;
};

struct ClaimResult {
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  std::string summary;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // merged into the report
  // Extra files (e.g. SVG plots) written next to the JSON as <out>/<claim>.<suffix>, suffix -> content.
  std::map<std::string, std::string> files;
  // Per declared part: a verdict the claim decides itself and how a failure is classed (parts.hpp).
  std::map<std::string, PartOutcome> parts;
  PartOutcome& part(const std::string& id) { return parts[id]; }
};

struct Claim {
  std::string id, title, source, statement;
  std::vector<ParamSpec> params;
  std::uint64_t default_samples = 100000;
  std::uint64_t quick_samples = 5000;

  // Memory one case needs (bytes), estimated before anything is allocated.
  std::function<double(const Case&, int threads)> memory_bytes;
  std::function<ClaimResult(const ClaimContext&)> run;
  // What the paper asserts, part by part, with its own strength (parts.hpp). Required: the engine refuses
  // (internal failure) a claim without parts.
  std::vector<PartSpec> parts;
  std::uint64_t paper_samples = 0;  // --budget paper (0: default_samples)
  std::uint64_t deciding_samples = 0;  // --budget deciding (0: default_samples)
  // The layout of its LaTeX table (claim/table.hpp); none: the generic equality table.
  std::optional<ClaimTable> table = std::nullopt;
  // Names of the coded values of a case parameter the claim sets itself rather than a ParamSpec (e.g. which test a
  // case is), by parameter; the reports print them as they print ParamSpec::names.
  std::map<std::string, ValueNames> case_names = {};
  // The Monte Carlo budget per case under a budget.
  std::uint64_t samples(Budget b) const {
    return b == Budget::quick                          ? quick_samples
           : b == Budget::paper && paper_samples       ? paper_samples
           : b == Budget::deciding && deciding_samples ? deciding_samples
                                                       : default_samples;
  }
  // Whether any parameter declares deciding values (else `--budget deciding` runs the standard values).
  bool has_deciding() const {
    for (const auto& p : params)
      if (!p.deciding.empty()) return true;
    return deciding_samples != 0;
  }
};

// A Claim with its table layout (claim/table.hpp).
inline Claim with_table(Claim c, ClaimTable t) {
  c.table = std::move(t);
  return c;
}
// A Claim with its deciding budget's Monte Carlo prompts per case (Claim::deciding_samples).
inline Claim with_deciding_samples(Claim c, std::uint64_t samples) {
  c.deciding_samples = samples;
  return c;
}
// A Claim with the names of a case parameter's coded values (Claim::case_names).
inline Claim with_case_names(Claim c, const std::string& param, ValueNames names) {
  c.case_names[param] = std::move(names);
  return c;
}

std::vector<Claim>& claim_registry();
const Claim* find_claim(const std::string& id);
struct RegisterClaim {
  explicit RegisterClaim(Claim c);
};

// Unlisted claims: reports whose producer runs its own Claim (`icl-verify eval`, cli/eval.cpp, builds one per
// call) rather than a registered one. Registered with what the report writer reads of a claim under the report's
// "claim" ID (its parameters' value names, its table), so that its reports, also those `icl-verify report` rebuilds
// later, print as when they were written; neither listed nor runnable by ID.
struct RegisterUnlistedClaim {
  explicit RegisterUnlistedClaim(Claim c);
};
// The registered claim of this ID, else the unlisted claim of this ID, or nullptr: what a report of it is written with.
const Claim* find_report_claim(const std::string& id);

// Aggregate case verdicts: refuted if any case refutes, confirmed if all confirm, else inconclusive.
Verdict aggregate_verdict(const nlohmann::ordered_json& cases);

// The claim's verdict as the engine will derive it from its parts (judge_claim), for a claim's own summary
// at the end of its run: find_claim(ctx.claim_id)'s parts, res.parts and res.cases.
Verdict claim_verdict(const ClaimContext& ctx, const ClaimResult& res);

}  // namespace icl
