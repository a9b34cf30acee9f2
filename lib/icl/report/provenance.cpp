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

namespace {

// Length of the valid UTF-8 sequence starting at s[i] (1..4), or 0 if it is not one.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  unsigned min = 0;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) len = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) len = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, min = 0x10000;
  else return 0;
  if (i + len > s.size()) return 0;
  unsigned cp = c & (0x7f >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

bool shell_safe(unsigned char c) {
  return std::isalnum(c) || std::string("-_./=,:+@%").find(static_cast<char>(c)) != std::string::npos;
}

// One argument as bash reads it back: bare where safe, '...' otherwise, $'...' (with \xNN escapes) where it
// holds control characters or bytes that are not valid UTF-8.
std::string quote_argument(const std::string& a) {
  bool bare = !a.empty(), escape = false;
  for (std::size_t i = 0; i < a.size();) {
    const std::size_t len = utf8_length(a, i);
    const auto c = static_cast<unsigned char>(a[i]);
    if (len == 0 || c < 0x20 || c == 0x7f) escape = true;
    else if (len > 1 || !shell_safe(c)) bare = false;
    i += len ? len : 1;
  }
  if (bare && !escape) return a;
  std::string s = escape ? "$'" : "'";
  for (std::size_t i = 0; i < a.size();) {
    const std::size_t len = utf8_length(a, i);
    const auto c = static_cast<unsigned char>(a[i]);
    if (escape && (len == 0 || c < 0x20 || c == 0x7f)) {
      s += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    if (c == '\'' ) s += escape ? "\\'" : "'\\''";
    else if (c == '\\' && escape) s += "\\\\";
    else s.append(a, i, len);
    i += len;
  }
  return s + "'";
}

}  // namespace

std::string command_line(int argc, const char* const* argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += quote_argument(argv[i] ? argv[i] : "");
  }
  return s;
}

std::string printable_line(const std::string& s, std::size_t max_bytes) {
  std::vector<std::string> pieces;  // one character each, escaped where needed
  std::size_t total = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_length(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    pieces.push_back((len == 0 || c < 0x20 || c == 0x7f) ? fmt::format("\\x{:02x}", c) : s.substr(i, len));
    total += pieces.back().size();
    i += len ? len : 1;
  }
  const bool cut = total > max_bytes;
  const std::size_t room = cut ? (max_bytes > 3 ? max_bytes - 3 : 0) : max_bytes;
  std::string r;
  for (const auto& p : pieces) {
    if (r.size() + p.size() > room) break;
    r += p;
  }
  return cut ? r + "..." : r;
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
