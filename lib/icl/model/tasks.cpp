#include "icl/model/tasks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>

namespace icl {

std::vector<Exponent> monomials_up_to(int d, int max_degree, int min_degree) {
  std::vector<Exponent> out;
  Exponent e(d, 0);
  // Generate monomials of exactly degree k with exponents non-increasing in "first variable first"
  // order: recursive over variables.
  std::function<void(int, int)> rec = [&](int var, int left) {
    if (var == d - 1) {
      e[var] = static_cast<std::uint8_t>(left);
      out.push_back(e);
      e[var] = 0;
      return;
    }
    for (int k = left; k >= 0; --k) {
      e[var] = static_cast<std::uint8_t>(k);
      rec(var + 1, left - k);
    }
    e[var] = 0;
  };
  for (int k = min_degree; k <= max_degree; ++k) rec(0, k);
  return out;
}

std::string monomial_name(const Exponent& e) {
  std::string s;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (!e[i]) continue;
    if (!s.empty()) s += "*";
    s += fmt::format("x{}", i + 1);
    if (e[i] > 1) s += fmt::format("^{}", e[i]);
  }
  return s.empty() ? "1" : s;
}

PolynomialTask PolynomialTask::linear(int d) {
  return {d, monomials_up_to(d, 1, 1), "linear"};
}
PolynomialTask PolynomialTask::quadratic(int d) {
  return {d, monomials_up_to(d, 2, 0), "quadratic"};
}
PolynomialTask PolynomialTask::polynomial(int d, int p) {
  return {d, monomials_up_to(d, p, 0), fmt::format("degree-{}", p)};
}

namespace {

// The exponent lists of "monomials:E;E;...", each E comma-separated whole numbers in [0, 12]; nothing (and why) if
// malformed.
std::optional<std::vector<std::vector<int>>> parse_monomials(const std::string& spec, std::string& why) {
  std::vector<std::vector<int>> out;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t end = std::min(spec.find(';', start), spec.size());
    const std::string item = spec.substr(start, end - start);
    std::vector<int> e;
    std::size_t p = 0;
    while (p <= item.size()) {
      const std::size_t q = std::min(item.find(',', p), item.size());
      const std::string t = item.substr(p, q - p);
      if (t.empty() || t.size() > 2 || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
          std::stoi(t) > 12) {
        why = fmt::format("monomial '{}': exponents are whole numbers 0..12, comma-separated", item);
        return std::nullopt;
      }
      e.push_back(std::stoi(t));
      p = q + 1;
    }
    out.push_back(e);
    start = end + 1;
  }
  if (out.empty() || out.size() > 64) {
    why = "a task of 1 to 64 monomials";
    return std::nullopt;
  }
  return out;
}

}  // namespace

int named_task_degree(const std::string& name, std::string& why) {
  if (name == "linear") return 1;
  if (name == "quadratic") return 2;
  if (name.size() == 7 && name.rfind("degree", 0) == 0 && name[6] >= '1' && name[6] <= '6') return name[6] - '0';
  if (name.rfind("monomials:", 0) == 0) {
    const auto m = parse_monomials(name.substr(10), why);
    if (!m) return -1;
    int deg = 0;
    for (const auto& e : *m) {
      int s = 0;
      for (int x : e) s += x;
      deg = std::max(deg, s);
    }
    return deg;
  }
  why = fmt::format("unknown task '{}' (linear, quadratic, degreeP for P = 1..6, or monomials:E;E;... with each E a "
                    "monomial's exponents)",
                    name.substr(0, 60));
  return -1;
}

PolynomialTask named_task(const std::string& name, int d) {
  std::string why;
  if (named_task_degree(name, why) < 0) throw std::invalid_argument(why);
  if (name == "linear") return PolynomialTask::linear(d);
  if (name == "quadratic") return PolynomialTask::quadratic(d);
  if (name.rfind("degree", 0) == 0) return PolynomialTask::polynomial(d, name[6] - '0');
  const auto m = parse_monomials(name.substr(10), why);
  PolynomialTask t{d, {}, name};
  for (const auto& e : *m) {
    if (static_cast<int>(e.size()) != d)
      throw std::invalid_argument(fmt::format("task {}: a monomial has {} exponents, the inputs d = {}", name, e.size(), d));
    Exponent x(e.begin(), e.end());
    if (std::find(t.monomials.begin(), t.monomials.end(), x) != t.monomials.end())
      throw std::invalid_argument(fmt::format("task {}: a monomial is named twice", name));
    t.monomials.push_back(x);
  }
  return t;
}

void PolynomialTask::evaluate(const Eigen::Ref<const Eigen::MatrixXd>& X,
                              const Eigen::Ref<const Eigen::VectorXd>& w,
                              Eigen::Ref<Eigen::RowVectorXd> y) const {
  // y_j = sum_k w_k x_j^{e_k}, summed over k in order from 0, each term formed as w_k times the variables
  // in order (x_1 first, with multiplicity). Every y_j sees the same operations in the same order as the
  // plain column-by-column loop, so the values are bitwise the same whichever loop below runs.
  const Eigen::Index m = X.cols();
  constexpr std::size_t kMax = 64;
  int deg[kMax], va[kMax], vb[kMax];  // degree <= 2 monomials: degree and variables, a <= b
  bool low = monomials.size() <= kMax;
  for (std::size_t k = 0; low && k < monomials.size(); ++k) {
    const Exponent& e = monomials[k];
    int degree = 0, a = -1, b = -1;
    for (int i = 0; i < d; ++i)
      for (int p = 0; p < e[i]; ++p, ++degree) (degree == 0 ? a : b) = i;
    if (degree > 2) low = false;
    deg[k] = degree;
    va[k] = a;
    vb[k] = b;
  }
  if (low) {
    // Eight columns at a time, in four two-lane vectors (GCC/Clang vector extensions: element-wise IEEE
    // operations, the same as the scalar ones): the block's inputs copied by row (xt[i] holds X(i, j..j+7)),
    // then, monomial by monomial in order, the eight columns' terms added to eight running sums held in
    // registers. Every column still sees its terms in order, each formed as (w_k x_a) x_b.
    __extension__ typedef double v2 __attribute__((vector_size(16)));
    const int K = static_cast<int>(monomials.size());
    Eigen::Index j = 0;
    if (d <= static_cast<int>(kMax)) {
      v2 xt[kMax][4];
      for (; j + 8 <= m; j += 8) {
        for (int c = 0; c < 4; ++c)
          for (int i = 0; i < d; ++i) xt[i][c] = v2{X(i, j + 2 * c), X(i, j + 2 * c + 1)};
        v2 a0 = {0.0, 0.0}, a1 = a0, a2 = a0, a3 = a0;
        for (int k = 0; k < K; ++k) {
          const v2 wk = {w[k], w[k]};
          if (deg[k] == 0) {
            a0 += wk;
            a1 += wk;
            a2 += wk;
            a3 += wk;
          } else if (deg[k] == 1) {
            const v2* xa = xt[va[k]];
            a0 += wk * xa[0];
            a1 += wk * xa[1];
            a2 += wk * xa[2];
            a3 += wk * xa[3];
          } else {
            const v2 *xa = xt[va[k]], *xb = xt[vb[k]];
            a0 += wk * xa[0] * xb[0];
            a1 += wk * xa[1] * xb[1];
            a2 += wk * xa[2] * xb[2];
            a3 += wk * xa[3] * xb[3];
          }
        }
        for (int c = 0; c < 2; ++c) {
          y[j + c] = a0[c];
          y[j + 2 + c] = a1[c];
          y[j + 4 + c] = a2[c];
          y[j + 6 + c] = a3[c];
        }
      }
    }
    for (; j < m; ++j) {
      double acc = 0.0;
      for (int k = 0; k < K; ++k) {
        const double wk = w[k];
        if (deg[k] == 0) acc += wk;
        else if (deg[k] == 1) acc += wk * X(va[k], j);
        else acc += wk * X(va[k], j) * X(vb[k], j);
      }
      y[j] = acc;
    }
    return;
  }
  // Monomial-outer, column-inner, the degree 0, 1, 2 terms specialised.
  for (Eigen::Index j = 0; j < m; ++j) y[j] = 0.0;
  for (std::size_t k = 0; k < monomials.size(); ++k) {
    const double wk = w[static_cast<Eigen::Index>(k)];
    const Exponent& e = monomials[k];
    int degree = 0, a = -1, b = -1;
    for (int i = 0; i < d; ++i)
      for (int p = 0; p < e[i]; ++p, ++degree) (degree == 0 ? a : b) = i;
    if (degree == 0) {
      for (Eigen::Index j = 0; j < m; ++j) y[j] += wk;
    } else if (degree == 1) {
      for (Eigen::Index j = 0; j < m; ++j) y[j] += wk * X(a, j);
    } else if (degree == 2) {
      for (Eigen::Index j = 0; j < m; ++j) y[j] += wk * X(a, j) * X(b, j);
    } else {
      for (Eigen::Index j = 0; j < m; ++j) {
        double t = wk;
        for (int i = 0; i < d; ++i)
          for (int p = 0; p < e[i]; ++p) t *= X(i, j);
        y[j] += t;
      }
    }
  }
}

std::vector<Polynomial<Rational>> PolynomialTask::features() const {
  std::vector<Polynomial<Rational>> f;
  for (const auto& e : monomials) f.push_back(Polynomial<Rational>::monomial(e, Rational(1)));
  return f;
}

Polynomial<Rational> PolynomialTask::kernel_diagonal() const {
  Polynomial<Rational> k(d);
  for (const auto& e : monomials) {
    Exponent e2(e);
    for (auto& v : e2) v = static_cast<std::uint8_t>(2 * v);
    k += Polynomial<Rational>::monomial(e2, Rational(1));
  }
  return k;
}

InputDistribution InputDistribution::standard(int d) {
  InputDistribution r;
  r.sigma = Eigen::MatrixXd::Identity(d, d);
  r.chol = r.sigma;
  r.isotropic = true;
  return r;
}

InputDistribution InputDistribution::with_covariance(const Eigen::MatrixXd& sigma) {
  InputDistribution r;
  r.sigma = sigma;
  Eigen::LLT<Eigen::MatrixXd> llt(sigma);
  if (llt.info() != Eigen::Success) throw std::invalid_argument("Sigma is not positive definite");
  r.chol = llt.matrixL();
  r.isotropic = sigma.isApprox(Eigen::MatrixXd::Identity(sigma.rows(), sigma.cols()), 0.0);
  return r;
}

void InputDistribution::sample(PromptRng& rng, Eigen::Ref<Eigen::MatrixXd> X) const {
  rng.fill_normal(X);
  if (isotropic) return;
  // x = L z in place, bottom row first (row i only reads rows j <= i, not yet overwritten).
  const Eigen::Index d = X.rows();
  for (Eigen::Index c = 0; c < X.cols(); ++c)
    for (Eigen::Index i = d - 1; i >= 0; --i) {
      double s = 0;
      for (Eigen::Index j = 0; j <= i; ++j) s += chol(i, j) * X(j, c);
      X(i, c) = s;
    }
}

}  // namespace icl
