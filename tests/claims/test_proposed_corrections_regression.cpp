// Regression (issue 45): sja.thm2 through the real CLI at --quick carries a verified proposed correction, found from
// exact values alone, that is the hand-derived d(d^3 + 18d^2 + 95d + 142)/(4n) on every case and as a polynomial;
// and its LaTeX table and summary show it.
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>

#include <unistd.h>

namespace test_proposed_corrections_regression {  // named: a unity build compiles several test files as one unit

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  REQUIRE(f.good());
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("regression: sja.thm2 --quick proposes the hand-derived correction by itself") {
  namespace fs = std::filesystem;
  const fs::path out = fs::temp_directory_path() / fmt::format("icl-proposed-correction-{}", ::getpid());
  fs::remove_all(out);
  const std::string cmd =
      fmt::format("{} run sja.thm2 --quick --threads 2 --out {} > /dev/null", ICL_VERIFY_BINARY, out.string());
  REQUIRE(std::system(cmd.c_str()) == 0);
  const auto j = nlohmann::json::parse(slurp(out / "sja.thm2.json"));
  const std::string tex = slurp(out / "sja.thm2.tex"), md = slurp(out / "summary.md");
  fs::remove_all(out);

  REQUIRE(j["verdict"] == "refuted");
  const auto& p = j["proposed_correction"];
  REQUIRE(p["verified"] == true);
  CHECK(p["formula"] == "d*(d^3 + 18*d^2 + 95*d + 142)/(4*n)");
  CHECK(p["latex"] == "\\frac{d (d^{3} + 18 d^{2} + 95 d + 142)}{4 n}");
  CHECK(p["fitted_on"] == 36);
  CHECK(p["fitting_grid"]["d"] == nlohmann::json::array({1, 2, 3, 4, 5, 6}));
  REQUIRE(p["held_out"].get<int>() >= 3);
  bool larger_d_and_n = false;
  for (const auto& h : p["held_out_cases"]) {
    CHECK(h["equal"] == true);
    CHECK(h["exact"] == h["proposed"]);
    const long long d = h["params"]["d"], n = h["params"]["n"];
    // The hand-derived value as a fraction, reduced: d(d^3+18d^2+95d+142) / (4n).
    long long num = d * (d * d * d + 18 * d * d + 95 * d + 142), den = 4 * n;
    const long long g = std::gcd(num, den);
    CHECK(h["exact"] == (den / g == 1 ? fmt::format("{}", num / g) : fmt::format("{}/{}", num / g, den / g)));
    larger_d_and_n |= d > 6 && n > 150;
  }
  CHECK(larger_d_and_n);
  CHECK(p["claim_cases"]["equal"] == j["cases"].size());
  for (const auto& c : j["cases"]) {
    CHECK(c["quantities"]["proposed"]["value"].get<double>() ==
          doctest::Approx(c["quantities"]["corrected"]["value"].get<double>()).epsilon(1e-12));
    CHECK(c["decisions"]["proposed_vs_corrected"]["verdict"] == "confirmed");
  }
  bool finding = false;
  for (const auto& f : j["findings"])
    finding |= f.get<std::string>().find("term by term the same polynomial as the hand-derived") != std::string::npos;
  CHECK(finding);
  CHECK(tex.find("Proposed") != std::string::npos);
  CHECK(tex.find(p["latex"].get<std::string>()) != std::string::npos);
  CHECK(md.find(p["formula"].get<std::string>()) != std::string::npos);
}

}  // namespace test_proposed_corrections_regression
