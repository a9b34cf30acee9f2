// Exact Gaussian moments (lib/icl/algebra/gaussian_moments.hpp) against values known independently:
// E z^{2k} = (2k-1)!!, odd moments vanish, independence factorises, and Isserlis' theorem for
// correlated Gaussians.
// GCC 12 reports a false -Wmaybe-uninitialized inside boost::multiprecision's cpp_int copy when
// moment_matrix<Rational> is inlined here (the same code in lib/ compiles cleanly).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "icl/algebra/gaussian_moments.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

namespace test_gaussian_moments {  // named: a unity build compiles several test files as one unit

namespace {

using icl::Exponent;
using icl::Rational;
using PR = icl::Polynomial<Rational>;
using PD = icl::Polynomial<double>;

template <class T>
icl::Polynomial<T> power(const icl::Polynomial<T>& p, int k) {
  icl::Polynomial<T> r = icl::Polynomial<T>::constant(p.nvars(), T(1));
  for (int i = 0; i < k; ++i) r = r * p;
  return r;
}

// x1^e1 x2^e2 ... as a Polynomial<Rational> with coefficient 1.
PR mono(std::initializer_list<int> e) {
  Exponent ex;
  for (int v : e) ex.push_back(static_cast<std::uint8_t>(v));
  return PR::monomial(ex, Rational(1));
}
PD monod(std::initializer_list<int> e) {
  Exponent ex;
  for (int v : e) ex.push_back(static_cast<std::uint8_t>(v));
  return PD::monomial(ex, 1.0);
}

std::string str(const Rational& r) { return r.str(); }

}  // namespace

TEST_CASE("gaussian_moment_1d: (e-1)!! for even e, 0 for odd e") {
  const std::int64_t expected[] = {1, 0, 1, 0, 3, 0, 15, 0, 105, 0, 945, 0, 10395};
  for (int e = 0; e <= 12; ++e) {
    CAPTURE(e);
    CHECK(icl::gaussian_moment_1d(e) == expected[e]);
  }
}

TEST_CASE("univariate moments are exact rationals: E x^4 = 3, E x^8 = 105, odd moments 0") {
  const PR x = PR::variable(1, 0);
  CHECK(str(power(x, 2).gaussian_expectation()) == "1");
  CHECK(str(power(x, 4).gaussian_expectation()) == "3");
  CHECK(str(power(x, 6).gaussian_expectation()) == "15");
  CHECK(str(power(x, 8).gaussian_expectation()) == "105");
  CHECK(power(x, 4).gaussian_expectation() == Rational(3));
  CHECK(power(x, 8).gaussian_expectation() == Rational(105));
  for (int k = 1; k <= 9; k += 2) {
    CAPTURE(k);
    CHECK(str(power(x, k).gaussian_expectation()) == "0");
  }
  // The constant term counts: E[x^4 + 7] = 10; rational coefficients stay exact.
  CHECK(str((power(x, 4) + PR::constant(1, Rational(7))).gaussian_expectation()) == "10");
  CHECK(str((Rational(1, 3) * power(x, 2) + PR::constant(1, Rational(1, 7))).gaussian_expectation()) == "10/21");
}

TEST_CASE("multivariate moments factorise over independent coordinates") {
  CHECK(str(mono({2, 2}).gaussian_expectation()) == "1");
  CHECK(str(mono({4, 2}).gaussian_expectation()) == "3");
  CHECK(str(mono({2, 4}).gaussian_expectation()) == "3");
  CHECK(str(mono({4, 4, 2}).gaussian_expectation()) == "9");
  CHECK(str(mono({6, 0, 4}).gaussian_expectation()) == "45");
  // Any odd exponent kills the term.
  CHECK(str(mono({1, 1}).gaussian_expectation()) == "0");
  CHECK(str(mono({3, 2}).gaussian_expectation()) == "0");
  CHECK(str(mono({2, 2, 1}).gaussian_expectation()) == "0");
  CHECK(str(mono({0, 0, 0}).gaussian_expectation()) == "1");
}

TEST_CASE("products of polynomials expand correctly before the expectation") {
  const int d = 3;
  const PR x1 = PR::variable(d, 0), x2 = PR::variable(d, 1), x3 = PR::variable(d, 2);
  const PR one = PR::constant(d, Rational(1));
  // (1 + x1 + x2^2)^2 = 1 + x1^2 + x2^4 + 2 x1 + 2 x2^2 + 2 x1 x2^2 -> 1 + 1 + 3 + 0 + 2 + 0 = 7.
  const PR p = one + x1 + x2 * x2;
  CHECK(str((p * p).gaussian_expectation()) == "7");
  // (x1^2 - 1)^2 -> 3 - 2 + 1 = 2 (the squared Hermite polynomial He_2 has norm 2).
  const PR h = x1 * x1 - one;
  CHECK(str((h * h).gaussian_expectation()) == "2");
  // He_2(x1) He_2(x2) is orthogonal to He_2(x1): E = 0.
  CHECK(str((h * (x2 * x2 - one) * h).gaussian_expectation()) == "0");
  // (x1 x2 - x3)(x1 x2 + x3) = x1^2 x2^2 - x3^2 -> 0, and the product has exactly these two terms.
  const PR q = (x1 * x2 - x3) * (x1 * x2 + x3);
  CHECK(q.terms().size() == 2);
  CHECK(str(q.gaussian_expectation()) == "0");
  CHECK(q.degree() == 4);
  // (x1 + x2 + x3)^4: E = 3 * (sum of squares)^2 with unit variance 3 -> 3 * 3^2 = 27.
  const PR s = x1 + x2 + x3;
  CHECK(str(power(s, 4).gaussian_expectation()) == "27");
  // Cancellation removes terms: (x1 + x2) - x2 = x1.
  const PR c = (x1 + x2) - x2;
  CHECK(c.terms().size() == 1);
  CHECK(c.degree() == 1);
  // Scaling by zero empties the polynomial.
  CHECK((p * Rational(0)).terms().empty());
}

TEST_CASE("evaluate and to_double_poly agree with direct arithmetic") {
  const int d = 2;
  const PR x1 = PR::variable(d, 0), x2 = PR::variable(d, 1);
  const PR p = Rational(3, 2) * x1 * x1 * x2 - x2 + PR::constant(d, Rational(1, 4));
  const double x[2] = {0.7, -1.3};
  const double direct = 1.5 * 0.7 * 0.7 * -1.3 + 1.3 + 0.25;
  CHECK(p.evaluate(x) == doctest::Approx(direct).epsilon(1e-15));
  CHECK(p.to_double_poly().evaluate(x) == doctest::Approx(direct).epsilon(1e-15));
  CHECK(p.to_double_poly().gaussian_expectation() == doctest::Approx(0.25).epsilon(1e-15));
  CHECK_THROWS_AS(x1 + PR::variable(3, 0), std::invalid_argument);
}

TEST_CASE("correlated Gaussian N(0, Sigma): Isserlis' theorem") {
  Eigen::MatrixXd S(2, 2);
  S << 2.0, 0.6, 0.6, 1.5;
  const double s11 = S(0, 0), s22 = S(1, 1), s12 = S(0, 1);
  const double eps = 1e-12;
  CHECK(icl::gaussian_expectation(monod({1, 1}), S) == doctest::Approx(s12).epsilon(eps));
  CHECK(icl::gaussian_expectation(monod({2, 0}), S) == doctest::Approx(s11).epsilon(eps));
  CHECK(icl::gaussian_expectation(monod({0, 2}), S) == doctest::Approx(s22).epsilon(eps));
  CHECK(icl::gaussian_expectation(monod({2, 2}), S) == doctest::Approx(s11 * s22 + 2 * s12 * s12).epsilon(eps));
  CHECK(icl::gaussian_expectation(monod({4, 0}), S) == doctest::Approx(3 * s11 * s11).epsilon(eps));
  CHECK(icl::gaussian_expectation(monod({3, 1}), S) == doctest::Approx(3 * s11 * s12).epsilon(eps));
  // E[x1^3 x2^3] = 9 s11 s22 s12 + 6 s12^3 (15 pairings: 9 of type (11)(22)(12), 6 of type (12)^3).
  CHECK(icl::gaussian_expectation(monod({3, 3}), S) ==
        doctest::Approx(9 * s11 * s22 * s12 + 6 * s12 * s12 * s12).epsilon(eps));
  CHECK(std::abs(icl::gaussian_expectation(monod({1, 2}), S)) < 1e-14);
  CHECK(std::abs(icl::gaussian_expectation(monod({3, 0}), S)) < 1e-14);

  Eigen::MatrixXd T(3, 3);
  T << 1.0, 0.3, -0.2,  //
      0.3, 2.0, 0.5,    //
      -0.2, 0.5, 1.2;
  // E[x1^2 x2 x3] = T11 T23 + 2 T12 T13.
  CHECK(icl::gaussian_expectation(monod({2, 1, 1}), T) ==
        doctest::Approx(T(0, 0) * T(1, 2) + 2 * T(0, 1) * T(0, 2)).epsilon(eps));
  // E[x1 x2 x3 x3] with a polynomial argument: E[(x1 + x2) x3] = T13 + T23.
  const PD lin = (PD::variable(3, 0) + PD::variable(3, 1)) * PD::variable(3, 2);
  CHECK(icl::gaussian_expectation(lin, T) == doctest::Approx(T(0, 2) + T(1, 2)).epsilon(eps));
  // Identity covariance reduces to the N(0, I) moments.
  CHECK(icl::gaussian_expectation(monod({4, 2, 2}), Eigen::MatrixXd::Identity(3, 3)) ==
        doctest::Approx(3.0).epsilon(eps));

  Eigen::MatrixXd bad(2, 2);
  bad << 1.0, 2.0, 2.0, 1.0;  // indefinite
  CHECK_THROWS_AS(icl::gaussian_expectation(monod({1, 1}), bad), std::invalid_argument);
}

TEST_CASE("moment_matrix: symmetric, weighted, equal to the entrywise expectations") {
  const int d = 2;
  const PR one = PR::constant(d, Rational(1));
  const PR x1 = PR::variable(d, 0), x2 = PR::variable(d, 1);
  const std::vector<PR> f = {one, x1, x2, x1 * x1 - one, x1 * x2, x2 * x2};
  const auto m = icl::moment_matrix(f, f, one);
  REQUIRE(m.size() == f.size());
  for (std::size_t a = 0; a < f.size(); ++a)
    for (std::size_t b = 0; b < f.size(); ++b) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK(m[a][b] == m[b][a]);
      CHECK(m[a][b] == (f[a] * f[b]).gaussian_expectation());
    }
  // Hand values: E[(x1^2-1)^2] = 2, E[x2^4] = 3, E[(x1^2-1) x2^2] = 0, E[1 * x2^2] = 1.
  CHECK(str(m[3][3]) == "2");
  CHECK(str(m[5][5]) == "3");
  CHECK(str(m[3][5]) == "0");
  CHECK(str(m[0][5]) == "1");
  CHECK(str(m[1][2]) == "0");

  // A copy of f as g (not the same object) takes the general path: same matrix.
  const std::vector<PR> g = f;
  const auto m2 = icl::moment_matrix(f, g, one);
  CHECK(m2 == m);

  // Weighted: E[f_a f_b x1^2]. E[1 * 1 * x1^2] = 1, E[x1 x1 x1^2] = 3, E[x2 x2 x1^2] = 1,
  // E[(x1^2-1)^2 x1^2] = E[x^6 - 2x^4 + x^2] = 15 - 6 + 1 = 10.
  const auto w = icl::moment_matrix(f, f, x1 * x1);
  CHECK(str(w[0][0]) == "1");
  CHECK(str(w[1][1]) == "3");
  CHECK(str(w[2][2]) == "1");
  CHECK(str(w[3][3]) == "10");
  for (std::size_t a = 0; a < f.size(); ++a)
    for (std::size_t b = 0; b < f.size(); ++b) CHECK(w[a][b] == w[b][a]);

  // Rectangular f x g.
  const std::vector<PR> h = {x1, x1 * x1 * x1};
  const auto r = icl::moment_matrix(h, f, one);
  REQUIRE(r.size() == 2);
  REQUIRE(r[0].size() == f.size());
  CHECK(str(r[1][1]) == "3");  // E[x1^3 x1] = 3
  CHECK(str(r[0][1]) == "1");

  const Eigen::MatrixXd e = icl::to_eigen(m);
  CHECK(e.rows() == 6);
  CHECK(e.cols() == 6);
  CHECK(e(3, 3) == 2.0);
  CHECK(e(5, 5) == 3.0);
  CHECK((e - e.transpose()).cwiseAbs().maxCoeff() == 0.0);
}

}  // namespace test_gaussian_moments
