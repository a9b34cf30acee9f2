// Provenance of a report (docs/reports.md, "provenance"): which build produced it and how it was invoked.
// The version, compiler, build type and library versions are those the binary was compiled with; the
// commit is read from git at every build (cmake/build_commit.cmake), with "-dirty" appended when the
// working tree differed from it.
#pragma once
#include "icl/io/printable.hpp"  // command_line, printable_line
#include <cstdint>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

namespace icl {

struct BuildInfo {
  std::string version;     // "0.1.0"
  std::string commit;      // 40 hex digits, "<sha>-dirty", or "unknown"
  bool dirty = false;
  std::string compiler;    // "GNU 12.2.0"
  std::string build_type;  // "Release", "Debug + ASan + UBSan"
  nlohmann::ordered_json libraries;  // {"eigen": "3.4.0", "boost": "1.74.0", ...}
};
const BuildInfo& build_info();

// The `provenance` block: version, commit, dirty, compiler, build_type, libraries, backend, precision, ranks,
// started_at, command. `executor_prompts`: the prompts the chosen backend's executor computed for this report.
// Under a backend other than cpu, `backend` and `precision` say where the work ran: the chosen backend and precision
// when the executor computed anything, else "cpu" and "float64" (everything ran on the host), with
// `requested_backend` and `executor_prompts` beside them.
nlohmann::ordered_json provenance_json(const std::string& command, std::chrono::system_clock::time_point started_at,
                                       std::uint64_t executor_prompts = 0);

// "2025-01-31T12:34:56Z" (UTC).
std::string iso8601_utc(std::chrono::system_clock::time_point t);

// What `icl-verify --version` prints: version, commit, build type, compiler, then the libraries.
std::string version_text();

}  // namespace icl
