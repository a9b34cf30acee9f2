#include "constructions/sja_sec42.hpp"

#include "constructions/sja_appG.hpp"
#include "icl/exact/symbolic_forward.hpp"
#include "icl/model/rng.hpp"

#include <stdexcept>

namespace icl::sja {
namespace {

constexpr int D = kSec42D, W = kSec42Width;
int xrow(int i) { return i; }           // x_i (1-based) sits in row i
int srow(int k) { return D + k; }       // scratch k (1-based) sits in row D + k

BilinearLayer empty_bilinear() {
  BilinearLayer b;
  b.W0 = Eigen::MatrixXd::Zero(W, W);
  b.W1 = Eigen::MatrixXd::Zero(W, W);
  return b;
}

// scratch k += row a * row b
void product(BilinearLayer& b, int k, int a, int c) {
  b.W0(srow(k), a) = 1;
  b.W1(srow(k), c) = 1;
}

// Adds row `source` to row `target` in every column: P = e_target e_ones^T, Q = e_ones e_source^T.
LinearSelfAttention copy_row(int source, int target) {
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(W + 1, W + 1);
  a.Q = Eigen::MatrixXd::Zero(W + 1, W + 1);
  a.P(target, 0) = 1;
  a.Q(0, source) = 1;
  a.masked = true;
  return a;
}

}  // namespace

PolynomialTask sec42_task() {
  auto e = [](int a, int b, int c, int d) { return Exponent{static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(b),
                                                           static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(d)}; };
  return {D,
          {e(0, 0, 0, 0), e(1, 0, 0, 0), e(0, 1, 0, 0), e(0, 0, 1, 0), e(0, 0, 0, 1), e(1, 1, 0, 0), e(0, 1, 1, 0),
           e(0, 0, 1, 1), e(1, 1, 1, 0), e(0, 1, 1, 1)},
          "sec42 10-term cubic"};
}

std::string to_string(Sec42Stack s) {
  switch (s) {
    case Sec42Stack::sparse_quadratic: return "sparse (12), attention on the label row only";
    case Sec42Stack::dense: return "dense (11)";
    default: return "sparse (12) bilinear, attention also writing the x rows";
  }
}

std::vector<layers::LayerPtr> sec42_feature_layers(Sec42Stack s) {
  std::vector<layers::LayerPtr> layers;
  if (s == Sec42Stack::sparse_quadratic) {
    BilinearLayer b = empty_bilinear();
    int k = 1;
    for (int i = 1; i <= D; ++i)
      for (int j = i; j <= D; ++j) product(b, k++, xrow(i), xrow(j));
    layers.emplace_back(b);
  } else if (s == Sec42Stack::dense) {
    BilinearLayer b1 = empty_bilinear();
    product(b1, 1, xrow(1), xrow(2));
    product(b1, 2, xrow(2), xrow(3));
    product(b1, 3, xrow(3), xrow(4));
    BilinearLayer b2 = empty_bilinear();
    product(b2, 4, srow(1), xrow(3));  // reads the scratch: the C block of (11)
    product(b2, 5, srow(2), xrow(4));
    layers.emplace_back(b1);
    layers.emplace_back(b2);
  } else {
    BilinearLayer b1 = empty_bilinear();
    product(b1, 1, xrow(1), xrow(2));
    product(b1, 2, xrow(3), xrow(4));
    product(b1, 3, xrow(2), xrow(3));
    BilinearLayer b2 = empty_bilinear();
    product(b2, 4, xrow(1), xrow(2));  // x1' x2
    product(b2, 5, xrow(4), xrow(3));  // x4' x3
    layers.emplace_back(b1);
    layers.emplace_back(copy_row(srow(1), xrow(4)));
    layers.emplace_back(empty_bilinear());
    layers.emplace_back(copy_row(srow(2), xrow(1)));
    layers.emplace_back(b2);
  }
  return layers;
}

std::vector<Polynomial<Rational>> sec42_features(Sec42Stack s) {
  auto rows = sja_feature_rows<Rational>(D, W);
  for (const auto& layer : sec42_feature_layers(s)) {
    if (const auto* b = dynamic_cast<const layers::Bilinear*>(layer.get())) {
      apply_symbolic(b->spec(), rows);
    } else {
      const LinearSelfAttention a = dynamic_cast<const layers::Lsa&>(*layer).spec();
      // Only the copy_row form is used here; anything else has no exact per-column effect.
      for (int t = 0; t < W; ++t)
        for (int src = 0; src < W; ++src)
          if (a.P(t, 0) != 0 && a.Q(0, src) != 0) rows[static_cast<std::size_t>(t)] += rows[static_cast<std::size_t>(src)];
    }
  }
  return rows;
}

bool is_sparse_bilinear(const BilinearLayer& b, int d) {
  // Non-zero entries only in rows d+1.. and columns 0..d.
  for (const Eigen::MatrixXd* m : {&b.W0, &b.W1}) {
    if (!m->topRows(d + 1).isZero(0.0)) return false;
    if (!m->rightCols(m->cols() - d - 1).isZero(0.0)) return false;
  }
  return true;
}

bool sec42_all_bilinear_sparse(Sec42Stack s) {
  for (const auto& layer : sec42_feature_layers(s))
    if (const auto* b = dynamic_cast<const layers::Bilinear*>(layer.get()))
      if (!is_sparse_bilinear(b->spec(), D)) return false;
  return true;
}

Transformer sec42_stack(Sec42Stack s, const Eigen::MatrixXd& Gamma) {
  Transformer t;
  t.layers = sec42_feature_layers(s);
  t.layers.emplace_back(appG_attention(Gamma));
  return t;
}

FeatureMoments sec42_degree2_moments() {
  std::vector<Polynomial<Rational>> quad;
  for (const auto& e : monomials_up_to(kSec42D, 2, 0)) quad.push_back(Polynomial<Rational>::monomial(e, Rational(1)));
  return feature_moments(quad, sec42_task());
}

int sec42_random_stack_degree(bool sparse, int layers, std::uint64_t seed) {
  const int d = kSec42D, w = kSec42Width;
  auto rows = sja_feature_rows<double>(d, w);
  PromptRng rng(seed, stable_hash(sparse ? "sec42 sparse" : "sec42 dense"), 0);
  for (int l = 0; l < layers; ++l) {
    BilinearLayer b;
    b.W0 = Eigen::MatrixXd::Zero(w, w);
    b.W1 = Eigen::MatrixXd::Zero(w, w);
    for (int r = d + 1; r < w; ++r)
      for (int c = 0; c < (sparse ? d + 1 : w); ++c) {
        b.W0(r, c) = rng.normal();
        b.W1(r, c) = rng.normal();
      }
    apply_symbolic(b, rows);
  }
  int m = 0;
  for (const auto& r : rows) m = std::max(m, r.degree());
  return m;
}

}  // namespace icl::sja
