// Helpers shared by the command-line tests (tests/cli/): temporary folders, and running the icl-verify binary
// with its output captured outside the working folder (so that "writes nothing" can be checked there).
#pragma once
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#ifndef ICL_VERIFY_BINARY
#error "ICL_VERIFY_BINARY must name the icl-verify binary"
#endif

namespace icl::test {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "icl-tests-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// One argument quoted for /bin/sh (any bytes but NUL).
inline std::string sh_quote(const std::string& a) {
  std::string s = "'";
  for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return s + "'";
}

struct CliResult {
  int status = -1;  // exit status; -1 if killed by a signal
  std::string out, err;
};

// Runs `icl-verify <args>` (args as the shell splits them) with working directory `cwd`; stdout/stderr are captured
// in `capture`. A positive timeout_s stops a run that takes longer (status 124).
inline CliResult run_cli(const std::string& args, const fs::path& cwd, const fs::path& capture, int timeout_s = 0) {
  const fs::path out = capture / "stdout.txt", err = capture / "stderr.txt";
  const std::string limit = timeout_s > 0 ? "timeout -k 5 " + std::to_string(timeout_s) + " " : "";
  const std::string cmd = "cd " + sh_quote(cwd.string()) + " && " + limit + sh_quote(ICL_VERIFY_BINARY) + " " + args +
                          " > " + sh_quote(out.string()) + " 2> " + sh_quote(err.string());
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The same with exact arguments (each passed as one argv entry, whatever it holds).
inline CliResult run_cli(const std::vector<std::string>& args, const fs::path& cwd, const fs::path& capture,
                         int timeout_s = 0) {
  std::string line;
  for (const auto& a : args) line += (line.empty() ? "" : " ") + sh_quote(a);
  return run_cli(line, cwd, capture, timeout_s);
}

inline bool is_empty_dir(const fs::path& p) {
  return fs::is_directory(p) && fs::directory_iterator(p) == fs::directory_iterator();
}

inline std::string list_dir(const fs::path& p) {
  std::string s;
  for (const auto& e : fs::recursive_directory_iterator(p)) s += e.path().string() + "\n";
  return s;
}

// A claim's report from `icl-verify run CLAIM --quick --threads 2 EXTRA` into a temporary folder (exit 0 required,
// the report names the claim and has cases), with the names of the files written beside it.
struct QuickReport {
  nlohmann::json json;
  std::vector<std::string> files;  // every file name in the output folder
  bool wrote(const std::string& name) const {
    for (const auto& f : files)
      if (f == name) return true;
    return false;
  }
};

inline QuickReport run_quick_report(const std::string& claim, const std::string& extra = "") {
  TempDir tmp;
  const fs::path out = tmp.path / "out";
  const CliResult r =
      run_cli("run " + claim + " --quick --threads 2 " + extra + " --out " + sh_quote(out.string()), tmp.path, tmp.path);
  INFO(r.err);
  REQUIRE(r.status == 0);
  QuickReport q;
  q.json = nlohmann::json::parse(slurp(out / (claim + ".json")));
  for (const auto& e : fs::directory_iterator(out)) q.files.push_back(e.path().filename().string());
  CHECK(q.json["claim"] == claim);
  REQUIRE(!q.json["cases"].empty());
  return q;
}

// `run CLAIM ARGS --out <a fresh folder>` (any budget): the command must end with a verdict (exit status 0 or 1); the
// claim's JSON report.
inline nlohmann::json run_claim_report(const std::string& claim, const std::string& args) {
  TempDir tmp;
  const fs::path out = tmp.path / "out";
  const CliResult r = run_cli("run " + claim + " " + args + " --out " + sh_quote(out.string()), tmp.path, tmp.path);
  INFO(r.err);
  REQUIRE(r.status <= 1);
  return nlohmann::json::parse(slurp(out / (claim + ".json")));
}

}  // namespace icl::test
