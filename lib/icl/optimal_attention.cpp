#include "icl/optimal_attention.hpp"

#include "icl/montecarlo.hpp"

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

// Draws prompts, runs the feature layers, and writes f = vec(F) (row-major) and sign * y_q for each.
class GammaRegressionWorker {
public:
  GammaRegressionWorker(const Transformer& features, const GaussianIclModel& model, const PromptShape& shape,
                        std::uint64_t seed, std::uint64_t purpose, double sign)
      : features_(&features), draw_(features, model, shape, seed, purpose, sign), shape_(shape), sign_(sign),
        p_(shape.dbar) {}
  void operator()(std::uint64_t i, double* f, double& y) {
    draw_.draw(i);
    Eigen::MatrixXd& Z = draw_.prompt();
    embed(shape_, draw_.inputs(), draw_.labels(), Z);
    features_->forward(Z, draw_.workspace());
    const int n = shape_.n;
    // F = (1/n) sum_i y_i u_i u_q^T = (1/n) (U y) u_q^T
    const Eigen::VectorXd Uy = Z.topLeftCorner(p_, n) * Z.row(shape_.dbar).head(n).transpose() / n;
    for (int j = 0; j < p_; ++j)
      for (int k = 0; k < p_; ++k) f[j * p_ + k] = Uy[j] * Z(k, n);
    y = sign_ * draw_.labels()[n];
  }

private:
  const Transformer* features_;
  ModelPromptWorker draw_;
  PromptShape shape_;
  double sign_;
  int p_;
};

}  // namespace

// Prompts are cut into fixed chunks; chunk c of batch k sums f f^T and f y over its prompts with one
// matrix product; chunk sums are added in chunk order. Same seed, same numbers, whatever the threads.
GammaLeastSquares mc_least_squares_gamma(const Transformer& feature_layers, const GaussianIclModel& model,
                                         const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                                         int threads, std::uint64_t samples, int batches, double sign) {
  constexpr std::uint64_t kChunk = 1024;
  const int p = shape.dbar, P2 = p * p;
  const std::uint64_t chunks_per_batch = std::max<std::uint64_t>(1, (samples / batches + kChunk - 1) / kChunk);
  GammaLeastSquares est;
  est.batches = batches;
  est.samples = chunks_per_batch * kChunk * batches;
  std::vector<Eigen::MatrixXd> g;
  for (int k = 0; k < batches; ++k) {
    const std::uint64_t pk = purpose ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(k + 1));
    std::vector<Eigen::MatrixXd> Eff(chunks_per_batch);
    std::vector<Eigen::VectorXd> Efy(chunks_per_batch);
    std::atomic<std::uint64_t> next{0};
    auto body = [&] {
      GammaRegressionWorker worker(feature_layers, model, shape, seed, pk, sign);
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> F(kChunk, P2);
      Eigen::VectorXd y(kChunk);
      for (std::uint64_t c; (c = next.fetch_add(1)) < chunks_per_batch;) {
        for (std::uint64_t i = 0; i < kChunk; ++i) worker(c * kChunk + i, F.row(static_cast<Eigen::Index>(i)).data(), y[i]);
        Eff[c] = F.transpose() * F;
        Efy[c] = F.transpose() * y;
      }
    };
    const int t = static_cast<int>(std::min<std::uint64_t>(std::max(1, threads), chunks_per_batch));
    std::vector<std::thread> pool;
    for (int j = 1; j < t; ++j) pool.emplace_back(body);
    body();
    for (auto& th : pool) th.join();
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(P2, P2);
    Eigen::VectorXd r = Eigen::VectorXd::Zero(P2);
    for (std::uint64_t c = 0; c < chunks_per_batch; ++c) {
      A += Eff[c];
      r += Efy[c];
    }
    const Eigen::VectorXd v = -psd_pinv(A, 1e-10) * r;
    Eigen::MatrixXd G(p, p);
    for (int j = 0; j < p; ++j)
      for (int l = 0; l < p; ++l) G(j, l) = v[j * p + l];
    g.push_back(G);
  }
  est.batch_gammas = g;
  est.gamma = Eigen::MatrixXd::Zero(p, p);
  for (const auto& G : g) est.gamma += G / batches;
  est.stderr_ = Eigen::MatrixXd::Zero(p, p);
  for (const auto& G : g) est.stderr_ += (G - est.gamma).cwiseAbs2() / (batches - 1.0);
  est.stderr_ = (est.stderr_ / batches).cwiseSqrt();
  return est;
}

Estimate lsq_distance(const GammaLeastSquares& est, const Eigen::MatrixXd& target, double confidence) {
  const int K = static_cast<int>(est.batch_gammas.size());
  if (K < 3) throw std::invalid_argument("lsq_distance: needs at least 3 batches");
  std::vector<Eigen::MatrixXd> D;
  for (const auto& G : est.batch_gammas) D.push_back(G - target);
  auto ustat = [&](int skip) {
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(target.rows(), target.cols());
    double sq = 0;
    int m = 0;
    for (int k = 0; k < K; ++k) {
      if (k == skip) continue;
      sum += D[k];
      sq += D[k].squaredNorm();
      ++m;
    }
    return (sum.squaredNorm() - sq) / (m * (m - 1.0));
  };
  const double U = ustat(-1);
  std::vector<double> jk(K);
  double mean = 0;
  for (int k = 0; k < K; ++k) mean += (jk[k] = ustat(k)) / K;
  double var = 0;
  for (int k = 0; k < K; ++k) var += (jk[k] - mean) * (jk[k] - mean);
  const double se = std::sqrt(var * (K - 1.0) / K);
  const double t = student_t_quantile(0.5 + confidence / 2, K - 1.0);
  Estimate e;
  e.samples = est.samples;
  e.confidence = confidence;
  e.mean = std::sqrt(std::max(U, 0.0));
  e.ci_low = std::sqrt(std::max(U - t * se, 0.0));
  e.ci_high = std::sqrt(std::max(U + t * se, 0.0));
  e.stderr_ = e.mean > 0 ? se / (2 * e.mean) : std::sqrt(se);  // delta method
  e.sd = e.stderr_ * std::sqrt(static_cast<double>(K));
  return e;
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
