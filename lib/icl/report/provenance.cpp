#include "icl/report/provenance.hpp"

#include "icl/execute/executor.hpp"
#include "icl/execute/precision.hpp"
#include "icl/execute/ranks.hpp"
#include "icl/verdict/mutation.hpp"

#include <CLI/Version.hpp>
#include <Eigen/Core>
#include <boost/version.hpp>
#include <fmt/format.h>

#include <cctype>
#include <ctime>
#include <stdexcept>
#include <vector>

#ifndef ICL_VERSION
#error "ICL_VERSION, ICL_COMPILER, ICL_BUILD_TYPE and ICL_RANDOM123_VERSION come from CMakeLists.txt"
#endif

namespace icl {

namespace build {
extern const char* const kCommit;  // generated at build time (cmake/build_commit.cmake)
extern const bool kDirty;
}  // namespace build

const BuildInfo& build_info() {
  static const BuildInfo info = [] {
    BuildInfo b;
    b.version = ICL_VERSION;
    b.dirty = build::kDirty;
    b.commit = std::string(build::kCommit) + (build::kDirty ? "-dirty" : "");
    b.compiler = ICL_COMPILER;
    b.build_type = ICL_BUILD_TYPE;
    b.libraries = nlohmann::ordered_json::object();
    b.libraries["eigen"] = fmt::format("{}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION);
    b.libraries["boost"] = fmt::format("{}.{}.{}", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100);
    b.libraries["fmt"] = fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100);
    b.libraries["nlohmann_json"] = fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                                               NLOHMANN_JSON_VERSION_PATCH);
    b.libraries["cli11"] = CLI11_VERSION;
    b.libraries["random123"] = ICL_RANDOM123_VERSION;
    return b;
  }();
  return info;
}

std::string iso8601_utc(std::chrono::system_clock::time_point t) {
  const std::time_t s = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::ordered_json provenance_json(const std::string& command, std::chrono::system_clock::time_point started_at,
                                       std::uint64_t executor_prompts) {
  const BuildInfo& b = build_info();
  nlohmann::ordered_json j;
  j["version"] = b.version;
  j["commit"] = b.commit;
  j["dirty"] = b.dirty;
  j["compiler"] = b.compiler;
  j["build_type"] = b.build_type;
  j["libraries"] = b.libraries;
  // --backend and --precision (execute/executor.hpp, precision.hpp), where the executor ran anything.
  const execute::Backend chosen = execute::default_backend();
  const bool ran = chosen == execute::Backend::cpu || executor_prompts > 0;
  j["backend"] = ran ? execute::to_string(chosen) : "cpu";
  j["precision"] = ran ? execute::to_string(execute::default_precision()) : "float64";
  if (chosen != execute::Backend::cpu) {
    j["requested_backend"] = execute::to_string(chosen);
    j["executor_prompts"] = executor_prompts;
  }
  j["ranks"] = rank_comm().size;  // MPI ranks that shared the run (execute/ranks.hpp)
  j["started_at"] = iso8601_utc(started_at);
  j["command"] = command;
  try {  // a deliberately perturbed run (bench/mutate.py) says so in every report
    if (const std::string m = active_mutant(); !m.empty()) j["mutant"] = m;
  } catch (const std::invalid_argument&) {  // the command line has already refused a malformed ICL_MUTANT
  }
  return j;
}

std::string version_text() {
  const BuildInfo& b = build_info();
  std::string s = fmt::format("icl-verify {} (commit {}, {}, {})\nlibraries:", b.version, b.commit, b.build_type, b.compiler);
  bool first = true;
  for (auto it = b.libraries.begin(); it != b.libraries.end(); ++it, first = false)
    s += fmt::format("{} {} {}", first ? "" : ",", it.key(), it.value().get<std::string>());
  return s;
}

}  // namespace icl
