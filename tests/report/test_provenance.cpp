// Provenance helpers (lib/icl/report/provenance.hpp) and the seed parser of the command line.
#include "icl/cli/engine.hpp"
#include "icl/report/provenance.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

namespace test_provenance {  // named: a unity build compiles several test files as one unit

namespace {

// What bash makes of a quoted command line: the arguments, one per NUL-terminated record.
std::vector<std::string> bash_split(const std::string& line) {
  char tmpl[] = "/tmp/icl-tests-bash-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::FILE* f = std::fopen(tmpl, "w");
  REQUIRE(f != nullptr);
  std::fprintf(f, "printf '%%s\\0' %s\n", line.c_str());
  std::fclose(f);
  const std::string out = std::string(tmpl) + ".out";
  const std::string cmd = "bash '" + std::string(tmpl) + "' > '" + out + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::vector<std::string> args;
  std::FILE* g = std::fopen(out.c_str(), "rb");
  REQUIRE(g != nullptr);
  std::string cur;
  for (int c; (c = std::fgetc(g)) != EOF;) {
    if (c == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(c);
    }
  }
  std::fclose(g);
  std::remove(tmpl);
  std::remove(out.c_str());
  return args;
}

}  // namespace

TEST_CASE("provenance: command_line quotes so that bash reads the same arguments back") {
  const std::vector<std::string> args = {"build/icl-verify", "run", "sja.thm2", "--set", "d=1,2", "--out", "my reports",
                                         "it's", "", "é ü", "a\nb", "\xff\xfe", "back\\slash", "$HOME", "*"};
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  const std::string line = icl::command_line(static_cast<int>(argv.size()), argv.data());
  CAPTURE(line);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.rfind("build/icl-verify run sja.thm2 --set d=1,2 --out 'my reports'", 0) == 0);
  CHECK(bash_split(line) == args);
}

TEST_CASE("provenance: printable_line is one line of valid UTF-8, cut at a character boundary") {
  CHECK(icl::printable_line("plain") == "plain");
  CHECK(icl::printable_line("a\nb\tc") == "a\\x0ab\\x09c");
  CHECK(icl::printable_line("\xff") == "\\xff");
  CHECK(icl::printable_line("é") == "é");
  // Strings built in steps: gcc 12's -Warray-bounds misfires on std::string(n, c) + literal.
  std::string input(10, 'x');
  input += "ééé";
  const std::string cut = icl::printable_line(input, 15);
  CHECK(cut.size() <= 15);
  std::string expected(10, 'x');
  expected += "é...";
  CHECK(cut == expected);
  CHECK(icl::printable_line(std::string(1000, 'y')).size() == 400);
}

TEST_CASE("provenance: the block names the build, the backend and the start time") {
  const auto j = icl::provenance_json("icl-verify run x", std::chrono::system_clock::from_time_t(0));
  CHECK(j.at("started_at") == "1970-01-01T00:00:00Z");
  CHECK(j.at("command") == "icl-verify run x");
  CHECK(j.at("backend") == "cpu");
  CHECK(j.at("ranks") == 1);
  CHECK(j.at("version") == icl::build_info().version);
  const std::string commit = j.at("commit");
  const bool hex40 = commit.size() >= 40 && commit.find_first_not_of("0123456789abcdef") >= 40;
  CHECK((commit == "unknown" || hex40));
  CHECK(j.at("dirty").get<bool>() == (commit.size() > 40));
  CHECK(icl::version_text().find(icl::build_info().version) != std::string::npos);
}

TEST_CASE("cli: --seed takes whole numbers in [0, 2^64) and nothing else") {
  CHECK(icl::parse_seed("0") == 0);
  CHECK(icl::parse_seed("007") == 7);
  CHECK(icl::parse_seed("18446744073709551615") == UINT64_MAX);
  CHECK(icl::parse_seed("1e3") == 1000);  // scientific notation where it is exactly a whole number (issue 30)
  for (const char* bad : {"-1", "18446744073709551616", "99999999999999999999", "1.5", "+3", " 1", "1 ", "", "0x10",
                          "1e-3", "1e20", "\xd9\xa3"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(icl::parse_seed(bad), icl::UsageError);
  }
}

}  // namespace test_provenance
