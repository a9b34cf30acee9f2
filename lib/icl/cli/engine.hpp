// The `run` and `report` commands: validate everything first (bad input: one line, exit 2, nothing
// written), then run each claim and write its report atomically.
#pragma once
#include "icl/claim/claim.hpp"

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace icl {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOptions {
  std::vector<std::string> claims;
  std::vector<std::string> sets;  // "KEY=V1,V2,..."
  std::optional<long long> samples;
  std::uint64_t seed = 1;
  int threads = 0;  // 0: all cores
  std::string out = "reports/latest";
  bool quick = false;
  std::optional<std::string> expect;
  double alpha = 0.01;
};

struct PlannedClaim {
  const Claim* claim;
  ClaimContext ctx;
};

// "KEY=V1,V2,..." options as key -> values (throws UsageError on a malformed one).
std::map<std::string, std::vector<double>> parse_sets(const std::vector<std::string>& sets);
// The grid of a claim's cases: defaults (or the --quick grid) overridden by `sets`, each value checked
// against the parameter's range and integrality (throws UsageError).
std::vector<Case> build_cases(const Claim& c, const std::map<std::string, std::vector<double>>& sets, bool quick);

// Validation only (throws UsageError): which claims, which cases, enough memory.
std::vector<PlannedClaim> plan_run(const RunOptions& o);
double available_memory_bytes();

// Exit status per REPORT-FORMAT.md (0, 1 or 2; internal failures propagate as exceptions).
int run_command(const RunOptions& o);
int report_command(const std::string& dir);
int list_command();

// Runs one planned claim and returns the whole report (envelope included).
// `files`, if given, receives the claim's extra files (suffix -> content).
nlohmann::ordered_json run_claim(const PlannedClaim& p, const RunOptions& o,
                                 std::map<std::string, std::string>* files = nullptr);

}  // namespace icl
