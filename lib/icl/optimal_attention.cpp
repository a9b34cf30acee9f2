#include "icl/optimal_attention.hpp"

#include "icl/montecarlo.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

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

namespace {

class GammaRegressionWorker {
public:
  GammaRegressionWorker(const Transformer& features, const GaussianIclModel& model, const PromptShape& shape,
                        std::uint64_t seed, std::uint64_t purpose, double sign)
      : features_(&features), draw_(features, model, shape, seed, purpose, sign), shape_(shape), sign_(sign) {
    p_ = shape.dbar;
    f_.resize(p_ * p_);
  }
  void operator()(std::uint64_t i, double* out) {
    draw_.draw(i);
    Eigen::MatrixXd& Z = draw_.prompt();
    embed(shape_, draw_.inputs(), draw_.labels(), Z);
    features_->forward(Z, draw_.workspace());
    const int n = shape_.n;
    // F = (1/n) sum_i y_i u_i u_q^T = (1/n) (U y) u_q^T
    const Eigen::VectorXd Uy = Z.topLeftCorner(p_, n) * Z.row(shape_.dbar).head(n).transpose() / n;
    const Eigen::VectorXd uq = Z.col(n).head(p_);
    for (int j = 0; j < p_; ++j)
      for (int k = 0; k < p_; ++k) f_[j * p_ + k] = Uy[j] * uq[k];
    const int P2 = p_ * p_;
    int t = 0;
    for (int r = 0; r < P2; ++r)
      for (int c = r; c < P2; ++c) out[t++] = f_[r] * f_[c];
    const double y = sign_ * draw_.labels()[n];
    for (int r = 0; r < P2; ++r) out[t++] = f_[r] * y;
  }

private:
  const Transformer* features_;
  ModelPromptWorker draw_;
  PromptShape shape_;
  double sign_;
  int p_ = 0;
  std::vector<double> f_;
};

}  // namespace

GammaLeastSquares mc_least_squares_gamma(const Transformer& feature_layers, const GaussianIclModel& model,
                                         const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                                         int threads, std::uint64_t samples, int batches, double sign) {
  const int p = shape.dbar, P2 = p * p;
  const int dims = P2 * (P2 + 1) / 2 + P2;
  GammaLeastSquares est;
  est.batches = batches;
  std::vector<Eigen::MatrixXd> g;
  const std::uint64_t per_batch = std::max<std::uint64_t>(samples / batches, MonteCarlo::kChunk);
  for (int k = 0; k < batches; ++k) {
    MonteCarlo mc(dims, threads);
    const std::uint64_t pk = purpose ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(k + 1));
    mc.extend_to(per_batch, [&] { return GammaRegressionWorker(feature_layers, model, shape, seed, pk, sign); });
    const Accumulator acc = mc.total();
    est.samples += acc.count;
    Eigen::MatrixXd Eff(P2, P2);
    Eigen::VectorXd Efy(P2);
    int t = 0;
    for (int r = 0; r < P2; ++r)
      for (int c = r; c < P2; ++c) Eff(r, c) = Eff(c, r) = acc.mean[t++];
    for (int r = 0; r < P2; ++r) Efy[r] = acc.mean[t++];
    const Eigen::VectorXd v = -psd_pinv(Eff, 1e-10) * Efy;
    Eigen::MatrixXd G(p, p);
    for (int j = 0; j < p; ++j)
      for (int l = 0; l < p; ++l) G(j, l) = v[j * p + l];
    g.push_back(G);
  }
  est.gamma = Eigen::MatrixXd::Zero(p, p);
  for (const auto& G : g) est.gamma += G / batches;
  est.stderr_ = Eigen::MatrixXd::Zero(p, p);
  for (const auto& G : g) est.stderr_ += (G - est.gamma).cwiseAbs2() / (batches - 1.0);
  est.stderr_ = (est.stderr_ / batches).cwiseSqrt();
  return est;
}

Decision judge_matrix_equal(const GammaLeastSquares& est, const Eigen::MatrixXd& target, double band, double alpha) {
  Decision d;
  d.band = band;
  const Eigen::Index p = target.rows();
  const double entries = static_cast<double>(p * p);
  const double t = student_t_quantile(1 - alpha / (2 * entries), est.batches - 1.0);
  bool outside = false, all_inside = true;
  double worst_z = 0, worst_half = 0;
  std::string worst;
  for (Eigen::Index j = 0; j < p; ++j)
    for (Eigen::Index k = 0; k < p; ++k) {
      const double diff = est.gamma(j, k) - target(j, k), half = t * est.stderr_(j, k);
      worst_half = std::max(worst_half, half);
      if (std::abs(diff) - half > band) outside = true;
      if (std::abs(diff) + half > band) all_inside = false;
      const double z = est.stderr_(j, k) > 0 ? std::abs(diff) / est.stderr_(j, k) : (std::abs(diff) > 0 ? INFINITY : 0);
      if (z >= worst_z) {
        worst_z = z;
        worst = fmt::format("entry ({},{}): estimate {:.6g} +/- {:.3g} vs {:.6g}", j, k, est.gamma(j, k), half,
                            target(j, k));
      }
    }
  d.detectable = band + worst_half;
  if (outside) {
    d.verdict = Verdict::refuted;
    d.why = fmt::format("least-squares Gamma off the target beyond {:.3g}: {}", band, worst);
  } else if (all_inside) {
    d.verdict = Verdict::confirmed;
    d.why = fmt::format("every entry's interval lies within target +/- {:.3g} (largest half-width {:.3g}; "
                        "most extreme {})", band, worst_half, worst);
  } else {
    d.verdict = Verdict::inconclusive;
    d.why = fmt::format("some interval overlaps the edge of target +/- {:.3g}: {}", band, worst);
  }
  return d;
}

}  // namespace icl
