// Dense matrices of exact rationals (Boost.Multiprecision cpp_rational): the exact side's matrix algebra where a
// value must come out as a fraction (exact losses for the reconstruction of closed forms, verdict/proposed_correction.hpp).
//
// Why not Eigen::Matrix<Rational>: with Boost 1.74 (Debian 12) an Eigen product or decomposition of cpp_rational
// entries does not compile (Boost's is_byte_container trait is instantiated on Eigen expression types and fails),
// so the few operations the exact side needs are written out here, each a plain loop: product, sum, transpose, trace
// and an inverse by Gauss-Jordan elimination (exact arithmetic needs no pivoting strategy beyond a nonzero pivot).
// Conversions from double are exact: every double is a dyadic rational, and cpp_rational(double) keeps all its bits.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace icl {

// The simplest fraction a double rounds from: the first continued-fraction convergent of x, with a denominator up
// to max_denominator, whose double is x itself (0.8333333333333334 -> 5/6, 0.1 -> 1/10, 0.5 -> 1/2); x's exact
// dyadic value where no such convergent is. For reading weights a user computed in floating point (n / (n + d + 1))
// as the fractions they stand for, where a closed form is reconstructed from exact values.
inline Rational simplest_fraction(double x, long long max_denominator = 1LL << 20) {
  using Integer = boost::multiprecision::cpp_int;
  if (!std::isfinite(x)) throw std::invalid_argument("simplest_fraction: not a finite number");
  const Rational exact(x);
  if (denominator(exact) == 1) return exact;
  const bool negative = x < 0;
  Rational r = negative ? Rational(-exact) : exact;
  Integer h0 = 0, h1 = 1, k0 = 1, k1 = 0;  // convergents h/k
  for (int step = 0; step < 64; ++step) {
    const Integer a = numerator(r) / denominator(r);  // floor: r > 0
    const Integer h2 = a * h1 + h0, k2 = a * k1 + k0;
    if (k2 > max_denominator) break;
    const Rational c(negative ? Integer(-h2) : h2, k2);
    if (c.convert_to<double>() == x) return c;
    const Rational frac = r - Rational(a);
    if (frac == 0) break;
    r = Rational(1) / frac;
    h0 = h1, h1 = h2, k0 = k1, k1 = k2;
  }
  return exact;
}

class RationalMatrix {
public:
  RationalMatrix() = default;
  RationalMatrix(int rows, int cols) : rows_(rows), cols_(cols), a_(static_cast<std::size_t>(rows) * cols, Rational(0)) {
    if (rows < 0 || cols < 0) throw std::invalid_argument("RationalMatrix: negative size");
  }
  static RationalMatrix identity(int n) {
    RationalMatrix m(n, n);
    for (int i = 0; i < n; ++i) m(i, i) = 1;
    return m;
  }
  // The exact rational value of every entry (no rounding: a double is a dyadic rational).
  static RationalMatrix from_double(const Eigen::MatrixXd& m) {
    RationalMatrix r(static_cast<int>(m.rows()), static_cast<int>(m.cols()));
    for (int i = 0; i < r.rows_; ++i)
      for (int j = 0; j < r.cols_; ++j) r(i, j) = Rational(m(i, j));
    return r;
  }
  template <class T>
  static RationalMatrix from_rows(const std::vector<std::vector<T>>& m) {
    RationalMatrix r(static_cast<int>(m.size()), m.empty() ? 0 : static_cast<int>(m[0].size()));
    for (int i = 0; i < r.rows_; ++i) {
      if (static_cast<int>(m[i].size()) != r.cols_) throw std::invalid_argument("RationalMatrix: ragged rows");
      for (int j = 0; j < r.cols_; ++j) r(i, j) = Rational(m[i][j]);
    }
    return r;
  }

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  Rational& operator()(int i, int j) { return a_[static_cast<std::size_t>(i) * cols_ + j]; }
  const Rational& operator()(int i, int j) const { return a_[static_cast<std::size_t>(i) * cols_ + j]; }

  Eigen::MatrixXd to_double() const {
    Eigen::MatrixXd m(rows_, cols_);
    for (int i = 0; i < rows_; ++i)
      for (int j = 0; j < cols_; ++j) m(i, j) = (*this)(i, j).convert_to<double>();
    return m;
  }

  RationalMatrix transpose() const {
    RationalMatrix t(cols_, rows_);
    for (int i = 0; i < rows_; ++i)
      for (int j = 0; j < cols_; ++j) t(j, i) = (*this)(i, j);
    return t;
  }
  Rational trace() const {
    Rational s(0);
    for (int i = 0; i < std::min(rows_, cols_); ++i) s += (*this)(i, i);
    return s;
  }

  friend RationalMatrix operator*(const RationalMatrix& a, const RationalMatrix& b) {
    if (a.cols_ != b.rows_) throw std::invalid_argument("RationalMatrix: product of incompatible sizes");
    RationalMatrix r(a.rows_, b.cols_);
    for (int i = 0; i < a.rows_; ++i)
      for (int k = 0; k < a.cols_; ++k) {
        const Rational& x = a(i, k);
        if (x == 0) continue;  // the exact side's matrices are mostly sparse (features, coefficients)
        for (int j = 0; j < b.cols_; ++j)
          if (b(k, j) != 0) r(i, j) += x * b(k, j);
      }
    return r;
  }
  friend RationalMatrix operator*(const Rational& s, RationalMatrix a) {
    for (auto& x : a.a_) x *= s;
    return a;
  }
  friend RationalMatrix operator+(RationalMatrix a, const RationalMatrix& b) {
    a.same_size(b);
    for (std::size_t i = 0; i < a.a_.size(); ++i) a.a_[i] += b.a_[i];
    return a;
  }
  friend RationalMatrix operator-(RationalMatrix a, const RationalMatrix& b) {
    a.same_size(b);
    for (std::size_t i = 0; i < a.a_.size(); ++i) a.a_[i] -= b.a_[i];
    return a;
  }
  RationalMatrix operator-() const { return Rational(-1) * *this; }
  friend bool operator==(const RationalMatrix& a, const RationalMatrix& b) {
    return a.rows_ == b.rows_ && a.cols_ == b.cols_ && a.a_ == b.a_;
  }

  // The exact inverse (Gauss-Jordan); throws std::domain_error for a singular matrix.
  RationalMatrix inverse() const {
    if (rows_ != cols_) throw std::invalid_argument("RationalMatrix: inverse of a non-square matrix");
    const int n = rows_;
    RationalMatrix a = *this, inv = identity(n);
    for (int c = 0; c < n; ++c) {
      int p = c;
      while (p < n && a(p, c) == 0) ++p;
      if (p == n) throw std::domain_error("RationalMatrix: singular matrix");
      if (p != c)
        for (int j = 0; j < n; ++j) {
          std::swap(a(p, j), a(c, j));
          std::swap(inv(p, j), inv(c, j));
        }
      const Rational piv = a(c, c);
      for (int j = 0; j < n; ++j) {
        a(c, j) /= piv;
        inv(c, j) /= piv;
      }
      for (int i = 0; i < n; ++i) {
        if (i == c || a(i, c) == 0) continue;
        const Rational f = a(i, c);
        for (int j = 0; j < n; ++j) {
          if (a(c, j) != 0) a(i, j) -= f * a(c, j);
          if (inv(c, j) != 0) inv(i, j) -= f * inv(c, j);
        }
      }
    }
    return inv;
  }

private:
  void same_size(const RationalMatrix& b) const {
    if (rows_ != b.rows_ || cols_ != b.cols_) throw std::invalid_argument("RationalMatrix: sizes differ");
  }
  int rows_ = 0, cols_ = 0;
  std::vector<Rational> a_;
};

}  // namespace icl
