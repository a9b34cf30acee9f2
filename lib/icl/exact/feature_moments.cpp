#include "icl/exact/feature_moments.hpp"

#include <stdexcept>

namespace icl {

FeatureMoments model_feature_moments(const GaussianIclModel& model, const std::vector<Poly>& u) {
  const int p = static_cast<int>(u.size());
  std::vector<Poly> U;
  for (const auto& f : u) U.push_back(model.compose(f));
  const Poly Y = model.label();
  std::vector<FlatPoly> Uf(U.begin(), U.end());
  const FlatPoly Yf(Y), Y2f(Y * Y);
  FeatureMoments m;
  m.Lambda.resize(p, p);
  m.K4.resize(p, p);
  m.S.resize(p, p);
  std::vector<FlatPoly> xi;
  for (int a = 0; a < p; ++a) xi.emplace_back(expect_over(U[a] * Y, 0, model.example_vars()));
  for (int a = 0; a < p; ++a)
    for (int b = a; b < p; ++b) {
      m.Lambda(a, b) = m.Lambda(b, a) = expect_product(Uf[a], Uf[b]);
      m.K4(a, b) = m.K4(b, a) = expect_product(FlatPoly(U[a] * U[b]), Y2f);
      m.S(a, b) = m.S(b, a) = expect_product(xi[a], xi[b]);
    }
  m.Ey2 = expect_product(Yf, Yf);
  if (!model.random_w) {
    m.xi.resize(p);
    const FlatPoly one(Poly::constant(model.num_vars(), 1.0));
    for (int a = 0; a < p; ++a) m.xi[a] = expect_product(xi[a], one);
  }
  return m;
}

std::vector<Poly> sja_embedding_features(int d, int dbar) {
  std::vector<Poly> base;
  for (int r = 0; r < dbar; ++r) {
    if (r == 0)
      base.push_back(Poly::constant(d, 1.0));
    else if (r <= d)
      base.push_back(Poly::variable(d, r - 1));
    else
      base.push_back(Poly(d));
  }
  return base;
}

std::vector<Poly> identity_features(int d) {
  std::vector<Poly> f;
  for (int i = 0; i < d; ++i) f.push_back(Poly::variable(d, i));
  return f;
}

std::vector<Poly> bilinear_features(const BilinearLayer& layer, int d, int dbar) {
  if (layer.W0.rows() != dbar || layer.W1.rows() != dbar) throw std::invalid_argument("bilinear_features: width");
  const auto base = sja_embedding_features(d, dbar);
  std::vector<Poly> out;
  for (int r = 0; r < dbar; ++r) {
    Poly a(d), b(d);
    for (int c = 0; c < dbar; ++c) {
      if (layer.W0(r, c) != 0.0) a += base[c] * layer.W0(r, c);
      if (layer.W1(r, c) != 0.0) b += base[c] * layer.W1(r, c);
    }
    out.push_back(base[r] + a * b);
  }
  return out;
}

}  // namespace icl
