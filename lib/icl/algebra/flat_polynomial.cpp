#include "icl/algebra/flat_polynomial.hpp"

#include <array>
#include <stdexcept>

namespace icl {

namespace {

// E[z^e], z ~ N(0, 1), as doubles (exact integers well within double range for e <= 40).
const std::array<double, 64>& moment_table() {
  static const std::array<double, 64> t = [] {
    std::array<double, 64> r{};
    for (int e = 0; e < 64; ++e) {
      if (e % 2) continue;
      double v = 1;
      for (int k = e - 1; k > 1; k -= 2) v *= k;
      r[e] = v;
    }
    return r;
  }();
  return t;
}

}  // namespace

FlatPoly::FlatPoly(const Poly& p) : nvars(p.nvars()) {
  coef.reserve(p.terms().size());
  exps.reserve(p.terms().size() * static_cast<std::size_t>(nvars));
  for (const auto& [e, c] : p.terms()) {
    coef.push_back(c);
    exps.insert(exps.end(), e.begin(), e.end());
  }
}

double FlatPoly::evaluate(const double* x) const {
  double s = 0;
  for (std::size_t t = 0; t < coef.size(); ++t) {
    double v = coef[t];
    const std::uint8_t* e = &exps[t * nvars];
    for (int i = 0; i < nvars; ++i)
      for (int k = 0; k < e[i]; ++k) v *= x[i];
    s += v;
  }
  return s;
}

double expect_product(const FlatPoly& p, const FlatPoly& q) {
  if (p.nvars != q.nvars) throw std::invalid_argument("expect_product: variable counts differ");
  const auto& mt = moment_table();
  const int nv = p.nvars;
  double sum = 0;
  for (std::size_t s = 0; s < p.size(); ++s) {
    const std::uint8_t* ea = &p.exps[s * nv];
    for (std::size_t t = 0; t < q.size(); ++t) {
      const std::uint8_t* eb = &q.exps[t * nv];
      double m = 1;
      for (int i = 0; i < nv; ++i) {
        const int e = ea[i] + eb[i];
        if (e & 1) {
          m = 0;
          break;
        }
        m *= mt[e];
      }
      if (m != 0) sum += p.coef[s] * q.coef[t] * m;
    }
  }
  return sum;
}

Poly expect_over(const Poly& p, int first, int count) {
  const auto& mt = moment_table();
  Poly r(p.nvars());
  for (const auto& [e, c] : p.terms()) {
    double m = 1;
    for (int i = first; i < first + count; ++i) {
      if (e[i] & 1) {
        m = 0;
        break;
      }
      m *= mt[e[i]];
    }
    if (m == 0) continue;
    Exponent e2(e);
    for (int i = first; i < first + count; ++i) e2[i] = 0;
    r += Poly::monomial(e2, c * m);
  }
  return r;
}

Poly lift(const Poly& p, int total, int offset) {
  if (offset + p.nvars() > total) throw std::invalid_argument("lift: too few variables");
  Poly r(total);
  for (const auto& [e, c] : p.terms()) {
    Exponent e2(total, 0);
    for (int i = 0; i < p.nvars(); ++i) e2[offset + i] = e[i];
    r += Poly::monomial(e2, c);
  }
  return r;
}

}  // namespace icl
