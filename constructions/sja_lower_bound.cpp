#include "constructions/sja_lower_bound.hpp"

#include "icl/verdict/mutation.hpp"

#include "constructions/sja_appC.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/lower_bounds.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace icl::sja {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kMinus{"sja.lower_bound/lambda_minus", "sja.prop4,sja.remark1,sja.cor9", "(d + 3 - sqrt((d+3)^2 - 8)) / 2"};
const MutationSite kPlus{"sja.lower_bound/lambda_plus", "sja.prop4,sja.remark1,sja.cor9", "(d + 3 + sqrt((d+3)^2 - 8)) / 2"};
}  // namespace

std::vector<Poly> orthonormal_v(int d) {
  const auto o = orthonormal_features(d);
  std::vector<Poly> v;
  for (std::size_t a = 0; a < o.unnormalised.size(); ++a)
    v.push_back(o.unnormalised[a].to_double_poly() * std::sqrt(to_double(o.scale_squared[a])));
  return v;
}

double lambda_minus(int d) { return kMinus((d + 3.0 - std::sqrt((d + 3.0) * (d + 3.0) - 8.0)) / 2.0); }
double lambda_plus(int d) { return kPlus((d + 3.0 + std::sqrt((d + 3.0) * (d + 3.0) - 8.0)) / 2.0); }

std::vector<double> coefficient_eigenvalues(int d) {
  std::vector<double> ev{lambda_minus(d), lambda_plus(d)};
  for (int i = 0; i < d * (d + 1) / 2; ++i) ev.push_back(1.0);
  for (int i = 0; i < d - 1; ++i) ev.push_back(2.0);
  std::sort(ev.begin(), ev.end());
  return ev;
}

namespace {

// Rows of W0, W1 being built, with extra rows appended after the d + 1 embedding rows.
struct Rows {
  int d;
  std::vector<Eigen::VectorXd> w0, w1;  // each of length d + 1 (embedding columns 0..d)
  explicit Rows(int d_) : d(d_), w0(d_ + 1, Eigen::VectorXd::Zero(d_ + 1)), w1(d_ + 1, Eigen::VectorXd::Zero(d_ + 1)) {}
  Eigen::VectorXd e(int c) const {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(d + 1);
    v[c] = 1;
    return v;
  }
  void set(int r, const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    w0[r] = a;
    w1[r] = b;
  }
  void add(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
    w0.push_back(a);
    w1.push_back(b);
  }
  void zero_row(int r) { set(r, e(r), -e(0)); }  // base_r + base_r * (-1) = 0
  BilinearLayer layer() const {
    const int dbar = static_cast<int>(w0.size());
    BilinearLayer l;
    l.W0 = Eigen::MatrixXd::Zero(dbar, dbar);
    l.W1 = Eigen::MatrixXd::Zero(dbar, dbar);
    for (int r = 0; r < dbar; ++r) {
      l.W0.row(r).head(d + 1) = w0[r].transpose();
      l.W1.row(r).head(d + 1) = w1[r].transpose();
    }
    return l;
  }
};

// Row 0 = 1 + (a0 + x1)(b0 + b1 x1) = kappa [sqrt(2d) v00 + sqrt(d) (lam+ - d - 1) v11]: the e+
// direction modulo the differences v11 - vjj.
void set_eplus_row(Rows& R) {
  const int d = R.d;
  const double c = std::sqrt(d) * (lambda_plus(d) - d - 1.0) / std::sqrt(2.0);  // coefficient of (x1^2 - 1)
  const double kappa = 1.0 / (2.0 * std::sqrt(2.0 * d));
  const double a0 = std::sqrt((1.0 + kappa * c - kappa * std::sqrt(2.0 * d)) / (kappa * c));
  Eigen::VectorXd a = R.e(1), b = kappa * c * R.e(1);
  a[0] = a0;
  b[0] = -a0 * kappa * c;
  R.set(0, a, b);
}

}  // namespace

BilinearConstruction quadratic_exclusion_layer(int d, int k) {
  const int m = kernel_width(d), n1 = d * (d + 1) / 2;
  if (k < 1 || k > m) throw std::invalid_argument("quadratic_exclusion_layer: k must be in [1, m]");
  Rows R(d);
  BilinearConstruction out;
  if (k == m) {
    for (int r = 0; r <= d; ++r) R.zero_row(r);
    out.description = "every feature zero";
  } else if (k <= 1 + n1) {
    const int K = n1 + 1 - k;  // eigenvalue-1 directions kept: the first K of x_1..x_d, x_i x_j
    set_eplus_row(R);
    std::vector<std::pair<int, int>> pairs;
    for (int i = 1; i <= d; ++i)
      for (int j = i + 1; j <= d; ++j) pairs.emplace_back(i, j);
    if (K >= 1) {
      // row 1 keeps x_1; rows j = 2..d carry x1^2 - xj^2 + x1.
      for (int j = 2; j <= d; ++j) R.set(j, R.e(1) - R.e(j), R.e(1) + R.e(j) + R.e(0));
      for (int t = 1; t < K; ++t) {
        if (t < d)
          R.add(R.e(t + 1), R.e(0));  // x_{t+1}
        else
          R.add(R.e(pairs[t - d].first), R.e(pairs[t - d].second));  // x_i x_j
      }
    } else {
      for (int r = 1; r <= d; ++r) R.zero_row(r);
      for (int j = 2; j <= d; ++j) R.add(R.e(1) - R.e(j), R.e(1) + R.e(j));  // x1^2 - xj^2
    }
    out.description = fmt::format("e+ direction, the {} differences x1^2 - xj^2, and {} of the unit-eigenvalue "
                                  "features (x_j, then x_i x_j)",
                                  d - 1, K);
  } else {
    const int keep_diffs = m - k - 1;  // 0 .. d - 2
    set_eplus_row(R);
    for (int r = 1; r <= d; ++r) R.zero_row(r);
    for (int j = 2; j < 2 + keep_diffs; ++j) R.add(R.e(1) - R.e(j), R.e(1) + R.e(j));
    out.description = fmt::format("e+ direction (modulo differences) and {} differences x1^2 - xj^2", keep_diffs);
  }
  out.layer = R.layer();
  out.dbar = static_cast<int>(out.layer.W0.rows());
  return out;
}

BilinearConstruction orthonormal_subset_layer(int d, const std::vector<int>& keep) {
  const auto names = orthonormal_features(d).names;
  const int m = kernel_width(d);
  std::vector<bool> kept(m, false);
  for (int a : keep) {
    if (a < 0 || a >= m) throw std::invalid_argument("orthonormal_subset_layer: index out of range");
    kept[a] = true;
  }
  Rows R(d);
  std::string desc;
  for (int a = 0; a < m; ++a) {
    if (kept[a]) desc += (desc.empty() ? "" : ", ") + names[a];
    if (a <= d) {
      if (!kept[a]) R.zero_row(a);
      continue;
    }
    if (!kept[a]) continue;
    // a > d: a quadratic v_ij; find (i, j).
    int idx = d + 1;
    for (int i = 1; i <= d; ++i)
      for (int j = i; j <= d; ++j, ++idx)
        if (idx == a) {
          if (i == j)
            R.add((R.e(i) - R.e(0)) / std::sqrt(2.0), R.e(i) + R.e(0));  // (x_i^2 - 1)/sqrt2
          else
            R.add(R.e(i), R.e(j));
        }
  }
  BilinearConstruction out;
  out.layer = R.layer();
  out.dbar = static_cast<int>(out.layer.W0.rows());
  out.description = "features " + (desc.empty() ? std::string("(none)") : desc);
  return out;
}

BlockExact block_exact(const GaussianIclModel& model, const std::vector<Poly>& v, const Eigen::MatrixXd& C,
                       const BilinearLayer& layer, int d, int n) {
  BlockExact e;
  e.dbar = static_cast<int>(layer.W0.rows());
  e.features = bilinear_features(layer, d, e.dbar);
  const Eigen::MatrixXd U = feature_projection(model, v, e.features);
  e.projected_dim = numerical_rank(U);
  e.limit = projected_residual(C, U);
  const FeatureMoments fm = model_feature_moments(model, e.features);
  e.gamma = optimal_sparse_gamma(fm, n);
  e.exact_loss = sparse_lsa_loss(fm, e.gamma, n);
  return e;
}

double random_bilinear_best_limit(std::uint64_t seed, std::uint64_t purpose, const GaussianIclModel& model,
                                  const std::vector<Poly>& v, const Eigen::MatrixXd& C, int d, int dbar, int max_rank) {
  double best = INFINITY;
  PromptRng rng(seed, purpose, 0);
  for (int r = 0; r < 20; ++r) {
    BilinearLayer L;
    L.W0.resize(dbar, dbar);
    L.W1.resize(dbar, dbar);
    rng.fill_normal(L.W0);
    rng.fill_normal(L.W1);
    const Eigen::MatrixXd U = feature_projection(model, v, bilinear_features(L, d, dbar));
    if (max_rank >= 0 && numerical_rank(U) > max_rank) continue;
    best = std::min(best, projected_residual(C, U));
  }
  return best;
}

nlohmann::ordered_json layer_json(const BilinearLayer& layer) {
  nlohmann::ordered_json j;
  j["W0"] = quantity_matrix(layer.W0)["matrix"];
  j["W1"] = quantity_matrix(layer.W1)["matrix"];
  return j;
}

namespace {

// Gram-Schmidt of the first m monomials under N(0, Sigma): g = L^{-1} mono, Gram = L L^T.
std::vector<Poly> gram_schmidt_monomials(int d, int m, const Eigen::MatrixXd& sigma) {
  const auto mons = monomials_up_to(d, 2);
  std::vector<Poly> mono;
  for (int a = 0; a < m; ++a) mono.push_back(Poly::monomial(mons[a], 1.0));
  const auto probe = GaussianIclModel::from_basis(d, mono, sigma, "monomials");
  const Eigen::MatrixXd G = feature_projection(probe, mono, mono);
  const Eigen::MatrixXd Linv = Eigen::MatrixXd(G.llt().matrixL()).inverse();
  std::vector<Poly> g;
  for (int a = 0; a < m; ++a) {
    Poly p(d);
    for (int b = 0; b <= a; ++b)
      if (Linv(a, b) != 0.0) p += mono[b] * Linv(a, b);
    g.push_back(p);
  }
  return g;
}

// A bilinear layer whose features are the first dt monomials (1, x_1..x_d, x_1^2, x_1 x_2, ...).
BilinearLayer monomial_prefix_layer(int d, int dt) {
  const auto mons = monomials_up_to(d, 2);
  std::vector<std::pair<int, int>> quad;  // embedding columns (1-based variables) of each quadratic kept
  for (int a = d + 1; a < dt; ++a) {
    int i = -1, j = -1;
    for (int v = 0; v < d; ++v)
      for (int e = 0; e < mons[a][v]; ++e) (i < 0 ? i : j) = v + 1;
    quad.emplace_back(i, j);
  }
  const int dbar = d + 1 + static_cast<int>(quad.size());
  BilinearLayer L;
  L.W0 = Eigen::MatrixXd::Zero(dbar, dbar);
  L.W1 = Eigen::MatrixXd::Zero(dbar, dbar);
  for (int r = 0; r <= d; ++r)
    if (r >= dt) {  // not among the first dt monomials: zero the row (base * (1 - 1))
      L.W0(r, r) = 1;
      L.W1(r, 0) = -1;
    }
  for (std::size_t q = 0; q < quad.size(); ++q) {
    L.W0(d + 1 + q, quad[q].first) = 1;
    L.W1(d + 1 + q, quad[q].second) = 1;
  }
  return L;
}

}  // namespace

OrthonormalFamily orthonormal_family(int d, int m, int dt, int basis) {
  const int M = kernel_width(d);
  OrthonormalFamily k;
  k.sigma = basis == 0 ? Eigen::MatrixXd::Identity(d, d) : test_covariance(d, 2);
  const Eigen::MatrixXd& sigma = k.sigma;
  if (basis == 0) {
    const auto v = orthonormal_v(d);
    k.g.assign(v.begin(), v.begin() + m);
    std::vector<int> keep;
    for (int a = 0; a < dt; ++a) keep.push_back(a);
    if (m < M) keep.push_back(m);  // a feature orthogonal to span{g}
    const auto b = orthonormal_subset_layer(d, keep);
    k.layer = b.layer;
    k.description = b.description + (m < M ? " (the last is orthogonal to span{g})" : "");
  } else {
    k.g = gram_schmidt_monomials(d, m, sigma);
    k.layer = monomial_prefix_layer(d, dt);
    k.description = fmt::format("the first {} monomials", dt);
  }
  return k;
}


}  // namespace icl::sja
