#include "icl/report/figures_pdf.hpp"

#include "icl/execute/thread_pool.hpp"
#include "icl/report/provenance.hpp"
#include "icl/report/report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace icl {

namespace fs = std::filesystem;

namespace {

bool holds_figure_data(const nlohmann::json& j) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "figures" && it.value().is_object() && !it.value().empty()) return true;
      if (it.key() == "curve" && it.value().is_object() && it.value().contains("step") &&
          it.value().contains("train_loss"))
        return true;
      if (holds_figure_data(it.value())) return true;
    }
  } else if (j.is_array()) {
    for (const auto& e : j)
      if (holds_figure_data(e)) return true;
  }
  return false;
}

// The interpreter: ICL_VERIFY_PYTHON, else Debian's /usr/bin/python3 (its python3-matplotlib), else python3 on PATH.
std::string python_interpreter() {
  if (const char* p = std::getenv("ICL_VERIFY_PYTHON"); p && *p) return p;
  if (::access("/usr/bin/python3", X_OK) == 0) return "/usr/bin/python3";
  return "python3";
}

// Removes a folder and what it holds when it goes out of scope.
struct TempFolder {
  std::string path;
  ~TempFolder() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// The last non-empty line of a log, cut to one printable line.
std::string last_line(const std::string& log) {
  std::size_t end = log.find_last_not_of("\n ");
  if (end == std::string::npos) return "";
  const std::size_t start = log.rfind('\n', end);
  return printable_line(log.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1)), 160);
}

constexpr double kTimeoutSeconds = 600;

}  // namespace

bool has_figure_data(const std::string& text) {
  try {
    return holds_figure_data(nlohmann::json::parse(text));
  } catch (const std::exception&) {
    return false;
  }
}

PdfFigures pdf_figures(const std::vector<std::string>& json_files) {
  PdfFigures out;
  std::vector<std::string> with_data;
  for (const auto& f : json_files) {
    try {
      if (has_figure_data(read_file(f))) with_data.push_back(f);
    } catch (const std::exception&) {  // unreadable: not a report of this run
    }
  }
  if (with_data.empty()) return out;
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/icl-verify-figures.XXXXXX";
  if (!::mkdtemp(pattern.data())) {
    out.note = "no temporary folder for the PDF figures; the SVG figures are written";
    return out;
  }
  TempFolder tmp{pattern};
  const fs::path in = fs::path(tmp.path) / "in", drawn = fs::path(tmp.path) / "out";
  const fs::path script = fs::path(tmp.path) / "plot_figures.py", log = fs::path(tmp.path) / "log";
  std::error_code ec;
  fs::create_directory(in, ec);
  fs::create_directory(drawn, ec);
  for (const auto& f : with_data) fs::copy_file(f, in / fs::path(f).filename(), ec);
  write_file_atomic(script.string(), kPlotFiguresScript);

  const std::string python = python_interpreter();
  std::vector<std::string> args = {python, script.string(), in.string(), "--out", drawn.string(), "--per-claim"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    out.note = fmt::format("{} not found (PDF figures need python3 with matplotlib, Debian python3-matplotlib); the "
                           "figures are written as SVG only",
                           printable_line(python, 80));
    return out;
  }
  int status = 0;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      out.note = "the PDF figures' process was lost; the figures are written as SVG only";
      return out;
    }
    const bool stop = execute::cancel_requested();
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (stop || waited > kTimeoutSeconds) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      if (stop) throw execute::Cancelled();
      out.note = fmt::format("the PDF figures took over {:.0f} s and were stopped; the figures are written as SVG only",
                             kTimeoutSeconds);
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string log_text;
  try {
    log_text = read_file(log.string());
  } catch (const std::exception&) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 127 && log_text.empty()) {
    out.note = fmt::format("{} not found (PDF figures need python3 with matplotlib, Debian python3-matplotlib); the "
                           "figures are written as SVG only",
                           printable_line(python, 80));
    return out;
  }
  if (code == 3) {
    out.note = "matplotlib not found (Debian: apt-get install python3-matplotlib): the figures are written as SVG only";
    return out;
  }
  if (code != 0) {
    out.note = fmt::format("the PDF figures failed ({}); the figures are written as SVG only",
                           log_text.empty() ? fmt::format("exit status {}", code) : last_line(log_text));
    return out;
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(drawn, ec))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) out.files.emplace_back(f.filename().string(), read_file(f.string()));
  return out;
}

}  // namespace icl
