// The command line's usability rules (issue 30, item 4, "Command line"), one test case per rule: what a mistyped
// or malformed command gets told, what --expect says, how progress shows, how reports read, where they go, how they
// compare, and when MPI starts.
#include "icl/claim/claim.hpp"
#include "icl/cli/engine.hpp"
#include "icl/cli/launcher.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/progress_line.hpp"
#include "icl/report/report.hpp"
#include "tests/support/cli_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <sys/ioctl.h>
#include <unistd.h>
#include <vector>

namespace test_cli_usability {  // named: a unity build compiles several test files as one unit

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using icl::test::CliResult;
using icl::test::is_empty_dir;
using icl::test::list_dir;
using icl::test::run_cli;
using icl::test::sh_quote;
using icl::test::slurp;
using icl::test::TempDir;

const std::vector<std::string> kVerdicts = {"confirmed", "refuted", "inconclusive"};

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Bad input: exit 2, exactly one line on stderr holding `says`, nothing on stdout, nothing written in `work`.
void check_refused(const std::string& args, const std::string& says) {
  TempDir work, capture;
  CAPTURE(args);
  const CliResult r = run_cli(args, work.path, capture.path);
  CAPTURE(r.err);
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find(says) != std::string::npos);
  CHECK(r.out.empty());
  INFO("files written: " << list_dir(work.path));
  CHECK(is_empty_dir(work.path));
}

// What a ProgressLine wrote to a temporary file.
struct Captured {
  std::FILE* f = std::tmpfile();
  ~Captured() {
    if (f) std::fclose(f);
  }
  Captured() = default;
  Captured(const Captured&) = delete;
  Captured& operator=(const Captured&) = delete;
  std::string text() {
    std::fflush(f);
    std::rewind(f);
    std::string s;
    for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
    std::fseek(f, 0, SEEK_END);
    return s;
  }
};

// A pseudo-terminal pair (master, slave), closed at the end.
struct Pty {
  int master = -1, slave = -1;
  Pty() {
    master = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master >= 0 && ::grantpt(master) == 0 && ::unlockpt(master) == 0) slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY);
  }
  ~Pty() {
    if (slave >= 0) ::close(slave);
    if (master >= 0) ::close(master);
  }
  Pty(const Pty&) = delete;
  Pty& operator=(const Pty&) = delete;
};

}  // namespace

TEST_CASE("cli usability: --backend cuda where it cannot run (not built, or no GPU) is bad input; one line, exit 2") {
  bool runs_here = false;
  try {
    runs_here = icl::execute::backend_from_name("cuda") == icl::execute::Backend::cuda;
  } catch (const std::invalid_argument&) {
  }
  if (runs_here) {
    MESSAGE("skipped: the cuda backend is built and a GPU is present, so --backend cuda is good input here");
    return;
  }
  check_refused("run sja.thm2 --quick --backend cuda --out out", "--backend: backend 'cuda' is ");
  check_refused("eval --weights none.npy --backend cuda --out out", "--backend: backend 'cuda' is ");
}

TEST_CASE("cli usability: --precision other than float64 or float32, or float32 on the cpu backend, is bad input") {
  check_refused("run sja.thm2 --quick --precision float16 --out out",
                "--precision: precision 'float16' is not float64 or float32");
  check_refused("eval --weights none.npy --precision half --out out",
                "--precision: precision 'half' is not float64 or float32");
  check_refused("run sja.thm2 --quick --precision float32 --out out",
                "--precision float32 runs on the portable and cuda backends; the cpu backend computes in float64");
  check_refused("eval --weights none.npy --backend cpu --precision float32 --out out",
                "--precision float32 runs on the portable and cuda backends; the cpu backend computes in float64");
}

TEST_CASE("cli usability: an unknown subcommand gets did-you-mean; one line, exit 2, nothing written") {
  const std::map<std::string, std::string> near = {
      {"runn", "run"}, {"rn", "run"}, {"RUN", "run"}, {"lst", "list"}, {"List", "list"}, {"reprot", "report"}, {"evl", "eval"}};
  for (const auto& [typed, meant] : near)
    check_refused(typed + " sja.thm2 --out out", "unknown subcommand '" + typed + "': did you mean '" + meant + "'?");
  // Nothing near: the message names the subcommands, without a guess.
  check_refused("frobnicate", "unknown subcommand 'frobnicate' (subcommands: list, run, report, eval;");
  {
    TempDir work, capture;
    const CliResult r = run_cli("frobnicate", work.path, capture.path);
    CHECK(r.err.find("did you mean") == std::string::npos);
  }
  check_refused("--bogus", "unknown option '--bogus' before the subcommand");
  check_refused("", "subcommands: list, run, report, eval");
}

TEST_CASE("cli usability: an unknown claim ID gets did-you-mean, case-insensitively and by edit distance") {
  check_refused("run sja.Thm2 --quick --out out", "did you mean 'sja.thm2'?");
  check_refused("run SJA.THM2 --quick --out out", "did you mean 'sja.thm2'?");
  check_refused("run ZFB.thm5 --quick --out out", "did you mean 'zfb.thm5'?");
  check_refused("run acds.thm1x --quick --out out", "did you mean 'acds.thm1'?");
  check_refused("list xlssc.onelayr", "did you mean 'xlssc.onelayer'?");
  check_refused("run sja.thm2 nothing.like.it --quick --out out", "unknown claim ID 'nothing.like.it' (see");
  std::vector<std::string> ids;
  for (const auto& c : icl::claim_registry()) ids.push_back(c.id);
  CHECK(icl::nearest_name("SJA.LEMMA3", ids) == "sja.lemma3");
  CHECK(icl::nearest_name("sja.lema3", ids) == "sja.lemma3");
  CHECK(icl::nearest_name("completely-different", ids).empty());
  CHECK(icl::nearest_name(std::string(5000, 'x'), ids).empty());
}

TEST_CASE("cli usability: whole-number options take scientific notation that is exactly a whole number") {
  using icl::whole_number;
  const std::map<std::string, std::uint64_t> good = {
      {"0", 0}, {"7", 7}, {"100000", 100000}, {"1e5", 100000}, {"1E5", 100000}, {"1e+5", 100000},
      {"2.5e4", 25000}, {"25000e-1", 2500}, {"1.50e1", 15}, {"0e400", 0}, {"0.0e0", 0}, {"1e19", 10000000000000000000ULL},
      {"1e019", 10000000000000000000ULL}, {"18446744073709551615", UINT64_MAX},
      {"1.8446744073709551615e19", UINT64_MAX}, {"0000000000000000000000000042", 42}};
  for (const auto& [text, value] : good) {
    CAPTURE(text);
    REQUIRE(whole_number(text).has_value());
    CHECK(*whole_number(text) == value);
  }
  for (const std::string& text : std::vector<std::string>{"", "1.5", "1.5e0", "1e-3", "15e-1", "1e400", "1e20", "18446744073709551616",
                                 "1.8446744073709551616e19", "-1", "+5", " 5", "5 ", "0x10", "1.0", "1.", "e5", "1e",
                                 "1.e5", ".5e1", "1e5.0", "1e--5", "1ee5", "nan", "inf", "1e99999999999999999999",
                                 std::string(5000, '9'), std::string(5000, '9') + "e0"}) {
    CAPTURE(text);
    CHECK(!whole_number(text).has_value());
  }
  // Through the command line: --seed, --threads and --samples in scientific notation.
  TempDir work, capture;
  const CliResult r = run_cli("run sja.thm2 --set d=1 --set n=25 --samples 2.56e2 --seed 1e3 --threads 2e0 --out out",
                              work.path, capture.path);
  CAPTURE(r.err);
  REQUIRE(r.status == 0);
  const json j = json::parse(slurp(work.path / "out" / "sja.thm2.json"));
  CHECK(j.at("sample_budget_per_case") == 256);
  CHECK(j.at("seed") == 1000);
  CHECK(j.at("threads") == 2);
  // Not whole, or out of range: one line, exit 2, nothing written.
  check_refused("run sja.thm2 --seed 1.5 --out out", "--seed '1.5': expected a whole number in [0, 2^64)");
  check_refused("run sja.thm2 --seed 1e400 --out out", "--seed '1e400': expected a whole number");
  check_refused("run sja.thm2 --seed 1e20 --out out", "--seed '1e20': expected a whole number");
  check_refused("run sja.thm2 --samples 1.5 --out out", "--samples '1.5': expected a whole number");
  check_refused("run sja.thm2 --samples 1e400 --out out", "--samples '1e400': expected a whole number");
  check_refused("run sja.thm2 --threads 1.5e0 --out out", "--threads '1.5e0': expected a whole number in [1, 1024]");
  check_refused("run sja.thm2 --threads 1e400 --out out", "--threads '1e400': expected a whole number");
  check_refused("run sja.thm2 --threads 2e3 --out out", "--threads '2e3': expected a whole number in [1, 1024]");
}

TEST_CASE("cli usability: --expect over several claims names each claim that failed, with expected and got") {
  TempDir work, capture;
  const std::vector<std::string> claims = {"sja.thm2", "sja.lemma3"};
  const std::string base = "run sja.thm2 sja.lemma3 --quick --threads 2";
  const CliResult first = run_cli(base + " --out first", work.path, capture.path);
  REQUIRE(first.status == 0);
  std::map<std::string, std::string> got;
  for (const auto& c : claims) got[c] = json::parse(slurp(work.path / "first" / (c + ".json"))).at("verdict");
  for (const auto& v : kVerdicts) {
    CAPTURE(v);
    std::vector<std::string> failed, held;
    for (const auto& c : claims) (got[c] == v ? held : failed).push_back(c);
    const CliResult e = run_cli(base + " --expect " + v + " --out expect-" + v, work.path, capture.path);
    CAPTURE(e.err);
    CHECK(e.status == (failed.empty() ? 0 : 1));
    if (failed.empty()) {
      CHECK(e.err.empty());
      continue;
    }
    CHECK(lines(e.err) == 1);
    CHECK(e.err.find("--expect did not hold for " + std::to_string(failed.size()) + " of 2 claims: expected " + v +
                     ", but ") != std::string::npos);
    for (const auto& c : failed) CHECK(e.err.find(c + " got " + got[c]) != std::string::npos);
    for (const auto& c : held) CHECK(e.err.find(c) == std::string::npos);  // only the claims that failed
  }
}

TEST_CASE("cli usability: a progress line fits the terminal, clears exactly what it drew, and is off in a log") {
  {  // Cut to width - 1 columns; a shorter line blanks the rest of a longer one; clear() overwrites what is drawn.
    Captured c;
    REQUIRE(c.f);
    {
      icl::ProgressLine line(c.f, true, 20);
      line.show(std::string(50, 'a'));
      CHECK(c.text() == "\r" + std::string(19, 'a'));
      CHECK(line.drawn() == 19);
      line.show("bbb");
      CHECK(c.text() == "\r" + std::string(19, 'a') + "\rbbb" + std::string(16, ' '));
      CHECK(line.drawn() == 3);
      line.clear();
      CHECK(c.text() == "\r" + std::string(19, 'a') + "\rbbb" + std::string(16, ' ') + "\r   \r");
      CHECK(line.drawn() == 0);
      line.clear();  // nothing drawn: nothing written
      line.show("[x] 1/2 \xc3\xa9t\xc3\xa9\nz");  // UTF-8 counts by character; a newline cannot break the line
      CHECK(line.drawn() == 13);
    }  // the destructor clears
    const std::string all = c.text();
    REQUIRE(all.size() > 15);
    CHECK(all.substr(all.size() - 15) == "\r" + std::string(13, ' ') + "\r");
    CHECK(all.find('\n') == std::string::npos);
  }
  {  // Disabled (stderr not a terminal): nothing at all.
    Captured c;
    REQUIRE(c.f);
    {
      icl::ProgressLine line(c.f, false, 80);
      line.show("[sja.thm2] 1/2 cases, 3 s");
      line.clear();
    }
    CHECK(c.text().empty());
  }
  CHECK(icl::fit_columns("abcdef", 3) == "abc");
  CHECK(icl::fit_columns("\xc3\xa9\xc3\xa9\xc3\xa9", 2) == "\xc3\xa9\xc3\xa9");
  CHECK(icl::fit_columns("ab", 10) == "ab");
  {  // The width comes from the terminal (TIOCGWINSZ); 80 where unknown.
    Pty pty;
    REQUIRE(pty.slave >= 0);
    winsize ws{};
    ws.ws_row = 24;
    ws.ws_col = 33;
    REQUIRE(::ioctl(pty.slave, TIOCSWINSZ, &ws) == 0);
    CHECK(icl::terminal_columns(pty.slave) == 33);
    ws.ws_col = 0;
    REQUIRE(::ioctl(pty.slave, TIOCSWINSZ, &ws) == 0);
    CHECK(icl::terminal_columns(pty.slave) == 80);
    Captured c;
    CHECK(icl::terminal_columns(::fileno(c.f)) == 80);
  }
  // End to end on a terminal 20 columns wide (util-linux `script` gives the command a pseudo-terminal): a claim that
  // runs for more than 2 s draws its progress line in at most 19 columns and then blanks exactly those columns.
  if (std::system("command -v script >/dev/null 2>&1 && command -v stty >/dev/null 2>&1") != 0) {
    MESSAGE("no `script` or `stty` here: the end-to-end terminal check is skipped");
    return;
  }
  TempDir work;
  const fs::path typescript = work.path / "typescript", out = work.path / "out";
  const std::string inner = "stty cols 20 && " + sh_quote(ICL_VERIFY_BINARY) + " run acds.thm4 --quick --threads 1 --out " +
                            sh_quote(out.string());
  const std::string cmd = "script -q -e -c " + sh_quote(inner) + " " + sh_quote(typescript.string()) + " </dev/null >/dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const json report = json::parse(slurp(out / "acds.thm4.json"));
  const double elapsed = report.at("elapsed_s").get<double>();
  const std::string tty = slurp(typescript);
  std::vector<std::string> segments;  // the text between carriage returns
  for (std::size_t i = tty.find('\r'); i != std::string::npos;) {
    const std::size_t j = tty.find('\r', i + 1);
    segments.push_back(tty.substr(i + 1, j == std::string::npos ? std::string::npos : j - i - 1));
    i = j;
  }
  std::size_t last = segments.size();
  for (std::size_t k = 0; k < segments.size(); ++k)
    if (segments[k].rfind("[acds.thm4]", 0) == 0) {
      CAPTURE(segments[k]);
      CHECK(segments[k].size() <= 19);
      last = k;
    }
  if (last == segments.size()) {
    // The line appears only once a claim has run 2 s; the last case ends at the end of the run.
    CHECK_MESSAGE(elapsed < 2.5, "a " << elapsed << " s run drew no progress line: " << tty);
    MESSAGE("acds.thm4 ran " << elapsed << " s here, too fast for a progress line: the end-to-end check did not run");
    return;
  }
  REQUIRE(last + 2 < segments.size());
  std::string drawn = segments[last];
  while (!drawn.empty() && drawn.back() == ' ') drawn.pop_back();  // padding over a longer line is not drawn text
  CHECK(segments[last + 1] == std::string(drawn.size(), ' '));    // exactly the columns drawn
  CHECK(segments[last + 2].rfind("acds.thm4 ", 0) == 0);           // then the claim's line, at the line's start
}

TEST_CASE("cli usability: '1 thread', and no verdict said twice (summary.md, the details, the command's line)") {
  {  // A summary that opens with its verdict goes on after the verdict shown before it.
    CHECK(icl::summary_after_verdict("refuted: worst case d=5", "refuted") == "worst case d=5");
    CHECK(icl::summary_after_verdict("refuted (reading): the 1/3 limit", "refuted") == "(reading): the 1/3 limit");
    CHECK(icl::summary_after_verdict("refutedness: x", "refuted") == "refutedness: x");
    CHECK(icl::summary_after_verdict("the loss is 3", "refuted") == "the loss is 3");
    json r = {{"verdict", "refuted"}, {"summary", "refuted: worst case d=5"}, {"refutation", {{"class", "substantive"}}}};
    auto lead = icl::verdict_lead(r);
    CHECK(lead.label == "refuted (substantive)");
    CHECK(lead.rest == "worst case d=5");
    r["summary"] = "refuted (a transpose slip): for non-symmetric A";
    lead = icl::verdict_lead(r);
    CHECK(lead.label == "refuted (a transpose slip)");
    CHECK(lead.rest == "for non-symmetric A");
    r = {{"verdict", "inconclusive"}, {"summary", "inconclusive (reduced settings: batch 200 (paper 4000)): 3 runs"}};
    lead = icl::verdict_lead(r);
    CHECK(lead.label == "inconclusive (reduced settings: batch 200 (paper 4000))");
    CHECK(lead.rest == "3 runs");
    r = {{"verdict", "confirmed"}, {"summary", "Cases with an exact value: 2 of 2."}};
    lead = icl::verdict_lead(r);
    CHECK(lead.label == "confirmed");
    CHECK(lead.rest == "Cases with an exact value: 2 of 2.");
    CHECK(!lead.opened);
  }
  TempDir work, capture;
  for (const char* threads : {"1", "2"}) {
    const std::string out = std::string("t") + threads;
    const CliResult r = run_cli(std::string("run sja.thm2 sja.lemma3 --quick --threads ") + threads + " --out " + out,
                                work.path, capture.path);
    CAPTURE(r.err);
    REQUIRE(r.status == 0);
    const std::string md = slurp(work.path / out / "summary.md");
    if (std::string(threads) == "1") {
      CHECK(md.find("; 1 thread, ") != std::string::npos);
      CHECK(md.find("1 threads") == std::string::npos);
    } else {
      CHECK(md.find("; 2 threads, ") != std::string::npos);
    }
    // No verdict twice in a row: "refuted: refuted", "(**refuted**): refuted", "**Verdict: refuted.** refuted",
    // "(**refuted (substantive)**): refuted".
    std::string plain;
    for (char c : md)
      if (c != '*' && c != '`') plain += c;
    const std::regex twice(R"((confirmed|refuted|inconclusive)(\s*\([^()]*(\([^()]*\)[^()]*)*\))?[).:\s]*\1\b)");
    std::smatch m;
    const bool repeated = std::regex_search(plain, m, twice);
    CHECK_MESSAGE(!repeated, "a verdict said twice in summary.md: '" << (repeated ? m.str() : "") << "'");
    for (const char* id : {"sja.thm2", "sja.lemma3"}) {
      const json j = json::parse(slurp(work.path / out / (std::string(id) + ".json")));
      const std::string v = j.at("verdict");
      CHECK(md.find(std::string("(**") + icl::verdict_lead(j).label + "**)") != std::string::npos);
      // The command's line: claim, verdict, time, then the summary without its opening verdict.
      const std::size_t at = r.out.find(std::string(id) + " ");
      REQUIRE(at != std::string::npos);
      const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
      CAPTURE(line);
      const std::size_t s = line.find(" s  ");
      REQUIRE(s != std::string::npos);
      CHECK(line.substr(s + 4).rfind(v, 0) != 0);
    }
  }
}

TEST_CASE("cli usability: without --out, run writes reports/partial; only the full standard run writes reports/latest") {
  using icl::default_out_folder;
  const std::size_t all = icl::claim_registry().size();
  REQUIRE(all > 1);
  icl::RunOptions o;
  CHECK(default_out_folder(o, all) == std::string("reports/latest"));  // run all, standard grid, budget and seed
  CHECK(default_out_folder(o, all - 1) == std::string("reports/partial"));  // a subset of the claims
  CHECK(default_out_folder(o, 1) == std::string("reports/partial"));
  o.threads = 1;  // the thread count changes no number
  CHECK(default_out_folder(o, all) == std::string("reports/latest"));
  const auto variant = [&](auto edit) {
    icl::RunOptions v;
    edit(v);
    return default_out_folder(v, all);
  };
  CHECK(variant([](icl::RunOptions& v) { v.quick = true; }) == std::string("reports/partial"));
  CHECK(variant([](icl::RunOptions& v) { v.sets = {"d=1"}; }) == std::string("reports/partial"));
  CHECK(variant([](icl::RunOptions& v) { v.samples = 1000; }) == std::string("reports/partial"));
  CHECK(variant([](icl::RunOptions& v) { v.alpha = 0.05; }) == std::string("reports/partial"));
  CHECK(variant([](icl::RunOptions& v) { v.seed = 7; }) == std::string("reports/partial"));
  // Through the command line: one claim, a custom budget, no --out.
  TempDir work, capture;
  const CliResult r = run_cli("run sja.thm2 --set d=1 --set n=25 --samples 256", work.path, capture.path);
  CAPTURE(r.err);
  REQUIRE(r.status == 0);
  CHECK(fs::exists(work.path / "reports" / "partial" / "sja.thm2.json"));
  CHECK(!fs::exists(work.path / "reports" / "latest"));
  CHECK(r.out.find("reports written to reports/partial") != std::string::npos);
  // --help states the rule.
  const CliResult help = run_cli("run --help", work.path, capture.path);
  CHECK(help.status == 0);
  CHECK(help.out.find("reports/partial") != std::string::npos);
  CHECK(help.out.find("reports/latest") != std::string::npos);
  // ./verify alone still names reports/latest (its full standard run).
  const std::string verify = slurp(fs::path(ICL_SOURCE_DIR) / "verify");
  CHECK(verify.find("run all --out reports/latest") != std::string::npos);
}

TEST_CASE("cli usability: compare_reports.py ignores what describes the run; 1 and 2 threads compare equal") {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) {
    MESSAGE("no python3 here: compare_reports.py is not checked");
    return;
  }
  const std::string src = ICL_SOURCE_DIR;
  // Made-up reports: run fields ignored, results not (tests/cli/compare_reports_check.py).
  CHECK(std::system(("python3 " + sh_quote(src + "/tests/cli/compare_reports_check.py") + " " + sh_quote(src)).c_str()) == 0);
  // Real reports: the same claims at 1 and 2 threads.
  TempDir work, capture;
  for (const char* t : {"1", "2"})
    REQUIRE(run_cli(std::string("run sja.thm2 sja.lemma3 --quick --threads ") + t + " --out t" + t, work.path, capture.path)
                .status == 0);
  const std::string compare = "python3 " + sh_quote(src + "/reports/compare_reports.py") + " " +
                              sh_quote((work.path / "t1").string()) + " " + sh_quote((work.path / "t2").string()) + " > " +
                              sh_quote((capture.path / "compare.txt").string()) + " 2>&1";
  CHECK(json::parse(slurp(work.path / "t1" / "sja.thm2.json")).at("threads") == 1);
  CHECK(json::parse(slurp(work.path / "t2" / "sja.thm2.json")).at("threads") == 2);
  CHECK(std::system(compare.c_str()) == 0);
  CHECK(slurp(capture.path / "compare.txt").find("2 of 2 reports identical") != std::string::npos);
  // And a changed number is found.
  json j = json::parse(slurp(work.path / "t2" / "sja.thm2.json"));
  j["cases"][0]["quantities"]["stated"]["value"] = 2 * j["cases"][0]["quantities"]["stated"]["value"].get<double>() + 1;
  std::ofstream(work.path / "t2" / "sja.thm2.json") << j.dump(2);
  CHECK(std::system(compare.c_str()) != 0);
  CHECK(slurp(capture.path / "compare.txt").find("differs: sja.thm2.json") != std::string::npos);
}

TEST_CASE("cli usability: MPI starts only under a launcher") {
  // Launcher variables (Open MPI, PMIx, PMI-1/2 from Hydra or srun, Hydra's local rank, MVAPICH): each one alone.
  for (const auto name : icl::mpi_launcher_variables()) {
    CAPTURE(std::string(name));
    CHECK(icl::started_by_mpi_launcher([&](const char* v) { return std::string_view(v) == name ? "0" : nullptr; }));
  }
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"}) {
    CAPTURE(name);
    CHECK(icl::started_by_mpi_launcher([&](const char* v) { return std::string_view(v) == name ? "1" : nullptr; }));
  }
  // A plain shell, or a Slurm job step without an MPI plugin (SLURM_* only): no launcher.
  CHECK(!icl::started_by_mpi_launcher([](const char*) -> const char* { return nullptr; }));
  const std::set<std::string> slurm = {"SLURM_PROCID", "SLURM_JOB_ID", "SLURM_NTASKS", "SLURM_STEP_ID"};
  CHECK(!icl::started_by_mpi_launcher([&](const char* v) { return slurm.count(v) ? "1" : nullptr; }));
  // End to end: an MCA setting that makes Open MPI's start-up fail leaves `list` untouched when no launcher started it
  // (where the command is built without MPI this holds trivially).
  ::setenv("OMPI_MCA_pml", "icl-verify-no-such-component", 1);
  TempDir work, capture;
  const CliResult r = run_cli("list", work.path, capture.path);
  ::unsetenv("OMPI_MCA_pml");
  CAPTURE(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("sja.thm2") != std::string::npos);
}

}  // namespace test_cli_usability
