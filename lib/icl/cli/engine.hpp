// The `run` and `report` commands: validate everything first (bad input: one line, exit 2, nothing
// written), then run each claim and write its report atomically.
#pragma once
#include "icl/claim/claim.hpp"
#include "icl/claim/usage_error.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace icl {

// The defaults of `run`; the folders of its reports (default_out_folder).
inline constexpr const char* kLatestFolder = "reports/latest";
inline constexpr const char* kPartialFolder = "reports/partial";
inline constexpr const char* kPaperFolder = "reports/paper";  // --budget paper without --out
inline constexpr const char* kDecidingFolder = "reports/deciding";  // --budget deciding without --out
inline constexpr std::uint64_t kDefaultSeed = 1;
inline constexpr double kDefaultAlpha = 0.01;

struct RunOptions {
  std::vector<std::string> claims;
  std::vector<std::string> sets;  // "KEY=V1,V2,..."
  std::optional<long long> samples;
  std::uint64_t seed = kDefaultSeed;
  int threads = 0;  // 0: all cores
  std::string backend = "cpu";  // --backend (execute/executor.hpp)
  std::string precision = "float64";  // --precision (execute/precision.hpp)
  std::optional<std::string> out;  // --out; none: default_out_folder()
  bool quick = false;       // --quick: the same as --budget quick
  std::string budget;       // --budget quick|standard|deciding|paper ("": standard, or quick with --quick)
  bool estimate = false;    // --estimate: print the run's predicted time (training calibrated) and write nothing
  bool quiet = false;       // no verdict lines and no "reports written" on stdout (Python's check, unless verbose)
  std::optional<std::string> checkpoint;  // --checkpoint DIR (or --resume DIR: resume = true)
  bool resume = false;
  double checkpoint_every = 300;          // --checkpoint-every SECONDS
  std::optional<std::string> expect;
  double alpha = kDefaultAlpha;
  // --look N: this run is the N-th look at its claims, each at a new --seed (fresh random streams) after the earlier
  // ones left a part undecided. Each look is judged alone at --alpha; the report says that over the N looks the
  // chance of a wrong decision is at most N x alpha (Bonferroni over looks). Nothing is computed differently.
  int look = 1;
  std::string command;  // the command line, for the reports' provenance
};

// The run's budget: --budget, or quick with --quick (both, disagreeing: UsageError), else standard.
Budget run_budget(const RunOptions& o);
// The default grid and budget (run_mode "standard"): no --quick or other --budget, --set, --samples or --alpha.
bool standard_budget(const RunOptions& o);
// The report's run_mode: "quick" for any quick run; "standard", "deciding" or "paper" for that budget's own grids and budgets,
// nothing overridden (--set, --samples, --alpha) but counts of repetitions raised (ParamSpec::replications, e.g.
// `--budget paper --set runs=20` for a claim whose paper value is 5); "custom" otherwise.
std::string run_mode_of(const RunOptions& o);
// Where `run` writes without --out. Only a full standard run writes kLatestFolder: every registered claim (`run all`)
// at the default grid and budget (standard_budget) and the default seed. Anything else (some claims, a quick or
// custom run, another seed) writes kPartialFolder, so that it never replaces reports/latest; a paper-budget run
// writes kPaperFolder, a deciding-budget run kDecidingFolder. `claims_run`: how many
// claims the run names ('all' expanded, repeats dropped).
std::string default_out_folder(const RunOptions& o, std::size_t claims_run);

// --backend: makes `name` the process's backend (execute/executor.hpp); one not built here is a UsageError.
void select_backend(const std::string& name);
// --precision (after select_backend): makes `name` the process's precision (execute/precision.hpp); a name other than
// float64 or float32, or float32 on the cpu backend (which computes in float64), is a UsageError.
void select_precision(const std::string& name);

struct PlannedClaim {
  const Claim* claim;
  ClaimContext ctx;
};

// Did-you-mean: the candidate nearest to `word` by edit distance, letters compared case-insensitively ("my.Claim"
// -> "my.claim", "runn" -> "run"), if at most `max_edits` away; "" if none is.
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates, std::size_t max_edits = 2);

// A --set value: a decimal number, -? (digits [. digits] | . digits) ([eE] [+-]? digits), finite; nothing for
// anything else ("0x19", " 25", "25 ", "+5", "inf", "nan", "1e999").
std::optional<double> decimal_number(const std::string& text);
// "KEY=V1,V2,..." options as key -> values, each a decimal_number (throws UsageError on a malformed one).
std::map<std::string, std::vector<double>> parse_sets(const std::vector<std::string>& sets);
// --set values given as names ("cov=rotated") replaced by their numbers for the named claims
// (claim/param_names.hpp); an unknown name of a coded parameter is a UsageError listing the names.
std::vector<std::string> resolve_value_names(const std::vector<std::string>& sets, const std::vector<std::string>& claim_ids);
// The grid of a claim's cases: defaults (or the --quick grid) overridden by `sets`, each value checked
// against the parameter's range and integrality (throws UsageError).
std::vector<Case> build_cases(const Claim& c, const std::map<std::string, std::vector<double>>& sets, Budget budget);
// A parameter value against its declared range and integrality: a finite number in [min, max], whole where the
// parameter is an integer (throws UsageError "OWNER: parameter NAME must be ..."; `owner` is the claim ID).
void check_param_value(const std::string& owner, const ParamSpec& p, double v);
// The claim's budget settings (ParamSpec::budget): one value each, --set's or the default (throws UsageError).
std::map<std::string, double> build_settings(const Claim& c, const std::map<std::string, std::vector<double>>& sets,
                                             Budget budget);

// Validation only (throws UsageError): which claims, which cases, enough memory.
std::vector<PlannedClaim> plan_run(const RunOptions& o);
// A whole-number option's text: decimal digits ("100000"), or scientific notation that is exactly a whole number
// ("1e5", "2.5e4", "1E+5"); its value when that is in [0, 2^64), nothing otherwise ("1.5", "1e-3", "1e400", "-1",
// "+5", " 5", "0x10", "1.0").
std::optional<std::uint64_t> whole_number(const std::string& text);
// The --seed text as a seed: a whole number (whole_number) below 2^64 (throws UsageError; no wrapping of "-1").
std::uint64_t parse_seed(const std::string& text);
// The --samples text: a whole number in [1, kMaxSamples] (throws UsageError).
std::uint64_t parse_samples(const std::string& text);
// The --threads text: a whole number in [1, kMaxThreads] (throws UsageError).
int parse_threads(const std::string& text);
// The --look text: a whole number in [1, kMaxLooks] (throws UsageError); and what a report says of a look N > 1
// (RunOptions::look): its summary with a sentence on the N looks after it (a full stop added before it where the
// summary lacks one), and its "looks" block. The summary unchanged at the first look.
int parse_look(const std::string& text);
std::string summary_with_looks(const std::string& summary, const RunOptions& o);
nlohmann::ordered_json looks_json(const RunOptions& o);
// Creates the output folder if needed and checks that a file can be written there (throws UsageError and
// leaves nothing behind if not). Returns the folders it created, deepest first.
std::vector<std::string> prepare_output_folder(const std::string& dir, const char* option);
// Folders a command created, removed again (each where empty, deepest first) unless keep() is called: a command
// that fails after making its output folder leaves none behind.
class CreatedFolders {
public:
  CreatedFolders() = default;
  ~CreatedFolders();
  CreatedFolders(const CreatedFolders&) = delete;
  CreatedFolders& operator=(const CreatedFolders&) = delete;
  void add(const std::vector<std::string>& folders);
  void keep() { kept_ = true; }

private:
  std::vector<std::string> folders_;
  bool kept_ = false;
};
// The absolute path with ".", ".." and symbolic links resolved as far as the path exists ("r" and "$PWD/r" are one).
std::string resolved_path(const std::string& path);
bool same_path(const std::string& a, const std::string& b);
// Limits on what one run may ask for (bad input beyond them).
inline constexpr std::size_t kMaxCasesPerClaim = 10000;
inline constexpr int kMaxThreads = 1024;
inline constexpr std::uint64_t kMaxSamples = 1000000000;  // prompts per case
// Memory the Monte Carlo engine holds per prompt of a case's budget (one result slot per chunk of prompts,
// merged in order: lib/icl/montecarlo/montecarlo.hpp, worst_case.hpp), counted by the memory guard.
inline constexpr double kEngineBytesPerSample = 4.0;
inline constexpr double kMinAlpha = 1e-6;
inline constexpr int kMaxLooks = 100;
double available_memory_bytes();

// Exit status per docs/reports.md (0, 1 or 2; internal failures propagate as exceptions).
int run_command(const RunOptions& o);
int report_command(const std::string& dir);
// `list`: every registered claim with its title, paper by paper (report/paper.hpp, listed_claim_ids); `list CLAIM...`: each claim's source, statement, parameters
// (name, range, default and --quick grids, meaning), budget and parts. An unknown ID: UsageError.
int list_command(const std::vector<std::string>& ids = {});
// `list --mutation-sites`: one line per mutation site (lib/icl/verdict/mutation.hpp): id, claims, kinds, note.
int list_mutation_sites();

// Runs one planned claim and returns the whole report (envelope included).
// `files`, if given, receives the claim's extra files (suffix -> content).
nlohmann::ordered_json run_claim(const PlannedClaim& p, const RunOptions& o,
                                 std::map<std::string, std::string>* files = nullptr);

}  // namespace icl
