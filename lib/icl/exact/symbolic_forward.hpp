// The feature rows of one prompt column as polynomials in x, pushed through bilinear layers exactly.
//
// A bilinear layer acts on each column separately (Z + (W0 Z) .* (W1 Z) on the feature rows), so the
// rows of any column are the same polynomials of that column's x; running the real weight matrices
// on polynomials says exactly which features a stack of bilinear layers computes (no sampling, no
// tolerance). Attention layers in the form P = e e^T only write the label row and leave these rows
// alone. Coefficients are whatever T holds (Rational for exact work; double is exact too while they
// stay small integers, as in the sja appendices).
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/layers/network.hpp"

#include <vector>

namespace icl {

// sja embedding of one column: rows 1, x_1..x_d, then dbar - d - 1 zero rows (the label row excluded).
template <class T>
std::vector<Polynomial<T>> sja_feature_rows(int d, int dbar) {
  std::vector<Polynomial<T>> rows;
  rows.push_back(Polynomial<T>::constant(d, T(1)));
  for (int k = 0; k < d; ++k) rows.push_back(Polynomial<T>::variable(d, k));
  while (static_cast<int>(rows.size()) < dbar) rows.emplace_back(d);
  return rows;
}

// rows <- rows + (W0 rows) .* (W1 rows), with the layer's actual weights (double entries, converted).
template <class T>
void apply_symbolic(const BilinearLayer& b, std::vector<Polynomial<T>>& rows) {
  const Eigen::Index dbar = static_cast<Eigen::Index>(rows.size());
  if (b.W0.rows() != dbar || b.W1.rows() != dbar) throw std::invalid_argument("apply_symbolic: width mismatch");
  const int d = rows.empty() ? 0 : rows[0].nvars();
  std::vector<Polynomial<T>> out = rows;
  for (Eigen::Index k = 0; k < dbar; ++k) {
    Polynomial<T> a(d), c(d);
    bool any_a = false, any_c = false;
    for (Eigen::Index j = 0; j < dbar; ++j) {
      if (b.W0(k, j) != 0) {
        a += rows[static_cast<std::size_t>(j)] * T(b.W0(k, j));
        any_a = true;
      }
      if (b.W1(k, j) != 0) {
        c += rows[static_cast<std::size_t>(j)] * T(b.W1(k, j));
        any_c = true;
      }
    }
    if (any_a && any_c) out[static_cast<std::size_t>(k)] += a * c;
  }
  rows = std::move(out);
}

// If p is c * x^e with c == 1, writes e and returns true.
template <class T>
bool is_unit_monomial(const Polynomial<T>& p, Exponent& e) {
  if (p.terms().size() != 1) return false;
  const auto& [ex, c] = *p.terms().begin();
  if (c != T(1)) return false;
  e = ex;
  return true;
}

}  // namespace icl
