// Proposed corrections (lib/icl/verdict/proposed_correction.hpp): a closed form reconstructed from exact values on a
// tensor grid and verified exactly on held-out points. Known closed forms are recovered term by term, polynomials
// first, then rational functions (d(d + 1)/(n + d + 1), d/(n + 1)); quantities of another form (2^-d, a degree beyond
// the grid) are reported as not fitting, never given a wrong formula; a formula that fits the grid but not a held-out
// point is withdrawn; the text and LaTeX read back.
#include "icl/verdict/proposed_correction.hpp"

#include "icl/algebra/rational_matrix.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

namespace test_proposed_correction {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

Rational R(long long p, long long q = 1) { return Rational(p, q); }

std::vector<Rational> range(long long from, int count, long long step = 1) {
  std::vector<Rational> v;
  for (int i = 0; i < count; ++i) v.push_back(R(from + i * step));
  return v;
}

CorrectionSearch search_dn(ExactOracle f) {
  CorrectionSearch s;
  s.variables = {{"d", FitRole::polynomial, range(1, 6)}, {"n", FitRole::reciprocal, range(25, 6, 25)}};
  s.held_out = {{R(7), R(1601)}, {R(8), R(178)}, {R(2), R(15007)}, {R(7), R(481)}};
  s.exact = std::move(f);
  return s;
}

// The closed form of the hand-derived correction of the App. C loss of the sja paper: d(d^3+18d^2+95d+142)/(4n).
Rational quartic(const std::vector<Rational>& p) {
  const Rational& d = p[0];
  return d * (d * d * d + 18 * d * d + 95 * d + 142) / (4 * p[1]);
}

}  // namespace

TEST_CASE("proposed correction: a quartic over n is recovered term by term and verified on the held-out points") {
  int calls = 0;
  const auto s = search_dn([&](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
    ++calls;
    return quartic(p);
  });
  const ProposedCorrection c = propose_correction(s);
  CHECK(c.searched);
  CHECK(c.found);
  CHECK(c.verified);
  CHECK(c.why.empty());
  CHECK(c.fitted_on == 36);
  CHECK(c.held_out == 4);
  CHECK(calls == 40);
  REQUIRE(c.formula.terms.size() == 4);  // d^4, d^3, d^2, d over n: no other term
  for (const auto& [pw, q] : c.formula.terms) {
    CHECK(pw[1] == -1);
    const Rational want = pw[0] == 4 ? R(1, 4) : pw[0] == 3 ? R(9, 2) : pw[0] == 2 ? R(95, 4) : R(71, 2);
    CHECK(pw[0] >= 1);
    CHECK(q == want);
  }
  CHECK(c.formula.text() == "d*(d^3 + 18*d^2 + 95*d + 142)/(4*n)");
  CHECK(c.formula.latex() == "\\frac{d (d^{3} + 18 d^{2} + 95 d + 142)}{4 n}");
  for (long long d = 1; d <= 12; ++d) CHECK(c.formula.evaluate({R(d), R(1000 + d)}) == quartic({R(d), R(1000 + d)}));
  const auto j = c.to_json();
  CHECK(j["verified"] == true);
  CHECK(j["fitted_on"] == 36);
  CHECK(j["held_out"] == 4);
  CHECK(j["held_out_cases"].size() == 4);
  for (const auto& h : j["held_out_cases"]) CHECK(h["equal"] == true);
  CHECK(j["fitting_grid"]["n"][0] == 25);
}

TEST_CASE("proposed correction: the GD step's loss in d, a step c and 1/n") {
  CorrectionSearch s;
  s.variables = {{"d", FitRole::polynomial, range(1, 6)},
                 {"c", FitRole::polynomial, {R(1, 2), R(1), R(3, 2), R(2), R(5, 2), R(3)}},
                 {"n", FitRole::reciprocal, range(20, 6, 20)}};
  s.held_out = {{R(7), R(15, 4), R(1201)}, {R(8), R(7, 4), R(143)}, {R(2), R(9, 2), R(12007)}};
  // 0.9 x (a stated loss 10% too small) is not what is fitted: the exact loss is.
  s.exact = [](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
    const Rational &d = p[0], &c = p[1], &n = p[2];
    return d * (c * c * (n + d + 1) / n - 2 * c + 1);
  };
  const ProposedCorrection c = propose_correction(s);
  REQUIRE(c.verified);
  CHECK(c.formula.terms.size() == 5);  // c^2 d, -2 c d, d, c^2 d^2 / n, c^2 d / n
  CHECK(c.formula.text() == "d*(c^2 - 2*c + 1) + d*c^2*(d + 1)/n");
  CHECK(c.formula.latex() == "d (c^{2} - 2 c + 1) + \\frac{d c^{2} (d + 1)}{n}");
  CHECK(c.fitted_on == 216);
}

TEST_CASE("proposed correction: quantities of another form are not given a formula") {
  SUBCASE("2^-d: no polynomial in d") {
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
      Rational two_d(1);
      for (int i = 0; i < p[0]; ++i) two_d *= 2;
      return p[0] / two_d + 1 / p[1];
    }));
    CHECK(c.searched);
    CHECK_FALSE(c.found);
    CHECK_FALSE(c.verified);
    CHECK(c.why.find("no formula in the searched family fits: along d") != std::string::npos);
    const auto j = c.to_json();
    CHECK(j["formula"].is_null());
    CHECK(j["latex"].is_null());
    CHECK(j["verified"] == false);
  }
  SUBCASE("sqrt-free but not rational: d / 2^(n/25) fits neither family") {
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
      Rational two(1);
      for (int i = 0; i < p[1] / 25; ++i) two *= 2;
      return p[0] / two;
    }));
    CHECK_FALSE(c.verified);
    CHECK(c.why.find("along n") != std::string::npos);
    CHECK(c.why.find("nor a rational function") != std::string::npos);
  }
  SUBCASE("degree 5 in d: beyond what 6 values can check") {
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
      return p[0] * p[0] * p[0] * p[0] * p[0] / p[1];
    }));
    CHECK_FALSE(c.verified);
    CHECK(c.why.find("degree <= 4") != std::string::npos);
  }
  SUBCASE("a formula through the grid that a held-out point refutes is withdrawn") {
    // A quartic on d <= 6 that changes beyond it (an extra term vanishing on the whole fitting grid).
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
      Rational bump(1);
      for (int k = 1; k <= 6; ++k) bump *= p[0] - k;
      return quartic(p) + bump / 1000;
    }));
    CHECK(c.found);
    CHECK_FALSE(c.verified);
    CHECK(c.why.find("misses held-out case d=7") != std::string::npos);
    CHECK(c.to_json()["formula"].is_null());
  }
  SUBCASE("no exact value somewhere: said, not guessed") {
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string& why) -> std::optional<Rational> {
      if (p[0] == 4) {
        why = "two layers";
        return std::nullopt;
      }
      return quartic(p);
    }));
    CHECK_FALSE(c.verified);
    CHECK(c.why.find("two layers") != std::string::npos);
  }
}

TEST_CASE("proposed correction: a search out of time says so and proposes nothing") {
  auto s = search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> { return quartic(p); });
  s.time_budget_s = 0;
  const auto c = propose_correction(s);
  CHECK(c.searched);
  CHECK_FALSE(c.found);
  CHECK_FALSE(c.verified);
  CHECK(c.why.find("time budget") != std::string::npos);
  CHECK(c.to_json()["formula"].is_null());
}

TEST_CASE("proposed correction: claim cases, fewer than 3 held-out points, the per-case quantity") {
  auto exact = [](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> { return quartic(p); };
  auto s = search_dn(exact);
  s.held_out.resize(2);
  auto c = propose_correction(s);
  CHECK(c.found);
  CHECK_FALSE(c.verified);
  CHECK(c.why.find("at least 3") != std::string::npos);

  c = propose_correction(search_dn(exact));
  REQUIRE(c.verified);
  check_on_claim_cases(c, {{R(1), R(25)}, {R(5), R(1600)}}, exact);
  CHECK(c.verified);
  CHECK(c.claim_cases_checked == 2);
  CHECK(c.claim_cases_equal == 2);
  // A claim case that the formula misses withdraws it.
  check_on_claim_cases(c, {{R(3), R(77)}}, [](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
    return quartic(p) + 1;
  });
  CHECK_FALSE(c.verified);

  c = propose_correction(search_dn(exact));
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  cases.push_back({{"params", {{"d", 2}, {"n", 100}}}, {"quantities", {{"exact", {{"value", 2.06}}}}}});
  cases.push_back({{"params", {{"n", 100}}}, {"quantities", nlohmann::ordered_json::object()}});  // no d: left alone
  add_proposed_quantity(cases, c);
  CHECK(cases[0]["quantities"]["proposed"]["value"].get<double>() == doctest::Approx(2.06).epsilon(1e-15));
  CHECK_FALSE(cases[1]["quantities"].contains("proposed"));
}

TEST_CASE("proposed correction: the grid chosen from a claim's axes") {
  std::string why;
  // d from 1, n on multiples of its smallest value, a real step on the dyadic step below its smallest gap.
  auto s = choose_correction_grid({{"d", FitRole::polynomial, true, 1, 64, {2, 5}, true},
                                   {"c", FitRole::polynomial, false, -1e300, 1e300, {0.5, 1}, false},
                                   {"n", FitRole::reciprocal, true, 1, 1e5, {20, 50}, false}},
                                  why);
  REQUIRE(s);
  CHECK(s->variables[0].values == range(1, 6));
  CHECK(s->variables[1].values == std::vector<Rational>{R(1, 2), R(1), R(3, 2), R(2), R(5, 2), R(3)});
  CHECK(s->variables[2].values == range(20, 6, 20));
  REQUIRE(s->held_out.size() >= 3);
  CHECK(s->held_out[0][0] == 7);    // a larger d
  CHECK(s->held_out[0][2] > 120);   // and a larger n
  CHECK(s->held_out[1][0] == 8);
  // A range too small for six values is said, not worked around.
  CHECK_FALSE(choose_correction_grid({{"d", FitRole::polynomial, true, 1, 3, {2}, true}}, why));
  CHECK(why.find("no room") != std::string::npos);
}

TEST_CASE("proposed correction: the pieces a report's sentence reads (grid, held-out range, same polynomial)") {
  const ProposedCorrection c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) {
    return std::optional<Rational>(quartic(p));
  }));
  REQUIRE(c.verified);
  CHECK(fitting_grid_text(c) == "d in {1, 2, 3, 4, 5, 6}; n in {25, 50, 75, 100, 125, 150}");
  CHECK(held_out_max(c, "d") == 8);      // held-out points (7, 1601), (8, 178), (2, 15007), (7, 481)
  CHECK(held_out_max(c, "n") == 15007);
  CHECK(held_out_max(c, "k") == 0);      // not a variable of the search
  // The same terms in another order are the same polynomial; another coefficient or variable order is not.
  ClosedForm f = c.formula;
  std::reverse(f.terms.begin(), f.terms.end());
  CHECK(same_polynomial(f, c.formula));
  f.terms[0].second += 1;
  CHECK_FALSE(same_polynomial(f, c.formula));
  ClosedForm g = c.formula;
  g.names = {"n", "d"};
  CHECK_FALSE(same_polynomial(g, c.formula));
  CHECK(fitting_grid_text(no_correction_search("none")).empty());
}

TEST_CASE("proposed correction: a rational function is recovered when no polynomial fits, the smallest one") {
  SUBCASE("the one-layer optimum's loss d(d + 1)/(n + d + 1)") {
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
      return p[0] * (p[0] + 1) / (p[1] + p[0] + 1);
    }));
    REQUIRE(c.verified);
    CHECK(c.formula.rational());
    CHECK(c.formula.text() == "d*(d + 1)/(d + n + 1)");
    CHECK(c.formula.latex() == "\\frac{d (d + 1)}{d + n + 1}");
    CHECK(c.held_out == 4);
    for (const auto& h : c.held_out_cases) CHECK(h["equal"] == true);
    CHECK(c.formula.evaluate({R(30), R(100000)}) == R(30 * 31, 100031));  // far beyond the fit
    CHECK(c.family.find("then ratios N/D") != std::string::npos);
    ClosedForm same = c.formula;
    for (auto& t : same.terms) t.second *= 3;
    for (auto& t : same.denominator) t.second *= 3;
    CHECK_FALSE(same_polynomial(same, c.formula));  // term by term: 3N/3D is another representation
  }
  SUBCASE("d/(n + 1): polynomial in d, not in 1/n") {
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
      return p[0] / (p[1] + 1);
    }));
    REQUIRE(c.verified);
    CHECK(c.formula.text() == "d/(n + 1)");
  }
  SUBCASE("a polynomial in n itself (no reciprocal form) is N/1") {
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
      return p[0] + p[1] / 2;
    }));
    REQUIRE(c.verified);
    CHECK_FALSE(c.formula.rational());
    CHECK(c.formula.evaluate({R(3), R(10)}) == R(8));
  }
  SUBCASE("a polynomial in 1/n stays the first try and is not rewritten as a ratio") {
    const auto c = propose_correction(search_dn([](const std::vector<Rational>& p, std::string&) -> std::optional<Rational> {
      return quartic(p);
    }));
    REQUIRE(c.verified);
    CHECK_FALSE(c.formula.rational());
    CHECK(c.family.find("then ratios") == std::string::npos);
  }
}

TEST_CASE("simplest_fraction: a double read as the fraction it rounds from") {
  CHECK(simplest_fraction(5.0 / 6.0) == R(5, 6));
  CHECK(simplest_fraction(0.1) == R(1, 10));
  CHECK(simplest_fraction(-20.0 / 23.0) == R(-20, 23));
  CHECK(simplest_fraction(0.5) == R(1, 2));
  CHECK(simplest_fraction(3.0) == R(3));
  CHECK(simplest_fraction(6007.0 / 6010.0) == R(6007, 6010));
  const double pi = 3.141592653589793;  // no small fraction rounds to it: its exact dyadic value
  CHECK(simplest_fraction(pi) == Rational(pi));
}

}  // namespace test_proposed_correction
