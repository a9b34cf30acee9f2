#include "icl/gaussian_model.hpp"

#include <array>
#include <cmath>
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

GaussianIclModel GaussianIclModel::from_task(const PolynomialTask& task, const Eigen::MatrixXd& sigma) {
  std::vector<Poly> basis;
  for (const auto& e : task.monomials) basis.push_back(Poly::monomial(e, 1.0));
  return from_basis(task.d, std::move(basis), sigma, task.name);
}

GaussianIclModel GaussianIclModel::from_basis(int d, std::vector<Poly> basis, const Eigen::MatrixXd& sigma,
                                              std::string name) {
  GaussianIclModel m;
  m.d = d;
  m.sigma = sigma;
  m.basis = std::move(basis);
  m.name = std::move(name);
  for (const auto& g : m.basis)
    if (g.nvars() != d) throw std::invalid_argument("GaussianIclModel: basis polynomial arity");
  if (sigma.rows() != d || sigma.cols() != d) throw std::invalid_argument("GaussianIclModel: Sigma shape");
  return m;
}

Eigen::MatrixXd GaussianIclModel::cholesky() const {
  Eigen::LLT<Eigen::MatrixXd> llt(sigma);
  if (llt.info() != Eigen::Success) throw std::invalid_argument("Sigma is not positive definite");
  return llt.matrixL();
}

std::vector<Poly> GaussianIclModel::inputs() const {
  const int nv = num_vars();
  const Eigen::MatrixXd L = cholesky();
  std::vector<Poly> xs;
  for (int i = 0; i < d; ++i) {
    Poly xi(nv);
    for (int j = 0; j <= i; ++j)
      if (L(i, j) != 0.0) xi += Poly::variable(nv, j) * L(i, j);
    xs.push_back(xi);
  }
  return xs;
}

Poly GaussianIclModel::compose(const Poly& f) const {
  if (f.nvars() != d) throw std::invalid_argument("compose: polynomial must be in the d input variables");
  const bool isotropic = sigma.isApprox(Eigen::MatrixXd::Identity(d, d), 0.0);
  if (isotropic) return lift(f, num_vars());
  return f.substitute(inputs());
}

Poly GaussianIclModel::label() const {
  const int nv = num_vars();
  Poly y(nv);
  for (int m = 0; m < num_coefficients(); ++m) {
    const Poly g = compose(basis[m]);
    if (random_w)
      y += Poly::variable(nv, example_vars() + m) * g;
    else
      y += g * fixed_w[m];
  }
  if (noise_sd > 0) y += Poly::variable(nv, d) * noise_sd;
  return y;
}

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

ModelPromptWorker::ModelPromptWorker(const Transformer& model, const GaussianIclModel& task, const PromptShape& shape,
                                     std::uint64_t seed, std::uint64_t purpose, double sign)
    : model_(&model), task_(&task), chol_(task.cholesky()), shape_(shape), seed_(seed), purpose_(purpose),
      sign_(sign) {
  if (shape.d != task.d) throw std::invalid_argument("ModelPromptWorker: prompt and task dimensions differ");
  for (const auto& g : task.basis) basis_.emplace_back(g);
  isotropic_ = task.sigma.isApprox(Eigen::MatrixXd::Identity(task.d, task.d), 0.0);
  X_.resize(shape.d, shape.cols());
  Z_.resize(shape.rows(), shape.cols());
  w_.resize(task.num_coefficients());
  y_.resize(shape.cols());
  xcol_.resize(task.d);
  ws_.reserve(shape.rows(), shape.cols());
}

void ModelPromptWorker::draw(std::uint64_t i) {
  PromptRng rng(seed_, purpose_, i);
  rng.fill_normal(w_);
  rng.fill_normal(X_);
  const Eigen::Index d = X_.rows();
  if (!isotropic_)
    for (Eigen::Index c = 0; c < X_.cols(); ++c)
      for (Eigen::Index r = d - 1; r >= 0; --r) {
        double s = 0;
        for (Eigen::Index j = 0; j <= r; ++j) s += chol_(r, j) * X_(j, c);
        X_(r, c) = s;
      }
  const Eigen::VectorXd& w = task_->random_w ? w_ : task_->fixed_w;
  for (Eigen::Index c = 0; c < X_.cols(); ++c) {
    for (Eigen::Index r = 0; r < d; ++r) xcol_[r] = X_(r, c);
    double y = 0;
    for (std::size_t m = 0; m < basis_.size(); ++m) y += w[static_cast<Eigen::Index>(m)] * basis_[m].evaluate(xcol_.data());
    if (task_->noise_sd > 0) y += task_->noise_sd * rng.normal();
    y_[c] = y;
  }
}

double ModelPromptWorker::loss(std::uint64_t i) {
  draw(i);
  embed(shape_, X_, y_, Z_);
  model_->forward(Z_, ws_);
  const double e = prediction(Z_) + sign_ * y_[shape_.n];
  return e * e;
}

Eigen::MatrixXd test_covariance(int d, int kind) {
  if (kind == 0) return Eigen::MatrixXd::Identity(d, d);
  Eigen::VectorXd lam(d);
  const double lo = kind == 3 ? 0.1 : 0.5, hi = kind == 3 ? 10.0 : 2.0;
  for (int i = 0; i < d; ++i) lam[i] = d == 1 ? hi : lo * std::pow(hi / lo, static_cast<double>(i) / (d - 1));
  Eigen::MatrixXd U = Eigen::MatrixXd::Identity(d, d);
  if (kind >= 2 && d > 1) {
    Eigen::VectorXd v(d);
    for (int i = 0; i < d; ++i) v[i] = i + 1.0;
    v.normalize();
    U -= 2.0 * v * v.transpose();
  }
  if (kind < 0 || kind > 3) throw std::invalid_argument("test_covariance: kind must be 0..3");
  return U * lam.asDiagonal() * U.transpose();
}

std::string covariance_name(int kind) {
  switch (kind) {
    case 0: return "isotropic";
    case 1: return "diagonal, spectrum [1/2, 2]";
    case 2: return "rotated, spectrum [1/2, 2]";
    case 3: return "rotated, ill-conditioned, spectrum [1/10, 10]";
    default: return "?";
  }
}

}  // namespace icl
