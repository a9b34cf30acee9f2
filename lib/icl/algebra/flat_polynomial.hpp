// Polynomials in double precision (Poly), flattened for fast evaluation and fast Gaussian moment sums:
// the double-precision twin of algebra/gaussian_moments.hpp, for large feature sets where exact
// rational arithmetic would be too slow.
#pragma once
#include "icl/algebra/gaussian_moments.hpp"

#include <cstdint>
#include <vector>

namespace icl {

using Poly = Polynomial<double>;

// A polynomial flattened for fast evaluation and fast moment sums.
struct FlatPoly {
  int nvars = 0;
  std::vector<double> coef;
  std::vector<std::uint8_t> exps;  // nterms x nvars
  FlatPoly() = default;
  explicit FlatPoly(const Poly& p);
  std::size_t size() const { return coef.size(); }
  double evaluate(const double* x) const;
};

// E[p(v) q(v)], v ~ N(0, I), without forming the product.
double expect_product(const FlatPoly& p, const FlatPoly& q);
// E over the variables [first, first + count) only; the result keeps the same variable count.
Poly expect_over(const Poly& p, int first, int count);
// p(x_1..x_k) as a polynomial in `total` variables, x_i placed at offset + i.
Poly lift(const Poly& p, int total, int offset = 0);

}  // namespace icl
