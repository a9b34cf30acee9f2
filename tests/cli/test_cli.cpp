// The icl-verify command line (lib/icl/cli/main.cpp, lib/icl/cli/engine.cpp) against docs/reports.md: bad input
// exits 2 and writes nothing; `list` and `--expect` behave; and (the "regression" test case) every
// registered claim runs at --quick and writes a well-formed, thread-count-independent report.
#include "icl/claim/claim.hpp"
#include "icl/claim/parts.hpp"
#include "tests/support/cli_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace test_cli {  // named: a unity build compiles several test files as one unit

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using icl::test::CliResult;
using icl::test::is_empty_dir;
using icl::test::list_dir;
using icl::test::run_cli;
using icl::test::run_quick_report;
using icl::test::slurp;
using icl::test::TempDir;

const std::set<std::string> kVerdicts = {"confirmed", "refuted", "inconclusive"};

// A failed structural check is recorded and ends the current check (not the whole test case), so
// that one malformed report does not hide the others.
#define CHECK_OR_RETURN(cond, ret) \
  do {                             \
    const bool ok_ = (cond);       \
    CHECK_MESSAGE(ok_, #cond);     \
    if (!ok_) return ret;          \
  } while (0)

bool is_number(const json& j, const char* key) { return j.contains(key) && j.at(key).is_number(); }
bool is_nonempty_string(const json& j, const char* key) {
  return j.contains(key) && j.at(key).is_string() && !j.at(key).get<std::string>().empty();
}

// Checks one quantity against the kinds of docs/reports.md; returns the kind found ("" if none).
std::string check_quantity(const std::string& name, const json& q) {
  INFO("quantity '" << name << "': " << q.dump());
  CHECK_OR_RETURN(q.is_object(), "");
  if (q.contains("value")) {
    CHECK(q.at("value").is_number());
    return "value";
  }
  if (q.contains("mean")) {
    CHECK_OR_RETURN(is_number(q, "mean"), "");
    CHECK_OR_RETURN(is_number(q, "stderr"), "");
    CHECK_OR_RETURN(is_number(q, "ci_low"), "");
    CHECK_OR_RETURN(is_number(q, "ci_high"), "");
    CHECK_OR_RETURN(q.contains("samples") && q.at("samples").is_number_unsigned(), "");
    const double mean = q.at("mean"), se = q.at("stderr"), lo = q.at("ci_low"), hi = q.at("ci_high");
    CHECK(se >= 0);
    CHECK(lo <= mean);
    CHECK(mean <= hi);
    CHECK(q.at("samples").get<std::uint64_t>() > 0);
    return "mc";
  }
  if (q.contains("matrix")) {
    const json& m = q.at("matrix");
    CHECK_OR_RETURN(m.is_array() && !m.empty(), "");
    CHECK_OR_RETURN(m[0].is_array() && !m[0].empty(), "");
    const std::size_t cols = m[0].size();
    for (const auto& row : m) {
      CHECK_OR_RETURN(row.is_array() && row.size() == cols, "");
      for (const auto& x : row) CHECK(x.is_number());
    }
    return "matrix";
  }
  FAIL_CHECK("quantity '" << name << "' is none of the kinds value / mean,stderr,ci_low,ci_high,samples / matrix");
  return "";
}

// The whole report contract for one claim's JSON.
bool check_report(const json& r, const icl::Claim& c, int threads) {
  INFO("claim " << c.id);
  CHECK_OR_RETURN(r.is_object(), false);
  for (const char* k : {"schema", "claim", "title", "source", "statement", "verdict", "summary"}) {
    INFO("field " << k);
    CHECK_OR_RETURN(is_nonempty_string(r, k), false);
  }
  CHECK(r.at("schema") == "icl-verify/report/v1");
  CHECK(r.at("claim") == c.id);
  CHECK(r.at("title") == c.title);
  CHECK(r.at("source") == c.source);
  CHECK(r.at("statement") == c.statement);
  CHECK(kVerdicts.count(r.at("verdict").get<std::string>()) == 1);
  CHECK_OR_RETURN(r.contains("seed") && r.contains("threads") && is_number(r, "elapsed_s"), false);
  CHECK(r.at("seed") == 1);
  CHECK(r.at("threads") == threads);
  CHECK(r.at("elapsed_s").get<double>() >= 0);

  CHECK_OR_RETURN(r.contains("cases") && r.at("cases").is_array() && !r.at("cases").empty(), false);
  const json& cases = r.at("cases");
  bool any_refuted = false, all_confirmed = true;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const json& k = cases[i];
    INFO("case " << i << ": " << (k.is_object() && k.contains("params") ? k.at("params").dump() : std::string("?")));
    CHECK_OR_RETURN(k.is_object(), false);
    CHECK_OR_RETURN(k.contains("params") && k.at("params").is_object(), false);
    CHECK_OR_RETURN(k.contains("quantities") && k.at("quantities").is_object(), false);
    const json& q = k.at("quantities");
    CHECK(!q.empty());
    for (auto it = q.begin(); it != q.end(); ++it) {
      const std::string kind = check_quantity(it.key(), it.value());
      INFO("quantity " << it.key() << " of kind '" << kind << "'");
      if (it.key() == "mc") CHECK(kind == "mc");
      if (it.key() == "stated" || it.key() == "exact") CHECK((kind == "value" || kind == "matrix"));
    }
    CHECK_OR_RETURN(is_nonempty_string(k, "verdict"), false);
    const std::string v = k.at("verdict");
    CHECK(kVerdicts.count(v) == 1);
    CHECK(is_nonempty_string(k, "evidence"));
    CHECK(is_nonempty_string(k, "part"));
  }
  // The claim's verdict from its parts (docs/reports.md: refuted only if an asserted part fails, confirmed if
  // every part holds), derived here independently; a part's verdict is consistent with its cases.
  CHECK_OR_RETURN(r.contains("parts") && r.at("parts").is_array() && !r.at("parts").empty(), false);
  for (const auto& p : r.at("parts")) {
    INFO("part " << p.dump());
    const std::string pv = p.value("verdict", "");
    CHECK(kVerdicts.count(pv) == 1);
    any_refuted |= pv == "refuted";
    all_confirmed &= pv == "confirmed";
    bool case_refutes = false;
    for (const auto& k : cases) case_refutes |= k.value("part", "") == p.value("id", "") && k.value("verdict", "") == "refuted";
    if (case_refutes) CHECK(pv != "confirmed");
    CHECK(p.contains("refutation") == (pv == "refuted"));
  }
  const std::string expected = any_refuted ? "refuted" : all_confirmed ? "confirmed" : "inconclusive";
  CHECK(r.at("verdict") == expected);
  CHECK(r.contains("refutation") == (expected == "refuted"));
  const auto problems = icl::check_parts_block(r);
  for (const auto& p : problems) FAIL_CHECK(p);
  return true;
}

// Every string a reader sees in a report: summary, findings, part evidence, refutations, case evidence and
// decisions, as (where, text).
void report_texts(const json& j, const std::string& where, std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_string()) {
    out.emplace_back(where, j.get<std::string>());
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) report_texts(it.value(), where + "/" + it.key(), out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) report_texts(j[i], where + "/" + std::to_string(i), out);
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The reporting rule (lib/icl/verdict/decision.hpp): a report claims only what its decisions show.
//  1. A confirmed or refuted case names in `basis` the decisions it rests on, each present with that verdict.
//  2. No decided case has a Monte Carlo-vs-exact decision that excluded the exact value.
//  3. No text says two numbers "agree": it says "within +/- band", "does not exclude" / "too noisy", "excludes".
//  4. A summary that opens with a verdict opens with the claim's verdict.
//  5. A report with Monte Carlo estimates states its error rates.
void check_reporting_rule(const json& r) {
  INFO("claim " << r.value("claim", "?"));
  bool any_mc = false;
  for (const auto& k : r.at("cases")) {
    INFO("case " << k.value("params", json()).dump());
    const std::string v = k.value("verdict", "");
    for (auto it = k.at("quantities").begin(); it != k.at("quantities").end(); ++it)
      any_mc |= it.value().contains("mean");
    if (v != "confirmed" && v != "refuted") continue;
    const bool has_basis = k.contains("basis") && k.at("basis").is_array() && !k.at("basis").empty();
    CHECK_MESSAGE(has_basis, "a decided case names no decision it rests on");
    if (k.contains("basis"))
      for (const auto& b : k.at("basis")) {
        const std::string name = b.get<std::string>();
        INFO("basis " << name);
        CHECK((k.contains("decisions") && k.at("decisions").contains(name)));
        if (k.contains("decisions") && k.at("decisions").contains(name))
          CHECK(k.at("decisions").at(name).value("verdict", "") == v);
      }
    if (k.contains("decisions"))
      for (auto it = k.at("decisions").begin(); it != k.at("decisions").end(); ++it) {
        const std::string name = it.key();
        if (name.find("mc") != std::string::npos && name.find("exact") != std::string::npos && it.value().is_object()) {
          const bool excluded = it.value().value("verdict", "") == "refuted";
          CHECK_MESSAGE(!excluded, "decided case while Monte Carlo excludes the exact value (" << name << ")");
        }
      }
  }
  std::vector<std::pair<std::string, std::string>> texts;
  for (const char* key : {"summary", "findings", "parts", "refutation", "cases"})
    if (r.contains(key)) report_texts(r.at(key), key, texts);
  for (const auto& [where, text] : texts) {
    if (where.find("/params") != std::string::npos) continue;
    const bool says_agree = lower(text).find("agree") != std::string::npos;
    CHECK_MESSAGE(!says_agree, "'agree' in " << where << ": " << text);
  }
  const std::string summary = r.value("summary", "");
  for (const char* v : {"confirmed", "refuted", "inconclusive"})
    if (summary.rfind(v, 0) == 0) {
      const bool same = r.value("verdict", "") == v;
      CHECK_MESSAGE(same, "summary opens '" << v << "'");
    }
  if (any_mc) {
    const bool rates = r.contains("error_rates");
    CHECK_MESSAGE(rates, "Monte Carlo estimates without error rates");
  }
}

// The parsed report, or null (with a recorded failure) if missing or not JSON.
json load_json(const fs::path& p) {
  CHECK_MESSAGE(fs::exists(p), "missing report " << p.string());
  if (!fs::exists(p)) return nullptr;
  try {
    return json::parse(slurp(p));
  } catch (const std::exception& e) {
    FAIL_CHECK("report " << p.string() << " is not valid JSON: " << e.what());
    return nullptr;
  }
}

}  // namespace

TEST_CASE("cli: bad input exits 2 with a message and writes nothing") {
  const std::vector<std::string> bad = {
      "run no.such.claim",
      "run sja.thm2 no.such.claim",  // one bad ID among good ones: still nothing runs
      "run sja.thm2 --set d=-1",
      "run sja.thm2 --set d=abc",
      "run sja.thm2 --set n=0",
      "run sja.thm2 --set d=1.5",  // integer parameter
      "run sja.thm2 --set d=100",  // above the declared maximum
      "run sja.thm2 --set d=nan",
      "run sja.thm2 --set n=inf",
      "run sja.thm2 --set d",
      "run sja.thm2 --set =3",
      "run sja.thm2 --set d=",
      "run sja.thm2 --set d=1,,2",
      "run sja.thm2 --set d=1,",
      "run sja.thm2 --set zz=1",  // unknown key
      "run all --set zz=1",
      "run sja.thm2 --expect bogus",
      "run sja.thm2 --samples 0",
      "run sja.thm2 --samples -3",
      "run sja.thm2 --samples abc",
      "run sja.thm2 --samples 1.5e0",   // scientific notation, but not a whole number
      "run sja.thm2 --samples 1e30",    // beyond the range
      "run sja.thm2 --samples 1e-3",
      "run sja.thm2 --threads 0",
      "run sja.thm2 --threads -1",
      "run sja.thm2 --alpha 0",
      "run sja.thm2 --alpha 1",
      "run sja.thm2 --alpha 1e-300",  // an interval at 1 - 1e-300 does not exist in double precision
      "run sja.thm2 --seed -1",        // not wrapped to 2^64 - 1
      "run sja.thm2 --look 0",
      "run sja.thm2 --look 101",
      "run sja.thm2 --look 1.5",
      "run sja.thm2 --seed 18446744073709551616",
      "run sja.thm2 --seed 1.5",
      "run sja.thm2 --seed ''",
      "run sja.thm2 --threads 100000",
      "run sja.thm2 --set d=1 --set d=2",  // a repeated key
      "run sja.thm2 --set d=1,1",          // a repeated value
      "run sja.thm2 --set n=1000000000",                                         // beyond any grid
      "run sja.thm2 --set d=8 --set n=10000000 --threads 64 --samples 1",        // grid too large for memory
      "run sja.thm2 --no-such-option",
      "run",
      "no-such-subcommand",
      "",
      "report --from does-not-exist",
      "report --from .",  // a folder without reports
  };
  for (const auto& args : bad) {
    TempDir work, capture;
    const std::string full = args.rfind("run", 0) == 0 ? args + " --out out" : args;
    CAPTURE(full);
    const CliResult r = run_cli(full, work.path, capture.path);
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(!r.err.empty());
    INFO("files written: " << list_dir(work.path));
    CHECK(is_empty_dir(work.path));
  }
  // The output folder is the user's input too: unwritable, not a folder, a name too long: exit 2, one line.
  for (const std::string& out : std::vector<std::string>{"/proc/icl-verify-test/out", "/dev/null/out", "''", std::string(300, 'a'),
                                std::string(300, 'a') + "/" + std::string(300, 'b')}) {
    TempDir work, capture;
    CAPTURE(out);
    const CliResult r = run_cli("run sja.thm2 --quick --set d=1 --set n=25 --samples 256 --out " + out, work.path, capture.path);
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("--out") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(is_empty_dir(work.path));
  }
  {  // A repeated --set key is named.
    TempDir work, capture;
    const CliResult r = run_cli("run sja.thm2 --set n=25 --set d=1 --set n=100 --out out", work.path, capture.path);
    CHECK(r.status == 2);
    CHECK(r.err.find("--set n:") != std::string::npos);
  }
  {  // Grid too large: the message says how many cases.
    TempDir work, capture;
    std::string many = "run sja.thm2 --set d=1,2,3,4,5,6,7,8 --set n=1";
    for (int n = 2; n <= 1300; ++n) many += "," + std::to_string(n);
    const CliResult r = run_cli(many + " --out out", work.path, capture.path);
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("1.04e+04 cases") != std::string::npos);
    CHECK(is_empty_dir(work.path));
  }
  // The memory guard says why.
  TempDir work, capture;
  const CliResult r = run_cli("run sja.thm2 --set d=8 --set n=10000000 --threads 64 --samples 1 --out out", work.path,
                              capture.path);
  CHECK(r.status == 2);
  CHECK(r.err.find("memory") != std::string::npos);
}

// The git commit of the source tree now, or "" where git cannot tell.
std::string git_head() {
  TempDir capture;
  const std::string cmd = "git -c safe.directory='*' -C '" + std::string(ICL_SOURCE_DIR) + "' rev-parse HEAD > '" +
                          (capture.path / "head").string() + "' 2>/dev/null";
  if (std::system(cmd.c_str()) != 0) return "";
  std::string h = slurp(capture.path / "head");
  while (!h.empty() && (h.back() == '\n' || h.back() == '\r')) h.pop_back();
  return h;
}

TEST_CASE("cli: every report carries its provenance; summary.md, the tables and --version show version and commit") {
  TempDir work, capture;
  const CliResult r = run_cli("run sja.thm2 --set d=1 --set n=25 --samples 256 --seed 3 --threads 1 --out out", work.path,
                              capture.path);
  REQUIRE(r.status == 0);
  const json j = load_json(work.path / "out" / "sja.thm2.json");
  REQUIRE(j.is_object());
  REQUIRE(j.contains("provenance"));
  const json& p = j.at("provenance");
  for (const char* k : {"version", "commit", "compiler", "build_type", "started_at", "command"}) {
    INFO("provenance." << k);
    CHECK(is_nonempty_string(p, k));
  }
  CHECK(p.at("backend") == "cpu");
  CHECK(p.at("precision") == "float64");
  CHECK(p.at("ranks") == 1);
  CHECK(p.at("dirty").is_boolean());
  for (const char* lib : {"eigen", "boost", "fmt", "nlohmann_json", "cli11"}) {
    INFO("library " << lib);
    CHECK(is_nonempty_string(p.at("libraries"), lib));
  }
  // started_at: ISO 8601 in UTC.
  const std::string t = p.at("started_at");
  CHECK(t.size() == 20);
  CHECK(t[4] == '-');
  CHECK(t[10] == 'T');
  CHECK(t.back() == 'Z');
  // The command line as given.
  CHECK(p.at("command").get<std::string>().find("run sja.thm2 --set d=1 --set n=25 --samples 256 --seed 3") !=
        std::string::npos);
  // The commit is the one the binary was built from: ./test builds first, so it is HEAD now (with "-dirty" exactly
  // when the tree differs from it).
  const std::string commit = p.at("commit"), head = git_head();
  if (!head.empty()) {
    CHECK(commit.rfind(head, 0) == 0);
    CHECK(p.at("dirty").get<bool>() == (commit == head + "-dirty"));
  }
  const std::string short_commit = commit.substr(0, 12);
  const std::string version = p.at("version");
  CHECK(slurp(work.path / "out" / "summary.md").find("icl-verify " + version + ", commit " + short_commit) !=
        std::string::npos);
  CHECK(slurp(work.path / "out" / "sja.thm2.tex").find("icl-verify " + version + ", commit " + short_commit) !=
        std::string::npos);
  const CliResult v = run_cli("--version", work.path, capture.path);
  CHECK(v.status == 0);
  CHECK(v.out.find("icl-verify " + version) != std::string::npos);
  CHECK(v.out.find(commit) != std::string::npos);
  CHECK(v.out.find("eigen") != std::string::npos);
}

// ICL_MUTANT (lib/icl/verdict/mutation.hpp, bench/mutate.py): the child process inherits it from here.
struct ScopedMutant {
  explicit ScopedMutant(const char* v) { ::setenv("ICL_MUTANT", v, 1); }
  ~ScopedMutant() { ::unsetenv("ICL_MUTANT"); }
  ScopedMutant(const ScopedMutant&) = delete;
  ScopedMutant& operator=(const ScopedMutant&) = delete;
};

TEST_CASE("cli: a mutant (ICL_MUTANT) perturbs its site, is named in the report and on stderr; a bad one is bad input") {
  TempDir work, capture;
  const std::string args = "run sja.thm2 --set d=1 --set n=25 --samples 256 --seed 3 --threads 1 --out ";
  const CliResult plain = run_cli(args + "plain", work.path, capture.path);
  REQUIRE(plain.status == 0);
  const json base = load_json(work.path / "plain" / "sja.thm2.json");
  CHECK(base.at("provenance").value("mutant", "") == "");
  const double stated = base.at("cases").at(0).at("quantities").at("stated").at("value").get<double>();
  const std::pair<const char*, double> kinds[] = {{"scale", 1.02}, {"shrink", 0.98}, {"sign", -1.0}};
  for (const auto& [kind, factor] : kinds) {
    const std::string mutant = std::string("sja.thm2/stated:") + kind;
    INFO(mutant);
    ScopedMutant m(mutant.c_str());
    const CliResult r = run_cli(args + kind, work.path, capture.path);
    REQUIRE(r.status == 0);
    CHECK(r.err.find(mutant) != std::string::npos);  // the warning names it
    const json j = load_json(work.path / kind / "sja.thm2.json");
    CHECK(j.at("provenance").at("mutant") == mutant);
    CHECK(j.at("cases").at(0).at("quantities").at("stated").at("value").get<double>() == doctest::Approx(factor * stated));
  }
  for (const char* bad : {"sja.thm2/stated:bogus", "no.such/site:scale", "sja.thm2/stated"}) {
    INFO(bad);
    ScopedMutant m(bad);
    TempDir empty;
    const CliResult r = run_cli(args + "out", empty.path, capture.path);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(is_empty_dir(empty.path));
  }
  const CliResult l = run_cli("list --mutation-sites", work.path, capture.path);
  CHECK(l.status == 0);
  CHECK(l.out.find("sja.thm2/stated\tsja.thm2\tscale,shrink,sign\t") != std::string::npos);
  CHECK(l.out.find("sja.appC/W0\t") != std::string::npos);
  CHECK(l.out.find("scale,shrink,sign,transpose") != std::string::npos);  // matrix sites
}

TEST_CASE("cli: report --from leaves out files that are not reports; none at all is bad input") {
  TempDir work, capture;
  const fs::path dir = work.path / "reports";
  fs::create_directories(dir);
  std::ofstream(dir / "broken.json") << "{\"schema\": \"icl-verify/report/v1\", \"claim\": ";  // cut short
  std::ofstream(dir / "other.json") << "[1, 2, 3]";
  const CliResult none = run_cli("report --from reports", work.path, capture.path);
  CAPTURE(none.err);
  CHECK(none.status == 2);
  CHECK(std::count(none.err.begin(), none.err.end(), '\n') == 1);
  CHECK(list_dir(dir).find("summary.md") == std::string::npos);
  // With one real report beside them, the folder is rebuilt and the others are named.
  REQUIRE(run_cli("run sja.thm2 --set d=1 --set n=25 --samples 256 --out reports", work.path, capture.path).status == 0);
  fs::remove(dir / "summary.md");
  const CliResult some = run_cli("report --from reports", work.path, capture.path);
  CAPTURE(some.err);
  CHECK(some.status == 0);
  CHECK(fs::exists(dir / "summary.md"));
  CHECK(some.err.find("broken.json") != std::string::npos);
}

TEST_CASE("cli: list exits 0 and names every registered claim") {
  TempDir work, capture;
  const CliResult r = run_cli("list", work.path, capture.path);
  CHECK(r.status == 0);
  CHECK(r.out.find("sja.thm2") != std::string::npos);
  REQUIRE(!icl::claim_registry().empty());
  for (const auto& c : icl::claim_registry()) {
    CAPTURE(c.id);
    CHECK(r.out.find(c.id) != std::string::npos);
  }
  CHECK(is_empty_dir(work.path));
}

TEST_CASE("cli: list CLAIM shows every parameter (the valid --set keys) and the parts; an unknown --set key names them") {
  TempDir work, capture;
  for (const auto& c : icl::claim_registry()) {
    CAPTURE(c.id);
    const CliResult r = run_cli("list " + c.id, work.path, capture.path);
    CHECK(r.status == 0);
    CHECK(r.out.rfind(c.id + ":", 0) == 0);
    for (const auto& p : c.params) CHECK(r.out.find("    " + p.name + " ") != std::string::npos);
    for (const auto& part : c.parts) CHECK(r.out.find("(" + part.id + ", ") != std::string::npos);
  }
  const CliResult two = run_cli("list sja.thm2 zfb.thm8", work.path, capture.path);
  CHECK(two.status == 0);
  CHECK(two.out.find("sja.thm2:") != std::string::npos);
  CHECK(two.out.find("zfb.thm8:") != std::string::npos);
  CHECK(two.out.find("dist ") != std::string::npos);
  // Bad IDs: exit 2, one line on stderr, nothing on stdout (also when a good ID comes first).
  for (const std::string args : {"list nope", "list sja.thm2 nope"}) {
    CAPTURE(args);
    const CliResult r = run_cli(args, work.path, capture.path);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("unknown claim ID 'nope'") != std::string::npos);
  }
  // A near miss (case or a typo) is named: did-you-mean, still one line and exit 2.
  for (const std::string args : {"run sja.Thm2 --quick --out rep", "list sja.thm22"}) {
    CAPTURE(args);
    const CliResult r = run_cli(args, work.path, capture.path);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("did you mean 'sja.thm2'?") != std::string::npos);
  }
  const CliResult bad = run_cli("run sja.thm2 --quick --set foo=1 --out rep", work.path, capture.path);
  CHECK(bad.status == 2);
  CHECK(bad.err.find("no selected claim has a parameter 'foo' (valid: d, n;") != std::string::npos);
  CHECK(is_empty_dir(work.path));
}

TEST_CASE("cli: --samples takes a whole number in scientific notation (1e5, 2.5e4)") {
  const auto j = run_quick_report("sja.thm2", "--set d=1 --set n=25 --samples 2.5e3").json;
  CHECK(j.at("sample_budget_per_case").get<std::uint64_t>() == 2500);
}

TEST_CASE("cli: a budget setting (--set search=K) takes one value, names no case, and scales the search") {
  TempDir work, capture;
  // One value only: a list is bad input (exit 2, nothing written).
  const CliResult two = run_cli("run acds.thm2 --quick --set search=1,2 --out rep", work.path, capture.path);
  CHECK(two.status == 2);
  CHECK(two.err.find("budget setting") != std::string::npos);
  CHECK(is_empty_dir(work.path));
  // The default run and search=2: the same cases (search is not a case parameter); the search ran twice the starts.
  const auto a = run_quick_report("acds.thm2").json, b = run_quick_report("acds.thm2", "--set search=2").json;
  REQUIRE(a.at("cases").size() == b.at("cases").size());
  for (std::size_t k = 0; k < a.at("cases").size(); ++k) {
    CHECK(a["cases"][k]["params"] == b["cases"][k]["params"]);
    CHECK(!a["cases"][k]["params"].contains("search"));
    CHECK(b["cases"][k]["search_symmetric"]["starts"].get<int>() == 2 * a["cases"][k]["search_symmetric"]["starts"].get<int>());
  }
}

TEST_CASE("cli: --look N states the rate over N looks beside the verdict and computes nothing differently") {
  const auto first = run_quick_report("sja.lemma3").json, second = run_quick_report("sja.lemma3", "--look 2").json;
  CHECK(!first.contains("looks"));
  REQUIRE(second.contains("looks"));
  CHECK(second["looks"]["this_look"] == 2);
  CHECK(second["looks"]["false_fail_rate_per_look"] == 0.01);
  CHECK(second["looks"]["false_fail_rate_over_looks"] == 0.02);
  const std::string s1 = first.at("summary"), s2 = second.at("summary");
  CHECK(s2.rfind(s1, 0) == 0);  // the first look's summary, then the looks sentence
  CHECK(s2.find("over the 2 looks the chance of any wrong decision is at most 0.02") != std::string::npos);
  CHECK(first.at("verdict") == second.at("verdict"));
  CHECK(first.at("cases").dump() == second.at("cases").dump());
}

TEST_CASE("cli: --expect exits 1 when the verdict differs, 0 when it holds") {
  TempDir work, capture;
  const std::string base = "run sja.thm2 --set d=1 --set n=25 --samples 2048 --threads 2";
  const CliResult first = run_cli(base + " --out first", work.path, capture.path);
  REQUIRE(first.status == 0);
  const json r = load_json(work.path / "first" / "sja.thm2.json");
  REQUIRE(r.is_object());
  REQUIRE(r.contains("verdict"));
  const std::string verdict = r.at("verdict");
  REQUIRE(kVerdicts.count(verdict) == 1);
  for (const auto& v : kVerdicts) {
    CAPTURE(v);
    const fs::path out = work.path / ("expect-" + v);
    const CliResult e = run_cli(base + " --expect " + v + " --out " + out.string(), work.path, capture.path);
    CAPTURE(e.err);
    CHECK(e.status == (v == verdict ? 0 : 1));
    if (v != verdict) {
      CHECK(e.err.find("--expect") != std::string::npos);
      CHECK(e.err.find("expected " + v + ", but sja.thm2 got " + verdict) != std::string::npos);  // names the claim
    }
    CHECK(fs::exists(out / "sja.thm2.json"));  // the run completed and its report was written
    // Same seed, same numbers.
    const json again = load_json(out / "sja.thm2.json");
    CHECK(again.value("cases", json()).dump() == r.at("cases").dump());
  }
}

TEST_CASE("cli regression: every claim --quick") {
  TempDir root, capture;
  const fs::path out2 = root.path / "threads2", out1 = root.path / "threads1";
  REQUIRE(!icl::claim_registry().empty());
  for (const auto& c : icl::claim_registry()) {
    INFO("claim " << c.id);
    const CliResult r2 = run_cli("run " + c.id + " --quick --threads 2 --out '" + out2.string() + "'", root.path,
                                 capture.path);
    MESSAGE(r2.out);
    CHECK_MESSAGE(r2.status == 0, "exit status " << r2.status << ", stderr: " << r2.err);
    // stderr is a file here, not a terminal: no progress line, whatever the claim's running time.
    CHECK_MESSAGE(r2.err.find('\r') == std::string::npos, "a progress line in a log: " << r2.err);
    if (r2.status != 0) continue;
    const json j2 = load_json(out2 / (c.id + ".json"));
    if (j2.is_null() || !check_report(j2, c, 2)) continue;
    CHECK(j2.value("quick", false) == true);
    CHECK(fs::exists(out2 / (c.id + ".tex")));
    CHECK(!slurp(out2 / (c.id + ".tex")).empty());
    CHECK(fs::exists(out2 / "summary.md"));
    CHECK(slurp(out2 / "summary.md").find(c.id) != std::string::npos);

    // Same seed, one thread: identical cases. (.ci/sanitize sets ICL_TEST_SKIP_THREAD_REPEAT: under the sanitizers the
    // point is memory and undefined behaviour, and ./test has already compared the thread counts.)
    if (std::getenv("ICL_TEST_SKIP_THREAD_REPEAT")) continue;
    const CliResult r1 = run_cli("run " + c.id + " --quick --threads 1 --out '" + out1.string() + "'", root.path,
                                 capture.path);
    CHECK_MESSAGE(r1.status == 0, "exit status " << r1.status << ", stderr: " << r1.err);
    if (r1.status != 0) continue;
    const json j1 = load_json(out1 / (c.id + ".json"));
    if (j1.is_null() || !check_report(j1, c, 1)) continue;
    CHECK(j1.at("cases").dump() == j2.at("cases").dump());
    CHECK(j1.at("verdict") == j2.at("verdict"));
  }
  // The reporting rule over every report of the run (reusing it: no extra claim runs).
  for (const auto& c : icl::claim_registry()) {
    const fs::path p = out2 / (c.id + ".json");
    if (!fs::exists(p)) continue;
    const json j = load_json(p);
    if (!j.is_null()) check_reporting_rule(j);
  }
  // Rebuilding the Markdown/LaTeX from the JSON alone works on the folder just written.
  fs::remove(out2 / "summary.md");
  const CliResult rep = run_cli("report --from '" + out2.string() + "'", root.path, capture.path);
  CAPTURE(rep.err);
  CHECK(rep.status == 0);
  CHECK(fs::exists(out2 / "summary.md"));
  for (const auto& c : icl::claim_registry()) {
    CAPTURE(c.id);
    CHECK(slurp(out2 / "summary.md").find(c.id) != std::string::npos);
    CHECK(fs::exists(out2 / (c.id + ".tex")));
  }
}

}  // namespace test_cli
