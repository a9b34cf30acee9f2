#include "icl/verdict/proposed_correction.hpp"

#include "icl/model/tasks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace icl {

namespace {

using Integer = boost::multiprecision::cpp_int;

constexpr std::size_t kFitValues = 6;  // per variable: degree <= 4 in each, with one redundant value

std::string rational_text(const Rational& r) {
  std::string s = numerator(r).str();
  if (denominator(r) != 1) s += "/" + denominator(r).str();
  return s;
}

// A fitting value as JSON: a whole number as an integer, a dyadic one (a double exactly) as a number, else a fraction.
nlohmann::ordered_json rational_json(const Rational& r) {
  if (denominator(r) == 1 && abs(numerator(r)) < Integer(1) << 53) return numerator(r).convert_to<long long>();
  const double v = r.convert_to<double>();
  if (std::isfinite(v) && Rational(v) == r) return v;
  return rational_text(r);
}

// Coefficients (in t^0, t^1, ...) of the polynomial of degree <= m-1 through (t_j, y_j): Newton's divided
// differences, then expanded.
std::vector<Rational> interpolate(const std::vector<Rational>& t, std::vector<Rational> y) {
  const std::size_t m = t.size();
  for (std::size_t k = 1; k < m; ++k)
    for (std::size_t j = m - 1; j >= k; --j) {
      y[j] = (y[j] - y[j - 1]) / (t[j] - t[j - k]);
      if (j == k) break;
    }
  std::vector<Rational> p(m, Rational(0));  // Horner on the Newton form: p <- p (t - t_j) + c_j
  p[0] = y[m - 1];
  std::size_t deg = 0;
  for (std::size_t jj = m - 1; jj-- > 0;) {
    for (std::size_t i = deg + 1; i-- > 0;) {
      p[i + 1] += p[i];
      p[i] *= -t[jj];
    }
    ++deg;
    p[0] += y[jj];
  }
  return p;
}

// The Greek letters a parameter of one's own is likely to be named after, for LaTeX.
std::string latex_name(const std::string& name) {
  static const std::set<std::string> greek = {"alpha", "beta",  "gamma", "delta", "epsilon", "zeta", "eta",
                                              "theta", "iota",  "kappa", "lambda", "mu",     "nu",   "xi",
                                              "pi",    "rho",   "sigma", "tau",   "phi",     "chi",  "psi", "omega"};
  if (greek.count(name)) return "\\" + name;
  if (name.size() == 1 && std::isalpha(static_cast<unsigned char>(name[0]))) return name;
  std::string s;
  for (char ch : name) s += ch == '_' ? std::string("\\_") : std::string(1, ch);
  return "\\mathit{" + s + "}";
}

struct Style {
  bool latex;
  std::string power(const std::string& name, int e) const {
    const std::string v = latex ? latex_name(name) : name;
    if (e == 1) return v;
    return latex ? fmt::format("{}^{{{}}}", v, e) : fmt::format("{}^{}", v, e);
  }
  std::string join(const std::vector<std::string>& f) const {
    std::string s;
    for (const auto& x : f) s += (s.empty() ? "" : (latex ? " " : "*")) + x;
    return s;
  }
};

// A monomial's factors in variable order, for the variables selected.
std::vector<std::string> monomial_factors(const std::vector<std::string>& names, const std::vector<int>& e,
                                          const Style& st) {
  std::vector<std::string> f;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (e[i] > 0) f.push_back(st.power(names[i], e[i]));
  return f;
}

// The closed form as text: grouped by the powers of the reciprocal variables (none first), each group's polynomial
// with its rational content and its common monomial taken out.
std::string render(const ClosedForm& cf, const Style& st) {
  const std::size_t k = cf.names.size();
  if (cf.terms.empty()) return "0";
  // Which variables appear with negative powers: they go to the denominator.
  std::map<std::vector<int>, std::vector<std::pair<std::vector<int>, Rational>>> groups;  // -neg powers -> terms
  for (const auto& [pw, c] : cf.terms) {
    std::vector<int> den(k, 0), num(k, 0);
    for (std::size_t i = 0; i < k; ++i) (pw[i] < 0 ? den[i] : num[i]) = std::abs(pw[i]);
    groups[den].emplace_back(num, c);
  }
  std::vector<std::vector<int>> order;
  for (const auto& g : groups) order.push_back(g.first);
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    int sa = 0, sb = 0;
    for (int x : a) sa += x;
    for (int x : b) sb += x;
    return sa < sb;
  });
  std::string out;
  for (const auto& den : order) {
    auto terms = groups[den];
    // Terms by total degree, then by the powers in variable order, highest first.
    std::sort(terms.begin(), terms.end(), [](const auto& a, const auto& b) {
      int sa = 0, sb = 0;
      for (int x : a.first) sa += x;
      for (int x : b.first) sb += x;
      if (sa != sb) return sa > sb;
      return a.first > b.first;
    });
    Integer g = 0, l = 1;
    for (const auto& [e, c] : terms) {
      g = gcd(g, abs(numerator(c)));
      l = lcm(l, denominator(c));
    }
    Rational content(g, l);
    if (terms.front().second < 0) content = -content;
    std::vector<int> common(k, 1 << 20);
    for (const auto& [e, c] : terms)
      for (std::size_t i = 0; i < k; ++i) common[i] = std::min(common[i], e[i]);
    // The inner polynomial: integer coefficients, the common monomial divided out.
    std::string inner;
    for (std::size_t t = 0; t < terms.size(); ++t) {
      const Rational q = terms[t].second / content;  // a whole number
      std::vector<int> e = terms[t].first;
      for (std::size_t i = 0; i < k; ++i) e[i] -= common[i];
      const auto f = monomial_factors(cf.names, e, st);
      const Integer a = abs(numerator(q));
      std::string term;
      if (f.empty())
        term = a.str();
      else
        term = (a == 1 ? "" : a.str() + (st.latex ? " " : "*")) + st.join(f);
      if (t == 0)
        inner = (q < 0 ? "-" : "") + term;
      else
        inner += (q < 0 ? " - " : " + ") + term;
    }
    std::vector<std::string> num;
    const Integer cn = abs(numerator(content)), cd = denominator(content);
    if (cn != 1) num.push_back(cn.str());
    for (const auto& f : monomial_factors(cf.names, common, st)) num.push_back(f);
    if (terms.size() > 1) num.push_back("(" + inner + ")");  // one term: its content and monomial say it all
    if (num.empty()) num.push_back("1");
    std::vector<std::string> dens;
    if (cd != 1) dens.push_back(cd.str());
    for (const auto& f : monomial_factors(cf.names, den, st)) dens.push_back(f);
    std::string piece;
    if (st.latex) {
      const std::string n = st.join(num);
      piece = dens.empty() ? n : "\\frac{" + n + "}{" + st.join(dens) + "}";
    } else {
      std::string n;
      for (const auto& x : num) n += (n.empty() ? "" : "*") + x;
      std::string d;
      for (const auto& x : dens) d += (d.empty() ? "" : "*") + x;
      piece = dens.empty() ? n : n + "/" + (dens.size() == 1 ? d : "(" + d + ")");
    }
    const bool negative = content < 0;
    if (out.empty())
      out = (negative ? "-" : "") + piece;
    else
      out += (negative ? " - " : " + ") + piece;
  }
  return out;
}

std::string point_label(const std::vector<FitVariable>& vars, const std::vector<Rational>& p) {
  std::string s;
  for (std::size_t i = 0; i < vars.size(); ++i) s += (i ? ", " : "") + vars[i].name + "=" + rational_text(p[i]);
  return s;
}

nlohmann::ordered_json point_json(const std::vector<FitVariable>& vars, const std::vector<Rational>& p) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < vars.size(); ++i) j[vars[i].name] = rational_json(p[i]);
  return j;
}

// Exponent vectors of the k-variable monomials of total degree <= deg, highest total degree first (model/tasks.hpp
// monomials_up_to, reversed): the first is a "leading" term, whose sign fixes a denominator's.
std::vector<std::vector<int>> monomials(std::size_t k, int deg) {
  const std::vector<Exponent> up = monomials_up_to(static_cast<int>(k), deg);
  std::vector<std::vector<int>> out;
  for (auto e = up.rbegin(); e != up.rend(); ++e) out.emplace_back(e->begin(), e->end());
  return out;
}

Rational monomial_value(const std::vector<int>& e, const std::vector<Rational>& x) {
  Rational v(1);
  for (std::size_t i = 0; i < e.size(); ++i)
    for (int j = 0; j < e[i]; ++j) v *= x[i];
  return v;
}

// The solution of A z = 0 (rows of `cols` entries) when it is unique up to a constant: exact Gauss-Jordan
// elimination; nothing when the only solution is 0 or there are several independent ones.
std::optional<std::vector<Rational>> null_vector(std::vector<std::vector<Rational>> a, std::size_t cols) {
  std::vector<std::size_t> pivot_col;
  std::size_t rank = 0;
  for (std::size_t c = 0; c < cols && rank < a.size(); ++c) {
    std::size_t r = rank;
    while (r < a.size() && a[r][c] == 0) ++r;
    if (r == a.size()) continue;
    std::swap(a[r], a[rank]);
    const Rational p = a[rank][c];
    for (auto& x : a[rank]) x /= p;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (i == rank || a[i][c] == 0) continue;
      const Rational f = a[i][c];
      for (std::size_t j = c; j < cols; ++j) a[i][j] -= f * a[rank][j];
    }
    pivot_col.push_back(c);
    ++rank;
  }
  if (rank + 1 != cols) return std::nullopt;
  std::size_t free_col = cols;
  for (std::size_t c = 0, q = 0; c < cols; ++c) {
    if (q < pivot_col.size() && pivot_col[q] == c) {
      ++q;
      continue;
    }
    free_col = c;
    break;
  }
  std::vector<Rational> z(cols, Rational(0));
  z[free_col] = 1;
  for (std::size_t r = 0; r < rank; ++r) z[pivot_col[r]] = -a[r][free_col];
  return z;
}

std::string family_text(const std::vector<FitVariable>& vars) {
  std::string poly, fit;
  for (const auto& v : vars) {
    const std::string var = v.role == FitRole::reciprocal ? "1/" + v.name : v.name;
    poly += fmt::format("{}{} (degree <= {})", poly.empty() ? "" : ", ", var,
                        v.values.size() >= 2 ? v.values.size() - 2 : 0);
    std::string vals;
    for (const auto& x : v.values) vals += (vals.empty() ? "" : ", ") + rational_text(x);
    fit += fmt::format("{}{} in {{{}}}", fit.empty() ? "" : "; ", v.name, vals);
  }
  return fmt::format("polynomials with rational coefficients in {}, fitted exactly on the tensor grid {}", poly, fit);
}

}  // namespace

namespace {

Rational sum_of_terms(const ClosedForm::Terms& terms, const std::vector<Rational>& point) {
  Rational s(0);
  for (const auto& [pw, c] : terms) {
    Rational t = c;
    for (std::size_t i = 0; i < pw.size(); ++i)
      for (int k = 0; k < std::abs(pw[i]); ++k) t = pw[i] > 0 ? Rational(t * point[i]) : Rational(t / point[i]);
    s += t;
  }
  return s;
}

// "(x)" -> "x" where the parentheses enclose the whole text.
std::string without_outer_parentheses(const std::string& t) {
  if (t.size() < 2 || t.front() != '(' || t.back() != ')') return t;
  int depth = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
    if (depth == 0 && i + 1 < t.size()) return t;
  }
  return t.substr(1, t.size() - 2);
}

std::string render_closed_form(const ClosedForm& cf, const Style& st) {
  if (!cf.rational()) return render(cf, st);
  ClosedForm num{cf.names, cf.terms, {}}, den{cf.names, cf.denominator, {}};
  std::string n = render(num, st), d = render(den, st);
  if (st.latex) return "\\frac{" + without_outer_parentheses(n) + "}{" + without_outer_parentheses(d) + "}";
  // The numerator has no reciprocal powers: one product ("d*(d + 1)", "(d + 1)"), never a bare sum.
  const bool d_single = d.find_first_of("*/ ") == std::string::npos || without_outer_parentheses(d) != d;
  return n + "/" + (d_single ? d : "(" + d + ")");
}

}  // namespace

bool ClosedForm::defined_at(const std::vector<Rational>& point) const {
  if (point.size() != names.size()) return false;
  for (const auto& [pw, c] : terms)
    for (std::size_t i = 0; i < pw.size(); ++i)
      if (pw[i] < 0 && point[i] == 0) return false;
  return !rational() || sum_of_terms(denominator, point) != 0;
}

Rational ClosedForm::evaluate(const std::vector<Rational>& point) const {
  if (point.size() != names.size()) throw std::invalid_argument("ClosedForm::evaluate: one value per variable");
  if (!defined_at(point)) throw std::domain_error("ClosedForm::evaluate: a denominator vanishes at the point");
  const Rational n = sum_of_terms(terms, point);
  return rational() ? Rational(n / sum_of_terms(denominator, point)) : n;
}

std::string ClosedForm::text() const { return render_closed_form(*this, Style{false}); }
std::string ClosedForm::latex() const { return render_closed_form(*this, Style{true}); }

nlohmann::ordered_json ProposedCorrection::to_json() const {
  nlohmann::ordered_json j;
  j["formula"] = verified ? nlohmann::ordered_json(formula.text()) : nlohmann::ordered_json(nullptr);
  j["latex"] = verified ? nlohmann::ordered_json(formula.latex()) : nlohmann::ordered_json(nullptr);
  j["fitted_on"] = fitted_on;
  j["held_out"] = held_out;
  j["verified"] = verified;
  if (!why.empty()) j["why"] = why;
  if (!scope.empty()) j["scope"] = scope;
  j["family"] = family;
  j["fitting_grid"] = fitting_grid;
  j["held_out_cases"] = held_out_cases;
  if (claim_cases_checked > 0) j["claim_cases"] = {{"checked", claim_cases_checked}, {"equal", claim_cases_equal}};
  j["seconds"] = std::round(seconds * 100) / 100;
  return j;
}

ProposedCorrection no_correction_search(std::string why_not) {
  ProposedCorrection p;
  p.why = std::move(why_not);
  p.family = "none searched";
  return p;
}

ProposedCorrection propose_correction(const CorrectionSearch& s) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  ProposedCorrection out;
  out.searched = true;
  out.family = family_text(s.variables);
  out.scope = s.scope;
  const std::size_t k = s.variables.size();
  if (k == 0) throw std::invalid_argument("propose_correction: no variables");
  if (!s.exact) throw std::invalid_argument("propose_correction: no exact oracle");
  std::vector<std::size_t> m(k);
  std::size_t total = 1;
  for (std::size_t i = 0; i < k; ++i) {
    const auto& v = s.variables[i];
    m[i] = v.values.size();
    if (m[i] < 2) throw std::invalid_argument("propose_correction: " + v.name + " needs at least 2 fitting values");
    if (std::set<Rational>(v.values.begin(), v.values.end()).size() != m[i])
      throw std::invalid_argument("propose_correction: " + v.name + ": fitting values repeat");
    for (const auto& x : v.values)
      if (v.role == FitRole::reciprocal && x == 0)
        throw std::invalid_argument("propose_correction: " + v.name + ": 0 as a value of a reciprocal variable");
    std::vector<nlohmann::ordered_json> vals;
    for (const auto& x : v.values) vals.push_back(rational_json(x));
    out.fitting_grid[v.name] = vals;
    total *= m[i];
  }
  for (const auto& h : s.held_out) {
    if (h.size() != k) throw std::invalid_argument("propose_correction: a held-out point needs one value per variable");
    bool on_grid = true;
    for (std::size_t i = 0; i < k; ++i)
      on_grid &= std::find(s.variables[i].values.begin(), s.variables[i].values.end(), h[i]) != s.variables[i].values.end();
    if (on_grid) throw std::invalid_argument("propose_correction: a held-out point lies on the fitting grid");
  }
  auto finish = [&](std::string why) {
    out.why = std::move(why);
    if (!s.reading.empty()) out.family += "; " + s.reading;
    out.seconds = elapsed();
    return out;
  };
  auto out_of_time = [&](std::size_t done, std::size_t of, const char* what) {
    return fmt::format("the search's time budget ({:g} s) ran out after {} of the {} {}", s.time_budget_s, done, of, what);
  };

  // The exact values on the tensor grid (row-major, the last variable fastest).
  std::vector<std::vector<Rational>> points(total, std::vector<Rational>(k));
  std::vector<Rational> values(total);
  for (std::size_t idx = 0; idx < total; ++idx) {
    if (elapsed() >= s.time_budget_s) return finish(out_of_time(idx, total, "exact values of the fitting grid"));
    std::size_t r = idx;
    for (std::size_t i = k; i-- > 0;) {
      points[idx][i] = s.variables[i].values[r % m[i]];
      r /= m[i];
    }
    if (s.between) s.between();
    std::string why;
    const auto v = s.exact(points[idx], why);
    if (!v) return finish(fmt::format("no exact value at {}: {}", point_label(s.variables, points[idx]), why));
    values[idx] = *v;
    ++out.fitted_on;
  }

  // Held out: exact equality at every point the fit did not see (the exact values computed once, when first asked).
  std::vector<std::optional<Rational>> held_exact(s.held_out.size());
  // Whether the candidate equals the exact value at every held-out case; else why not, and whether the search must
  // stop (out of time, no exact value, too few held-out cases: no other formula would fare better).
  bool stop = false;
  auto check_held_out = [&](const ClosedForm& f, std::string& why) -> bool {
    out.held_out_cases = nlohmann::ordered_json::array();
    out.held_out = 0;
    bool all_equal = true;
    std::string first_mismatch;
    for (std::size_t h = 0; h < s.held_out.size(); ++h) {
      if (!held_exact[h]) {
        if (elapsed() >= s.time_budget_s) {
          why = out_of_time(h, s.held_out.size(), "held-out cases");
          out.found = false;
          stop = true;
          return false;
        }
        if (s.between) s.between();
        std::string no;
        held_exact[h] = s.exact(s.held_out[h], no);
        if (!held_exact[h]) {
          why = fmt::format("no exact value at the held-out case {}: {}", point_label(s.variables, s.held_out[h]), no);
          out.found = false;
          stop = true;
          return false;
        }
      }
      const Rational& v = *held_exact[h];
      const bool defined = f.defined_at(s.held_out[h]);
      const Rational p = defined ? f.evaluate(s.held_out[h]) : Rational(0);
      const bool equal = defined && p == v;
      all_equal &= equal;
      if (!equal && first_mismatch.empty())
        first_mismatch = defined ? fmt::format("{}: exact {} (~{:.10g}), fitted formula {} (~{:.10g})",
                                               point_label(s.variables, s.held_out[h]), rational_text(v),
                                               v.convert_to<double>(), rational_text(p), p.convert_to<double>())
                                 : fmt::format("{}: the fitted formula's denominator vanishes there",
                                               point_label(s.variables, s.held_out[h]));
      nlohmann::ordered_json c;
      c["params"] = point_json(s.variables, s.held_out[h]);
      c["exact"] = rational_text(v);
      c["proposed"] = defined ? nlohmann::ordered_json(rational_text(p)) : nlohmann::ordered_json(nullptr);
      c["equal"] = equal;
      out.held_out_cases.push_back(c);
      ++out.held_out;
    }
    if (!all_equal) {
      why = "the formula through the fitting values, " + f.text() + ", misses held-out case " + first_mismatch;
      return false;
    }
    if (out.held_out < 3) {
      why = fmt::format("only {} held-out case{} (at least 3 are needed to report a formula)", out.held_out,
                        out.held_out == 1 ? "" : "s");
      stop = true;
      return false;
    }
    return true;
  };
  auto accept = [&](ClosedForm f) {
    out.found = true;
    out.formula = std::move(f);
  };

  // 1. Polynomials (in v or 1/v by role): the tensor interpolant.
  std::string poly_why;
  bool poly_found = false;
  {
    std::vector<Rational> data = values;
    std::vector<std::size_t> stride(k, 1);
    for (std::size_t i = k - 1; i-- > 0;) stride[i] = stride[i + 1] * m[i + 1];
    for (std::size_t i = 0; i < k; ++i) {
      std::vector<Rational> t;
      for (const auto& x : s.variables[i].values) t.push_back(s.variables[i].role == FitRole::reciprocal ? Rational(1) / x : x);
      for (std::size_t base = 0; base < total; ++base) {
        if ((base / stride[i]) % m[i] != 0) continue;  // the first point of each line
        std::vector<Rational> y(m[i]);
        for (std::size_t j = 0; j < m[i]; ++j) y[j] = data[base + j * stride[i]];
        const auto c = interpolate(t, y);
        for (std::size_t j = 0; j < m[i]; ++j) data[base + j * stride[i]] = c[j];
      }
    }
    // Degrees: the highest power of each variable with a nonzero coefficient; a fit needs one redundant value in each.
    std::vector<int> degree(k, -1);
    for (std::size_t idx = 0; idx < total; ++idx) {
      if (data[idx] == 0) continue;
      std::size_t r = idx;
      for (std::size_t i = k; i-- > 0;) {
        degree[i] = std::max(degree[i], static_cast<int>(r % m[i]));
        r /= m[i];
      }
    }
    for (std::size_t i = 0; i < k && poly_why.empty(); ++i)
      if (degree[i] > static_cast<int>(m[i]) - 2) {
        const auto& v = s.variables[i];
        poly_why = fmt::format(
            "along {} the {} exact values follow no polynomial in {} of degree <= {} (each line of the grid needs its "
            "full degree {}), so the quantity is not of this form (or of higher degree than searched)",
            v.name, m[i], v.role == FitRole::reciprocal ? "1/" + v.name : v.name, m[i] - 2, m[i] - 1);
      }
    if (poly_why.empty()) {
      ClosedForm f;
      for (const auto& v : s.variables) f.names.push_back(v.name);
      for (std::size_t idx = 0; idx < total; ++idx) {
        if (data[idx] == 0) continue;
        std::vector<int> pw(k);
        std::size_t r = idx;
        for (std::size_t i = k; i-- > 0;) {
          const int e = static_cast<int>(r % m[i]);
          pw[i] = s.variables[i].role == FitRole::reciprocal ? -e : e;
          r /= m[i];
        }
        f.terms.emplace_back(pw, data[idx]);
      }
      accept(f);
      poly_found = true;
      if (check_held_out(out.formula, poly_why)) {
        out.verified = true;
        return finish("");
      }
      if (stop) return finish(poly_why);
    }
  }

  // 2. Rational functions N/D in the variables themselves, smallest a + b first.
  const std::size_t m_min = *std::min_element(m.begin(), m.end());
  const int max_sum = static_cast<int>(m_min) - 2;
  out.family += fmt::format(
      "; then ratios N/D of polynomials in {} with rational coefficients, of total degrees a and b, a + b <= {}, the "
      "smallest a + b through the same values",
      [&] {
        std::string v;
        for (const auto& x : s.variables) v += (v.empty() ? "" : ", ") + x.name;
        return v;
      }(),
      max_sum);
  std::string rat_why = fmt::format("no ratio of polynomials of total degrees a + b <= {} goes through the {} values",
                                    max_sum, total);
  bool rational_found = false;
  for (int sum = 1; sum <= max_sum && !rational_found; ++sum)
    for (int b = 1; b <= sum && !rational_found; ++b) {  // a polynomial in n itself is N/1 with b = 1: D = 1 then
      if (elapsed() >= s.time_budget_s) {
        rat_why = fmt::format("the search's time budget ({:g} s) ran out at total degrees a + b = {}", s.time_budget_s, sum);
        sum = max_sum + 1;
        break;
      }
      const int a = sum - b;
      const auto num = monomials(k, a), den = monomials(k, b);
      const std::size_t cols = num.size() + den.size();
      if (cols + 2 > total) continue;  // at least three more equations than free coefficients
      std::vector<std::vector<Rational>> rows(total, std::vector<Rational>(cols));
      for (std::size_t j = 0; j < total; ++j) {
        for (std::size_t c = 0; c < num.size(); ++c) rows[j][c] = monomial_value(num[c], points[j]);
        for (std::size_t c = 0; c < den.size(); ++c) rows[j][num.size() + c] = -values[j] * monomial_value(den[c], points[j]);
      }
      const auto null = null_vector(std::move(rows), cols);
      if (!null) continue;
      ClosedForm f;
      for (const auto& v : s.variables) f.names.push_back(v.name);
      Integer g = 0, l = 1;
      for (const auto& x : *null)
        if (x != 0) {
          g = gcd(g, abs(numerator(x)));
          l = lcm(l, denominator(x));
        }
      Rational scale(l, g);
      for (std::size_t c = 0; c < den.size(); ++c)  // the denominator's first (highest) term positive
        if ((*null)[num.size() + c] != 0) {
          if ((*null)[num.size() + c] < 0) scale = -scale;
          break;
        }
      for (std::size_t c = 0; c < num.size(); ++c)
        if ((*null)[c] != 0) f.terms.emplace_back(num[c], (*null)[c] * scale);
      for (std::size_t c = 0; c < den.size(); ++c)
        if ((*null)[num.size() + c] != 0) f.denominator.emplace_back(den[c], (*null)[num.size() + c] * scale);
      if (f.denominator.empty()) continue;  // not a solution with D != 0
      if (f.denominator.size() == 1 && std::all_of(f.denominator[0].first.begin(), f.denominator[0].first.end(),
                                                   [](int e) { return e == 0; })) {
        const Rational c0 = f.denominator[0].second;  // a constant denominator: a polynomial
        for (auto& t : f.terms) t.second /= c0;
        f.denominator.clear();
      }
      rational_found = true;
      accept(f);
      std::string why;
      if (check_held_out(out.formula, why)) {
        out.verified = true;
        return finish("");
      }
      if (stop) return finish(why);
      rat_why = why;
    }
  out.found = poly_found || rational_found;
  return finish("no formula in the searched family fits: " + poly_why + "; nor a rational function: " + rat_why);
}

std::optional<CorrectionSearch> choose_correction_grid(const std::vector<GridAxis>& axes, std::string& why) {
  CorrectionSearch s;
  std::vector<std::vector<double>> held(axes.size());
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const GridAxis& ax = axes[a];
    if (ax.values.empty()) {
      why = ax.name + ": no values";
      return std::nullopt;
    }
    const double gmin = *std::min_element(ax.values.begin(), ax.values.end());
    const double gmax = *std::max_element(ax.values.begin(), ax.values.end());
    std::vector<double> fit, h;
    auto in_range = [&](double x) { return x >= ax.min && x <= ax.max; };
    if (ax.integer && ax.role == FitRole::reciprocal) {
      double lo = std::max({gmin, std::ceil(ax.min), 1.0});
      for (std::size_t j = 1; j <= kFitValues; ++j) fit.push_back(lo * j);
      if (!in_range(fit.back())) {  // multiples do not fit the range: consecutive values
        fit.clear();
        lo = std::max({std::ceil(ax.min), 1.0, std::min(lo, ax.max - (kFitValues - 1))});
        for (std::size_t j = 0; j < kFitValues; ++j) fit.push_back(lo + j);
      }
      const double hi = std::max(fit.back(), gmax);
      h = {10 * hi + 1, 7 * lo + 3, 100 * hi + 7, 3 * hi + 1};
    } else if (ax.integer) {
      double lo = ax.from_one ? std::max(std::ceil(ax.min), 1.0) : std::max(gmin, std::ceil(ax.min));
      if (lo + (kFitValues - 1) > ax.max) lo = std::max(std::ceil(ax.min), ax.max - (kFitValues - 1));
      for (std::size_t j = 0; j < kFitValues; ++j) fit.push_back(lo + j);
      const double hi = fit.back();
      h = {hi + 1, hi + 2, lo + 1, hi + 1};
    } else {
      std::vector<double> v = ax.values;
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      double gap = 0;
      for (std::size_t i = 1; i < v.size(); ++i) gap = gap == 0 ? v[i] - v[i - 1] : std::min(gap, v[i] - v[i - 1]);
      if (gap == 0) gap = v[0] != 0 ? std::abs(v[0]) : 1.0;
      double step = std::exp2(std::floor(std::log2(gap)));
      const double lo = std::max(v[0], ax.min);
      while (step > 1e-6 && !in_range(lo + 8 * step)) step /= 2;
      for (std::size_t j = 0; j < kFitValues; ++j) fit.push_back(lo + j * step);
      h = {lo + 6.5 * step, lo + 2.5 * step, lo + 8 * step, lo};
    }
    for (double x : fit)
      if (!in_range(x)) {
        why = fmt::format("{}: its range [{:g}, {:g}] leaves no room for {} fitting values", ax.name, ax.min, ax.max,
                          kFitValues);
        return std::nullopt;
      }
    for (auto& x : h)
      if (!in_range(x)) x = fit[1];  // a value the range does not allow: one of the grid's (the point stays off it
                                     // through its other values, or is dropped below)
    FitVariable fv{ax.name, ax.role, {}};
    for (double x : fit) fv.values.push_back(Rational(x));
    s.variables.push_back(std::move(fv));
    held[a] = h;
  }
  std::set<std::vector<Rational>> seen;
  for (std::size_t p = 0; p < 4; ++p) {
    std::vector<Rational> pt;
    bool on_grid = true;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      pt.push_back(Rational(held[a][p]));
      const auto& vals = s.variables[a].values;
      on_grid &= std::find(vals.begin(), vals.end(), pt.back()) != vals.end();
    }
    if (!on_grid && seen.insert(pt).second) s.held_out.push_back(pt);
  }
  if (s.held_out.size() < 3) {
    why = fmt::format("the parameters' ranges leave room for only {} held-out cases off the fitting grid (3 needed)",
                      s.held_out.size());
    return std::nullopt;
  }
  return s;
}

void check_on_claim_cases(ProposedCorrection& c, const std::vector<std::vector<Rational>>& points,
                          const ExactOracle& exact) {
  if (!c.verified) return;
  for (const auto& p : points) {
    std::string why;
    const auto v = exact(p, why);
    if (!v) continue;  // not computable there: nothing to compare
    ++c.claim_cases_checked;
    if (c.formula.evaluate(p) == *v) {
      ++c.claim_cases_equal;
    } else if (c.verified) {
      c.verified = false;
      std::string at;
      for (std::size_t i = 0; i < p.size(); ++i) at += (i ? ", " : "") + c.formula.names[i] + "=" + rational_text(p[i]);
      c.why = "the formula through the fitting values misses the exact value at the claim's case " + at;
    }
  }
}

void add_proposed_quantity(nlohmann::ordered_json& cases, const ProposedCorrection& c) {
  if (!c.verified || !cases.is_array()) return;
  for (auto& k : cases) {
    if (!k.is_object() || !k.contains("params") || !k.contains("quantities")) continue;
    std::vector<Rational> pt;
    for (const auto& name : c.formula.names) {
      if (!k["params"].contains(name) || !k["params"][name].is_number()) break;
      pt.push_back(Rational(k["params"][name].get<double>()));
    }
    if (pt.size() != c.formula.names.size()) continue;
    k["quantities"]["proposed"] = {{"value", c.formula.evaluate(pt).convert_to<double>()}};
  }
}

bool same_polynomial(const ClosedForm& a, const ClosedForm& b) {
  using Map = std::map<std::vector<int>, Rational>;
  return a.names == b.names && Map(a.terms.begin(), a.terms.end()) == Map(b.terms.begin(), b.terms.end()) &&
         Map(a.denominator.begin(), a.denominator.end()) == Map(b.denominator.begin(), b.denominator.end());
}

std::string fitting_grid_text(const ProposedCorrection& c) {
  std::string grid;
  for (const auto& [name, vals] : c.fitting_grid.items()) {
    std::string v;
    for (const auto& x : vals) v += (v.empty() ? "" : ", ") + x.dump();
    grid += (grid.empty() ? "" : "; ") + name + " in {" + v + "}";
  }
  return grid;
}

double held_out_max(const ProposedCorrection& c, const std::string& variable) {
  double m = 0;
  bool any = false;
  for (const auto& h : c.held_out_cases) {
    if (!h.contains("params") || !h["params"].contains(variable) || !h["params"][variable].is_number()) continue;
    const double v = h["params"][variable].get<double>();
    m = any ? std::max(m, v) : v;
    any = true;
  }
  return m;
}

}  // namespace icl
