// Exact Gaussian moments of polynomials.
//
// A Polynomial<T> is a finite sum of monomials c * x_1^e_1 ... x_d^e_d. Its expectation under
// x ~ N(0, I_d) is sum c * prod_i (e_i - 1)!! (zero if any e_i is odd): exact in rational arithmetic
// (T = Rational) whenever the coefficients are rational. N(0, Sigma) is handled by the linear change of
// variables x = L z, Sigma = L L^T (substitute, then take the N(0, I) expectation).
#pragma once
#include <Eigen/Dense>
#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

namespace icl {

using Rational = boost::multiprecision::cpp_rational;
using Exponent = std::vector<std::uint8_t>;

inline double to_double(double v) { return v; }
inline double to_double(const Rational& v) { return v.convert_to<double>(); }

// E[z^e] for z ~ N(0, 1): (e - 1)!! for even e, 0 for odd e.
inline std::int64_t gaussian_moment_1d(int e) {
  if (e % 2) return 0;
  std::int64_t r = 1;
  for (int k = e - 1; k > 1; k -= 2) r *= k;
  return r;
}

template <class T>
class Polynomial {
public:
  explicit Polynomial(int nvars = 0) : nvars_(nvars) {}

  static Polynomial constant(int nvars, T c) {
    Polynomial p(nvars);
    if (c != T(0)) p.terms_[Exponent(nvars, 0)] = c;
    return p;
  }
  static Polynomial variable(int nvars, int i) {
    Exponent e(nvars, 0);
    e.at(i) = 1;
    return monomial(e, T(1));
  }
  static Polynomial monomial(const Exponent& e, T c) {
    Polynomial p(static_cast<int>(e.size()));
    if (c != T(0)) p.terms_[e] = c;
    return p;
  }

  int nvars() const { return nvars_; }
  const std::map<Exponent, T>& terms() const { return terms_; }
  int degree() const {
    int d = 0;
    for (const auto& [e, c] : terms_) {
      int s = 0;
      for (auto k : e) s += k;
      d = std::max(d, s);
    }
    return d;
  }

  Polynomial& operator+=(const Polynomial& o) {
    check(o);
    for (const auto& [e, c] : o.terms_) add_term(e, c);
    return *this;
  }
  Polynomial& operator-=(const Polynomial& o) {
    check(o);
    for (const auto& [e, c] : o.terms_) add_term(e, -c);
    return *this;
  }
  Polynomial& operator*=(const T& s) {
    if (s == T(0)) terms_.clear();
    for (auto& [e, c] : terms_) c *= s;
    return *this;
  }
  friend Polynomial operator+(Polynomial a, const Polynomial& b) { return a += b; }
  friend Polynomial operator-(Polynomial a, const Polynomial& b) { return a -= b; }
  friend Polynomial operator*(Polynomial a, const T& s) { return a *= s; }
  friend Polynomial operator*(const T& s, Polynomial a) { return a *= s; }
  friend Polynomial operator*(const Polynomial& a, const Polynomial& b) {
    a.check(b);
    Polynomial r(a.nvars_);
    Exponent e(a.nvars_);
    for (const auto& [ea, ca] : a.terms_)
      for (const auto& [eb, cb] : b.terms_) {
        for (int i = 0; i < a.nvars_; ++i) e[i] = static_cast<std::uint8_t>(ea[i] + eb[i]);
        r.add_term(e, ca * cb);
      }
    return r;
  }

  // E[p(x)], x ~ N(0, I).
  T gaussian_expectation() const {
    T sum(0);
    for (const auto& [e, c] : terms_) {
      std::int64_t m = 1;
      for (auto k : e) {
        m *= gaussian_moment_1d(k);
        if (!m) break;
      }
      if (m) sum += c * T(m);
    }
    return sum;
  }

  double evaluate(const double* x) const {
    double s = 0;
    for (const auto& [e, c] : terms_) {
      double t = to_double(c);
      for (int i = 0; i < nvars_; ++i)
        for (int k = 0; k < e[i]; ++k) t *= x[i];
      s += t;
    }
    return s;
  }

  // p(x) with x_i replaced by images[i] (polynomials in another set of variables).
  template <class U>
  Polynomial<U> substitute(const std::vector<Polynomial<U>>& images) const {
    if (static_cast<int>(images.size()) != nvars_) throw std::invalid_argument("substitute: arity");
    const int m = images.empty() ? 0 : images[0].nvars();
    Polynomial<U> r(m);
    for (const auto& [e, c] : terms_) {
      U cu;
      if constexpr (std::is_same_v<T, U>) cu = c;
      else cu = U(to_double(c));
      Polynomial<U> t = Polynomial<U>::constant(m, cu);
      for (int i = 0; i < nvars_; ++i)
        for (int k = 0; k < e[i]; ++k) t = t * images[i];
      r += t;
    }
    return r;
  }

  Polynomial<double> to_double_poly() const {
    Polynomial<double> r(nvars_);
    for (const auto& [e, c] : terms_) r += Polynomial<double>::monomial(e, to_double(c));
    return r;
  }

private:
  void check(const Polynomial& o) const {
    if (o.nvars_ != nvars_) throw std::invalid_argument("Polynomial: variable counts differ");
  }
  void add_term(const Exponent& e, const T& c) {
    auto it = terms_.find(e);
    if (it == terms_.end()) {
      if (c != T(0)) terms_.emplace(e, c);
    } else {
      it->second += c;
      if (it->second == T(0)) terms_.erase(it);
    }
  }
  int nvars_;
  std::map<Exponent, T> terms_;
};

// The exact rational twin of a double polynomial: every coefficient's exact value (a double is a dyadic rational).
inline Polynomial<Rational> to_rational_poly(const Polynomial<double>& p) {
  Polynomial<Rational> r(p.nvars());
  for (const auto& [e, c] : p.terms()) r += Polynomial<Rational>::monomial(e, Rational(c));
  return r;
}

// E over the variables [first, first + count) only, x ~ N(0, I), the others kept as they are (exact for
// T = Rational); the result has the same variable count. (flat_polynomial.hpp's expect_over is the double twin.)
template <class T>
Polynomial<T> partial_gaussian_expectation(const Polynomial<T>& p, int first, int count) {
  if (first < 0 || count < 0 || first + count > p.nvars())
    throw std::invalid_argument("partial_gaussian_expectation: variables out of range");
  Polynomial<T> r(p.nvars());
  for (const auto& [e, c] : p.terms()) {
    std::int64_t m = 1;
    Exponent kept = e;
    for (int i = first; i < first + count && m; ++i) {
      m *= gaussian_moment_1d(e[i]);
      kept[i] = 0;
    }
    if (m) r += Polynomial<T>::monomial(kept, c * T(m));
  }
  return r;
}

// E[p(x)] for x ~ N(0, Sigma), via x = L z with L the Cholesky factor of Sigma.
inline double gaussian_expectation(const Polynomial<double>& p, const Eigen::MatrixXd& sigma) {
  const int d = p.nvars();
  Eigen::LLT<Eigen::MatrixXd> llt(sigma);
  if (llt.info() != Eigen::Success) throw std::invalid_argument("Sigma is not positive definite");
  const Eigen::MatrixXd L = llt.matrixL();
  std::vector<Polynomial<double>> images;
  for (int i = 0; i < d; ++i) {
    Polynomial<double> xi(d);
    for (int j = 0; j <= i; ++j) xi += Polynomial<double>::variable(d, j) * L(i, j);
    images.push_back(xi);
  }
  return p.substitute(images).gaussian_expectation();
}

// M[a][b] = E[f_a(x) g_b(x) w(x)], x ~ N(0, I): the moment matrices behind every `exact` value.
template <class T>
std::vector<std::vector<T>> moment_matrix(const std::vector<Polynomial<T>>& f,
                                          const std::vector<Polynomial<T>>& g,
                                          const Polynomial<T>& weight) {
  std::vector<std::vector<T>> m(f.size(), std::vector<T>(g.size(), T(0)));
  const bool symmetric = &f == &g;
  for (std::size_t a = 0; a < f.size(); ++a) {
    const Polynomial<T> fw = f[a] * weight;
    for (std::size_t b = symmetric ? a : 0; b < g.size(); ++b) {
      m[a][b] = (fw * g[b]).gaussian_expectation();
      if (symmetric) m[b][a] = m[a][b];
    }
  }
  return m;
}

template <class T>
Eigen::MatrixXd to_eigen(const std::vector<std::vector<T>>& m) {
  Eigen::MatrixXd r(m.size(), m.empty() ? 0 : m[0].size());
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = 0; j < m[i].size(); ++j) r(i, j) = to_double(m[i][j]);
  return r;
}

}  // namespace icl
