// Command-line fuzz test: seeded, deterministic random argument lists (option strings in random order, very long
// values, non-ASCII and invalid UTF-8, control characters, huge grids, unwritable output folders) against the
// contract of docs/reports.md:
//   - the exit status is always 0, 1 or 2: never a crash (signal), never 3 for a user's mistake;
//   - on exit 2: exactly one line on stderr, and nothing written in the working folder;
//   - on exit 0 or 1: every report written is whole (valid JSON, no temporary files left).
// It stays fast by construction: an argument list either holds something the validation must reject (so nothing
// runs, whatever else it asks for), or asks only for a tiny run (cheap claims, --quick, a few hundred prompts).
// Each run has a time limit, so a bad input that slipped through validation into a long run fails the test.
//
// ICL_FUZZ_CASES and ICL_FUZZ_SEED (environment) run more or other cases by hand.
#include "icl/claim/claim.hpp"
#include "tests/support/cli_support.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace test_cli_fuzz {  // named: a unity build compiles several test files as one unit

namespace {

namespace fs = std::filesystem;
using icl::test::CliResult;
using icl::test::run_cli;
using icl::test::TempDir;
using Args = std::vector<std::string>;

// splitmix64: the same stream on every platform.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  template <class T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }
};

// Random text: ASCII, shell metacharacters, non-ASCII UTF-8, invalid UTF-8, control characters; sometimes very long.
std::string nasty(Rng& r) {
  static const std::vector<std::string> atoms = {
      "a", "Z", "0", "7", "-", "--", "=", ",", ".", "_", " ", "'", "\"", "$", "`", "\\", ";", "&", "|", "*", "?", "%",
      "é", "ß", "中文", "😀", "\xff", "\xc3", "\xed\xa0\x80", "\n", "\t", "\x01", "\x7f", "nan", "inf", "-1", "1e999"};
  const std::size_t len = r.chance(0.1) ? 2000 + r.below(60000) : 1 + r.below(12);
  std::string s;
  while (s.size() < len) s += r.pick(atoms);
  return s;
}

// Text that can never be a claim ID, a number, 'all' or a path outside the working folder.
std::string nasty_word(Rng& r) {
  std::string s = "x" + nasty(r);
  std::replace(s.begin(), s.end(), '/', '_');
  return s;
}

// Claims whose --quick run with a few hundred prompts takes well under a second.
const std::vector<std::string> kCheapClaims = {"sja.thm2",  "sja.lemma3", "sja.lemma12", "sja.thm7",
                                               "sja.cor9",  "sja.cor10",  "acds.thm1",   "zfb.thm5"};

// One option or claim that validation must reject, whatever else the command line holds.
Args bad_item(Rng& r) {
  std::string long_digits(1 + r.below(5000), '9');
  std::string many_n = "n=1";
  for (int v = 2; v <= 1300; ++v) many_n += "," + std::to_string(v);
  const std::vector<Args> pool = {
      {"no.such.claim"}, {"sja.cor66"}, {nasty_word(r)}, {""}, {"é"}, {"\xff\xfe"}, {"sja.thm2\n"},
      {"--seed", "-1"}, {"--seed", "18446744073709551616"}, {"--seed", long_digits}, {"--seed", nasty_word(r)},
      {"--seed", "1.5"}, {"--seed", ""}, {"--seed", "\xd9\xa3"},
      {"--samples", "0"}, {"--samples", "-5"}, {"--samples", long_digits}, {"--samples", nasty_word(r)},
      {"--threads", "0"}, {"--threads", "-3"}, {"--threads", "100000"}, {"--threads", nasty_word(r)},
      {"--alpha", "0"}, {"--alpha", "1"}, {"--alpha", "1e-300"}, {"--alpha", "nan"}, {"--alpha", "-0.5"},
      {"--alpha", nasty_word(r)},
      {"--expect", "maybe"}, {"--expect", ""}, {"--expect", nasty_word(r)},
      {"--set", "d"}, {"--set", "=1"}, {"--set", "d="}, {"--set", "d=1,,2"}, {"--set", "d=1,1"},
      {"--set", "d=1", "--set", "d=2"}, {"--set", "zz=1"}, {"--set", nasty_word(r) + "=1"}, {"--set", "d=nan"},
      {"--set", "d=1e999"}, {"--set", "d=" + long_digits + "." + long_digits}, {"--set", "d=" + nasty_word(r)},
      {"--set", "d=1,2,3,4,5,6,7,8", "--set", many_n},  // a huge grid
      {"--set", "d=8", "--set", "n=10000000", "--threads", "64", "--samples", "1"},  // too large for memory
      {"--out", "/proc/icl-verify-fuzz/out"}, {"--out", "/dev/null/out"}, {"--out", ""},
      {"--out", std::string(300, 'o')}, {"--out", "o/" + std::string(5000, 'p')},
      {"--no-such-option"}, {"-x"}, {"--" + nasty_word(r)}};
  return r.pick(pool);
}

// Anything a run may ask for, cheap or not (only ever used beside a bad item).
Args any_item(Rng& r) {
  const std::vector<Args> pool = {
      {"all"}, {"sja.sec42"}, {"sja.fig3"}, {r.pick(kCheapClaims)}, {"--quick"}, {"--samples", "100000000"},
      {"--samples", "64"}, {"--seed", "18446744073709551615"}, {"--seed", "0"}, {"--threads", "1"},
      {"--threads", "1024"}, {"--alpha", "1e-6"}, {"--alpha", "0.9"}, {"--expect", "confirmed"},
      {"--set", "n=1000000"}, {"--set", "d=1,2"}, {"--out", "out"}, {"--out", "o/" + nasty_word(r)},
      {"--out", nasty_word(r)}};
  return r.pick(pool);
}

// A tiny run: one or two cheap claims at --quick with a few hundred prompts, options in random order.
Args tiny_run(Rng& r) {
  std::vector<Args> items = {{"--quick"}, {"--samples", r.pick(std::vector<std::string>{"1", "7", "64", "256"})}};
  items.push_back({r.pick(kCheapClaims)});
  if (r.chance(0.3)) items.push_back({r.pick(kCheapClaims)});
  if (r.chance(0.5)) items.push_back({"--seed", r.pick(std::vector<std::string>{"0", "1", "42", "18446744073709551615"})});
  if (r.chance(0.5)) items.push_back({"--threads", r.pick(std::vector<std::string>{"1", "2", "3"})});
  if (r.chance(0.3)) items.push_back({"--alpha", r.pick(std::vector<std::string>{"1e-6", "0.01", "0.5"})});
  if (r.chance(0.3)) items.push_back({"--expect", r.pick(std::vector<std::string>{"confirmed", "refuted", "inconclusive"})});
  items.push_back({"--out", r.pick(std::vector<std::string>{"out", "out/a/b", "outé", "o u t", "out'q", "out\nnl",
                                                            "out\xff", "./out/../out2"})});
  std::vector<std::size_t> order(items.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[r.below(i)]);
  Args a = {"run"};
  for (std::size_t i : order) a.insert(a.end(), items[i].begin(), items[i].end());
  return a;
}

// A run with at least one bad item among random others, in random order.
Args bad_run(Rng& r) {
  std::vector<Args> items = {bad_item(r)};
  const std::size_t extra = r.below(6);
  for (std::size_t i = 0; i < extra; ++i) items.push_back(r.chance(0.3) ? bad_item(r) : any_item(r));
  if (r.chance(0.7)) items.push_back({r.pick(kCheapClaims)});  // most runs name a claim, so the bad item decides
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[r.below(i)]);
  Args a = {"run"};
  for (const auto& it : items) a.insert(a.end(), it.begin(), it.end());
  return a;
}

// Other subcommands and plain junk.
Args other(Rng& r) {
  switch (r.below(6)) {
    case 0: return {"list", nasty_word(r)};
    case 1: return {"report", "--from", r.pick(std::vector<std::string>{"does-not-exist", "", "/proc/icl-fuzz", "/dev/null",
                                                                          nasty_word(r), "."})};
    case 2: return {"report", nasty_word(r)};
    case 3: return {nasty_word(r)};
    case 4: return {"run", "--set"};
    default: {
      Args a = {nasty_word(r)};
      for (std::size_t i = r.below(4); i > 0; --i) a.push_back(nasty(r));
      return a;
    }
  }
}

std::string shown(const Args& a) {
  std::string s;
  for (const auto& x : a) s += " [" + (x.size() > 80 ? x.substr(0, 80) + "...(" + std::to_string(x.size()) + " bytes)" : x) + "]";
  return s;
}

}  // namespace

TEST_CASE("cli fuzz: random command lines exit 0/1/2, one line on error, nothing written on error") {
  const char* env_cases = std::getenv("ICL_FUZZ_CASES");
  const char* env_seed = std::getenv("ICL_FUZZ_SEED");
  const int cases = env_cases ? std::atoi(env_cases) : 240;
  Rng r{env_seed ? std::strtoull(env_seed, nullptr, 10) : 20240601ULL};
  int counts[4] = {0, 0, 0, 0};
  for (int k = 0; k < cases; ++k) {
    const double u = static_cast<double>(r.below(1000)) / 1000;
    const int kind = u < 0.6 ? 0 : u < 0.72 ? 1 : 2;
    const Args args = kind == 0 ? bad_run(r) : kind == 1 ? tiny_run(r) : other(r);
    TempDir work, capture;
    const CliResult res = run_cli(args, work.path, capture.path, 120);
    INFO("case " << k << ":" << shown(args));
    INFO("exit " << res.status << ", stderr: " << res.err.substr(0, 500));
    CHECK((res.status == 0 || res.status == 1 || res.status == 2));
    if (res.status >= 0 && res.status <= 2) ++counts[res.status];
    if (kind == 0) CHECK(res.status == 2);  // every bad run holds something validation must reject
    if (res.status == 2) {
      CHECK(!res.err.empty());
      CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
      CHECK(res.err.back() == '\n');
      CHECK(res.err.rfind("icl-verify: ", 0) == 0);
      const bool nothing = icl::test::is_empty_dir(work.path);
      INFO("written: " << icl::test::list_dir(work.path));
      CHECK(nothing);
    } else if (res.status == 0 || res.status == 1) {
      if (res.status == 1) CHECK(res.err.find("--expect") != std::string::npos);
      for (const auto& e : fs::recursive_directory_iterator(work.path)) {
        const std::string name = e.path().filename().string();
        CHECK_MESSAGE(name.find(".tmp.") == std::string::npos, "temporary file left: " << e.path());
        CHECK_MESSAGE(name.find(".icl-verify-write-test") == std::string::npos, "test file left: " << e.path());
        if (e.path().extension() == ".json") {
          bool parsed = true;
          try {
            const auto j = nlohmann::json::parse(icl::test::slurp(e.path()));
            CHECK(j.contains("provenance"));
          } catch (const std::exception&) {
            parsed = false;
          }
          CHECK_MESSAGE(parsed, "not whole JSON: " << e.path());
        }
      }
    }
  }
  MESSAGE("fuzz: " << cases << " command lines; exit 0: " << counts[0] << ", exit 1: " << counts[1]
                   << ", exit 2: " << counts[2]);
  CHECK(counts[0] + counts[1] > 0);  // the tiny runs ran
  CHECK(counts[2] > cases / 2);
}

}  // namespace test_cli_fuzz
