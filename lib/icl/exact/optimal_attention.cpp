#include "icl/exact/optimal_attention.hpp"

#include "icl/model/rng.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>

namespace icl {

Eigen::MatrixXd psd_pinv(const Eigen::MatrixXd& A, double rel_tol) {
  const Eigen::MatrixXd sym = 0.5 * (A + A.transpose());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(sym);
  const Eigen::VectorXd& ev = es.eigenvalues();
  const double top = ev.size() ? ev.cwiseAbs().maxCoeff() : 0.0;
  Eigen::VectorXd inv = Eigen::VectorXd::Zero(ev.size());
  for (Eigen::Index i = 0; i < ev.size(); ++i)
    if (ev[i] > rel_tol * top && ev[i] > 0) inv[i] = 1.0 / ev[i];
  return es.eigenvectors() * inv.asDiagonal() * es.eigenvectors().transpose();
}

Eigen::MatrixXd optimal_sparse_gamma(const FeatureMoments& m, double n) {
  const Eigen::MatrixXd M = m.K4 / n + (1.0 - 1.0 / n) * m.S;
  return -psd_pinv(M) * m.S * psd_pinv(m.Lambda);
}

SingleLayerMoments single_layer_moments(const GaussianIclModel& model, const std::vector<Poly>& u) {
  SingleLayerMoments m;
  m.p = static_cast<int>(u.size());
  const int D = m.D(), ex = model.example_vars();
  std::vector<Poly> z;
  for (const auto& f : u) z.push_back(model.compose(f));
  z.push_back(model.label());
  // Pair products z_a z_b (a <= b), their flat forms, and their conditional means G_ab(w).
  std::vector<int> pair_index(D * D);
  std::vector<FlatPoly> pair, G;
  for (int a = 0; a < D; ++a)
    for (int b = a; b < D; ++b) {
      pair_index[a * D + b] = pair_index[b * D + a] = static_cast<int>(pair.size());
      const Poly zz = z[a] * z[b];
      pair.emplace_back(zz);
      G.emplace_back(expect_over(zz, 0, ex));
    }
  const int np = static_cast<int>(pair.size());
  Eigen::MatrixXd T(np, np), GG(np, np);
  for (int s = 0; s < np; ++s)
    for (int t = s; t < np; ++t) {
      T(s, t) = T(t, s) = expect_product(pair[s], pair[t]);
      GG(s, t) = GG(t, s) = expect_product(G[s], G[t]);
    }
  std::vector<FlatPoly> xi;
  for (int j = 0; j < m.p; ++j) xi.emplace_back(expect_over(z[j] * z[D - 1], 0, ex));
  Eigen::MatrixXd GX(np, m.p);
  for (int s = 0; s < np; ++s)
    for (int j = 0; j < m.p; ++j) GX(s, j) = expect_product(G[s], xi[j]);
  m.T4.resize(D * D, D * D);
  m.G2.resize(D * D, D * D);
  m.X3.resize(D * D, m.p);
  for (int r = 0; r < D * D; ++r) {
    for (int c = 0; c < D * D; ++c) {
      m.T4(r, c) = T(pair_index[r], pair_index[c]);
      m.G2(r, c) = GG(pair_index[r], pair_index[c]);
    }
    m.X3.row(r) = GX.row(pair_index[r]);
  }
  // Lambda = E[u u^T] and Ey2: expectations of the pair products themselves.
  m.Lambda.resize(m.p, m.p);
  const FlatPoly one(Poly::constant(model.num_vars(), 1.0));
  for (int a = 0; a < m.p; ++a)
    for (int b = 0; b < m.p; ++b) m.Lambda(a, b) = expect_product(pair[pair_index[a * D + b]], one);
  m.Ey2 = expect_product(pair[pair_index[(D - 1) * D + (D - 1)]], one);
  return m;
}

ExactSingleLayerMoments exact_single_layer_moments(const GaussianIclModel& model, const std::vector<Poly>& u) {
  if (model.sigma.rows() != model.d || !model.sigma.isApprox(Eigen::MatrixXd::Identity(model.d, model.d), 0.0))
    throw std::invalid_argument("exact_single_layer_moments: the inputs must be isotropic (Sigma = I)");
  ExactSingleLayerMoments m;
  m.p = static_cast<int>(u.size());
  const int D = m.D(), ex = model.example_vars();
  std::vector<Polynomial<Rational>> z;
  for (const auto& f : u) z.push_back(to_rational_poly(model.compose(f)));  // isotropic: composing is exact
  z.push_back(to_rational_poly(model.label()));
  std::vector<int> pair_index(D * D);
  std::vector<Polynomial<Rational>> pair, G;
  for (int a = 0; a < D; ++a)
    for (int b = a; b < D; ++b) {
      pair_index[a * D + b] = pair_index[b * D + a] = static_cast<int>(pair.size());
      pair.push_back(z[a] * z[b]);
      G.push_back(partial_gaussian_expectation(pair.back(), 0, ex));
    }
  const int np = static_cast<int>(pair.size());
  RationalMatrix T(np, np), GG(np, np);
  for (int s = 0; s < np; ++s)
    for (int t = s; t < np; ++t) {
      T(s, t) = T(t, s) = (pair[s] * pair[t]).gaussian_expectation();
      GG(s, t) = GG(t, s) = (G[s] * G[t]).gaussian_expectation();
    }
  std::vector<Polynomial<Rational>> xi;
  for (int j = 0; j < m.p; ++j) xi.push_back(partial_gaussian_expectation(z[j] * z[D - 1], 0, ex));
  RationalMatrix GX(np, m.p);
  for (int s = 0; s < np; ++s)
    for (int j = 0; j < m.p; ++j) GX(s, j) = (G[s] * xi[j]).gaussian_expectation();
  m.T4 = RationalMatrix(D * D, D * D);
  m.G2 = RationalMatrix(D * D, D * D);
  m.X3 = RationalMatrix(D * D, m.p);
  for (int r = 0; r < D * D; ++r) {
    for (int c = 0; c < D * D; ++c) {
      m.T4(r, c) = T(pair_index[r], pair_index[c]);
      m.G2(r, c) = GG(pair_index[r], pair_index[c]);
    }
    for (int j = 0; j < m.p; ++j) m.X3(r, j) = GX(pair_index[r], j);
  }
  m.Lambda = RationalMatrix(m.p, m.p);
  for (int a = 0; a < m.p; ++a)
    for (int b = 0; b < m.p; ++b) m.Lambda(a, b) = pair[pair_index[a * D + b]].gaussian_expectation();
  m.Ey2 = pair[pair_index[(D - 1) * D + (D - 1)]].gaussian_expectation();
  return m;
}

RationalMatrix exact_single_layer_coefficients(const std::vector<LinearSelfAttention>& heads, int p, const Rational& n,
                                               bool as_fractions) {
  const int D = p + 1;
  auto read = [as_fractions](double v) { return as_fractions ? simplest_fraction(v) : Rational(v); };
  RationalMatrix C(D * D, p);
  for (const auto& h : heads) {
    if (h.P.rows() != D || h.P.cols() != D || h.Q.rows() != D || h.Q.cols() != D)
      throw std::invalid_argument("exact_single_layer_coefficients: P, Q must be (p+1) x (p+1)");
    if (!h.masked) throw std::invalid_argument("exact_single_layer_coefficients: the heads must be masked");
    const Rational f = h.scale != 0.0 ? read(h.scale) * n : Rational(1);
    for (int a = 0; a < D; ++a) {
      if (h.P(D - 1, a) == 0.0) continue;
      const Rational fp = f * read(h.P(D - 1, a));
      for (int b = 0; b < D; ++b)
        for (int c = 0; c < p; ++c)
          if (h.Q(b, c) != 0.0) C(a * D + b, c) += fp * read(h.Q(b, c));
    }
  }
  return C;
}

Rational single_layer_loss(const ExactSingleLayerMoments& m, const RationalMatrix& C, const Rational& n) {
  const int D = m.D();
  if (C.rows() != D * D || C.cols() != m.p) throw std::invalid_argument("single_layer_loss: C must be D^2 x p");
  const RationalMatrix CL = C * m.Lambda, Ct = C.transpose();
  const Rational quad_t4 = (Ct * m.T4 * CL).trace(), quad_g2 = (Ct * m.G2 * CL).trace();
  Rational lin(0);
  for (int r = 0; r < D * D; ++r)
    for (int j = 0; j < m.p; ++j)
      if (C(r, j) != 0) lin += C(r, j) * m.X3(r, j);
  return quad_t4 / n + (Rational(1) - Rational(1) / n) * quad_g2 + Rational(2) * lin + m.Ey2;
}

namespace {

// K_b[k, l] = sum_{a, e} b_a b_e E[H_ka H_le]
Eigen::MatrixXd K_of_b(const Eigen::MatrixXd& EHH, const Eigen::VectorXd& b, int D) {
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(D, D);
  for (int k = 0; k < D; ++k)
    for (int l = 0; l < D; ++l) {
      double s = 0;
      for (int a = 0; a < D; ++a)
        for (int e = 0; e < D; ++e) s += b[a] * b[e] * EHH(k * D + a, l * D + e);
      K(k, l) = s;
    }
  return K;
}

// K_A[a, e] = sum_{b, c} B_bc E[H_ab H_ec], B = A Lam A^T
Eigen::MatrixXd K_of_A(const Eigen::MatrixXd& EHH, const Eigen::MatrixXd& B, int D) {
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(D, D);
  for (int a = 0; a < D; ++a)
    for (int e = 0; e < D; ++e) {
      double s = 0;
      for (int b = 0; b < D; ++b)
        for (int c = 0; c < D; ++c) s += B(b, c) * EHH(a * D + b, e * D + c);
      K(a, e) = s;
    }
  return K;
}

}  // namespace

double single_layer_loss(const SingleLayerMoments& m, const Eigen::VectorXd& b, const Eigen::MatrixXd& A, double n) {
  const int D = m.D();
  const Eigen::MatrixXd EHH = m.EHH(n);
  const Eigen::MatrixXd B = A * m.Lambda * A.transpose();
  const double quad = b.dot(K_of_A(EHH, B, D) * b);
  double lin = 0;
  for (int a = 0; a < D; ++a)
    for (int c = 0; c < D; ++c)
      for (int j = 0; j < m.p; ++j) lin += b[a] * A(c, j) * m.X3(a * D + c, j);
  return quad + 2 * lin + m.Ey2;
}

double single_layer_gradient(const SingleLayerMoments& m, const Eigen::VectorXd& b, const Eigen::MatrixXd& A, double n,
                             Eigen::VectorXd& grad_b, Eigen::MatrixXd& grad_A) {
  const int D = m.D(), p = m.p;
  const Eigen::MatrixXd EHH = m.EHH(n);
  Eigen::MatrixXd R = Eigen::MatrixXd::Zero(D, p);
  for (int k = 0; k < D; ++k)
    for (int a = 0; a < D; ++a) R.row(k) += b[a] * m.X3.row(k * D + a);
  Eigen::VectorXd r = Eigen::VectorXd::Zero(D);
  for (int a = 0; a < D; ++a)
    for (int c = 0; c < D; ++c) r[a] += m.X3.row(a * D + c).dot(A.row(c));
  const Eigen::MatrixXd KA = K_of_A(EHH, A * m.Lambda * A.transpose(), D);
  grad_b = 2.0 * (KA * b + r);
  grad_A = 2.0 * (K_of_b(EHH, b, D) * A * m.Lambda + R);
  return b.dot(KA * b) + 2.0 * b.dot(r) + m.Ey2;
}

Eigen::MatrixXd single_layer_coefficients(const std::vector<LinearSelfAttention>& heads, int p, double n) {
  const int D = p + 1;
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(D * D, p);
  for (const auto& h : heads) {
    if (h.P.rows() != D || h.P.cols() != D || h.Q.rows() != D || h.Q.cols() != D)
      throw std::invalid_argument("single_layer_coefficients: P, Q must be (p+1) x (p+1)");
    if (!h.masked) throw std::invalid_argument("single_layer_coefficients: the heads must be masked");
    const double f = h.scale != 0.0 ? h.scale * n : 1.0;
    for (int a = 0; a < D; ++a)
      for (int b = 0; b < D; ++b)
        for (int c = 0; c < p; ++c) C(a * D + b, c) += f * h.P(D - 1, a) * h.Q(b, c);
  }
  return C;
}

double single_layer_loss(const SingleLayerMoments& m, const Eigen::MatrixXd& C, double n) {
  const int D = m.D();
  if (C.rows() != D * D || C.cols() != m.p) throw std::invalid_argument("single_layer_loss: C must be D^2 x p");
  const double quad = (C.transpose() * m.EHH(n) * C * m.Lambda).trace();
  return quad + 2 * C.cwiseProduct(m.X3).sum() + m.Ey2;
}

Eigen::MatrixXd symmetrised_coefficients(const Eigen::MatrixXd& C, int D) {
  Eigen::MatrixXd S(C.rows(), C.cols());
  for (int a = 0; a < D; ++a)
    for (int b = 0; b < D; ++b) S.row(a * D + b) = 0.5 * (C.row(a * D + b) + C.row(b * D + a));
  return S;
}

SingleLayerOptimum alternating_single_layer(const SingleLayerMoments& m, double n, Eigen::VectorXd b,
                                            Eigen::MatrixXd A, int max_iter, double tol) {
  const int D = m.D(), p = m.p;
  const Eigen::MatrixXd EHH = m.EHH(n);
  const Eigen::MatrixXd Lp = psd_pinv(m.Lambda);
  SingleLayerOptimum o;
  double prev = single_layer_loss(m, b, A, n);
  for (int it = 1; it <= max_iter; ++it) {
    // A-step: K_b A Lam = -R_b.
    Eigen::MatrixXd R = Eigen::MatrixXd::Zero(D, p);
    for (int k = 0; k < D; ++k)
      for (int a = 0; a < D; ++a) R.row(k) += b[a] * m.X3.row(k * D + a);
    A = -psd_pinv(K_of_b(EHH, b, D)) * R * Lp;
    // b-step: K_A b = -r_A.
    Eigen::VectorXd r = Eigen::VectorXd::Zero(D);
    for (int a = 0; a < D; ++a)
      for (int c = 0; c < D; ++c) r[a] += m.X3.row(a * D + c).dot(A.row(c));
    b = -psd_pinv(K_of_A(EHH, A * m.Lambda * A.transpose(), D)) * r;
    // Balance the scale (b, A) -> (g b, A / g): the loss is invariant, the iteration better conditioned.
    const double nb = b.norm(), na = A.norm();
    if (nb > 0 && na > 0) {
      const double g = std::sqrt(na / nb);
      b *= g;
      A /= g;
    }
    const double L = single_layer_loss(m, b, A, n);
    o.iterations = it;
    if (prev - L <= tol * std::max(1.0, std::abs(L))) {
      prev = std::min(prev, L);
      break;
    }
    prev = L;
  }
  o.b = b;
  o.A = A;
  o.loss = single_layer_loss(m, b, A, n);
  return o;
}

std::vector<double> alternating_from_random_starts(const SingleLayerMoments& m, double n, int starts, std::uint64_t seed,
                                                   std::uint64_t purpose) {
  std::vector<double> losses;
  for (int s = 0; s < starts; ++s) {
    PromptRng rng(seed, purpose, static_cast<std::uint64_t>(s));
    Eigen::VectorXd b(m.p + 1);
    Eigen::MatrixXd A(m.p + 1, m.p);
    rng.fill_normal(b);
    rng.fill_normal(A);
    losses.push_back(alternating_single_layer(m, n, b, A).loss);
  }
  return losses;
}

void sparse_as_general(const Eigen::MatrixXd& Gamma, Eigen::VectorXd& b, Eigen::MatrixXd& A) {
  const Eigen::Index p = Gamma.rows();
  b = Eigen::VectorXd::Zero(p + 1);
  b[p] = 1.0;
  A = Eigen::MatrixXd::Zero(p + 1, p);
  A.topRows(p) = Gamma;
}

void general_layer_weights(const Eigen::VectorXd& b, const Eigen::MatrixXd& A, const Eigen::MatrixXd& filler,
                           Eigen::MatrixXd& P, Eigen::MatrixXd& Q) {
  const Eigen::Index D = b.size();
  if (filler.rows() != D || filler.cols() != D) throw std::invalid_argument("general_layer_weights: filler shape");
  P = filler;
  P.row(D - 1) = b.transpose();
  Q = filler.transpose();
  Q.leftCols(D - 1) = A;
}

}  // namespace icl
