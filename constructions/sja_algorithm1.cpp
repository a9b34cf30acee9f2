#include "constructions/sja_algorithm1.hpp"

#include "icl/algebra/matrix_functions.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/learn/optimizers.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include <stdexcept>

namespace icl::sja {

Stage1Problem::Stage1Problem(int d, int dbar, Eigen::MatrixXd gamma)
    : d_(d), dbar_(dbar), m_((d + 1) * (d + 2) / 2), gamma_(std::move(gamma)) {
  if (d < 1 || dbar < d + 1) throw std::invalid_argument("Stage1Problem: d >= 1, dbar >= d + 1");
  if (gamma_.rows() != dbar || gamma_.cols() != dbar) throw std::invalid_argument("Stage1Problem: Gamma must be dbar x dbar");
  index_.resize(d + 1, d + 1);
  std::vector<Polynomial<Rational>> basis;
  int k = 0;
  for (int p = 0; p <= d; ++p)
    for (int q = p; q <= d; ++q) {
      Exponent e(static_cast<std::size_t>(d), 0);
      if (p > 0) ++e[static_cast<std::size_t>(p - 1)];
      if (q > 0) ++e[static_cast<std::size_t>(q - 1)];
      basis.push_back(Polynomial<Rational>::monomial(e, Rational(1)));
      index_(p, q) = index_(q, p) = k++;
    }
  base_ = feature_moments(basis, PolynomialTask::quadratic(d));
}

Eigen::MatrixXd Stage1Problem::coefficients(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  if (theta.size() != size()) throw std::invalid_argument("Stage1Problem: theta size");
  const int w = d_ + 1, off = dbar_ * w;
  Eigen::MatrixXd C = Eigen::MatrixXd::Zero(dbar_, m_);
  for (int j = 0; j < dbar_; ++j) {
    if (j <= d_) C(j, index_(0, j)) += 1.0;  // the residual: row j of the embedding (1, x, 0...)
    for (int p = 0; p <= d_; ++p)
      for (int q = 0; q <= d_; ++q) C(j, index_(p, q)) += theta[j * w + p] * theta[off + j * w + q];
  }
  return C;
}

FeatureMoments Stage1Problem::features(const Eigen::MatrixXd& C) const {
  FeatureMoments f;
  f.Lambda = C * base_.Lambda * C.transpose();
  f.S = C * base_.S * C.transpose();
  f.K4 = C * base_.K4 * C.transpose();
  f.Ey2 = base_.Ey2;
  return f;
}

double Stage1Problem::loss(const Eigen::Ref<const Eigen::VectorXd>& theta, double n, Eigen::VectorXd* grad) const {
  const Eigen::MatrixXd C = coefficients(theta);
  const FeatureMoments f = features(C);
  const double value = sparse_lsa_loss(f, gamma_, n);
  if (!grad) return value;
  const Eigen::MatrixXd N = (1 - 1 / n) * base_.S + (1 / n) * base_.K4;
  const Eigen::MatrixXd B = C * N * C.transpose();
  const Eigen::MatrixXd X = gamma_.transpose() * B * gamma_;
  const Eigen::MatrixXd Y = gamma_ * f.Lambda * gamma_.transpose();
  const Eigen::MatrixXd G = 2 * (gamma_ + gamma_.transpose()) * C * base_.S + (X + X.transpose()) * C * base_.Lambda +
                            (Y + Y.transpose()) * C * N;
  const int w = d_ + 1, off = dbar_ * w;
  grad->setZero(size());
  for (int j = 0; j < dbar_; ++j)
    for (int p = 0; p <= d_; ++p)
      for (int q = 0; q <= d_; ++q) {
        const double g = G(j, index_(p, q));
        (*grad)[j * w + p] += g * theta[off + j * w + q];
        (*grad)[off + j * w + q] += g * theta[j * w + p];
      }
  return value;
}

BilinearLayer Stage1Problem::layer(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  const int w = d_ + 1, off = dbar_ * w;
  BilinearLayer l;
  l.W0 = Eigen::MatrixXd::Zero(dbar_, dbar_);
  l.W1 = Eigen::MatrixXd::Zero(dbar_, dbar_);
  for (int j = 0; j < dbar_; ++j)
    for (int p = 0; p <= d_; ++p) {
      l.W0(j, p) = theta[j * w + p];
      l.W1(j, p) = theta[off + j * w + p];
    }
  return l;
}

Eigen::VectorXd Stage1Problem::target_spectrum() const {
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> es(base_.S, base_.Lambda);
  return es.eigenvalues();
}

Eigen::MatrixXd algorithm1_gamma(int dbar, int kind) {
  Eigen::VectorXd g(dbar);
  for (int i = 0; i < dbar; ++i) {
    if (kind == 0) g[i] = -1.0;
    else g[i] = -(0.5 + 1.5 * i / std::max(1, dbar - 1));
  }
  if (kind == 2) g[dbar - 1] = 1.0;  // mixed signs: one positive entry
  if (kind == 3) g.setOnes();        // positive definite: +I
  return g.asDiagonal();
}
const char* algorithm1_gamma_name(int kind) {
  return kind == 0 ? "-I" : kind == 1 ? "-diag(0.5..2)" : kind == 2 ? "-diag(0.5..2) with the last entry +1" : "+I";
}
int algorithm1_gamma_positive_entries(int kind, int dbar) { return kind == 2 ? 1 : kind == 3 ? dbar : 0; }

// theta whose layer computes identically zero features: a_j = e_0 (the constant 1), b_j = -e_j for the rows
// 1, x_1..x_d that the residual carries (their product cancels the residual), zero elsewhere.
Eigen::VectorXd zero_feature_theta(const Stage1Problem& pr) {
  const int d = pr.d(), dbar = pr.dbar(), w = d + 1;
  Eigen::VectorXd th = Eigen::VectorXd::Zero(pr.size());
  for (int j = 0; j <= d && j < dbar; ++j) {
    th[j * w] = 1.0;
    th[dbar * w + j * w + j] = -1.0;
  }
  return th;
}

// Stage 1 as a search (lib/icl/search): `starts` random starts (entries N(0, 0.5^2)), each refined by L-BFGS on the
// exact population loss; the selection value is -loss. No continuation (the loss is quartic in the weights).
Stage1Search algorithm1_stage1(const Stage1Problem& pr, double n, int starts, std::uint64_t seed, std::uint64_t purpose) {
  Stage1Search s;
  s.starts = starts;
  learn::LbfgsOptions o;
  o.max_iterations = 3000;
  o.gradient_tolerance = 1e-10;
  o.relative_decrease = 1e-14;
  o.initial_step = 0.1;
  const learn::Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& th, Eigen::VectorXd& g) {
    return pr.loss(th, n, &g);
  };
  SearchProblem sp;
  sp.dim = pr.size();
  sp.effort_unit = "L-BFGS iterations (at most)";
  for (int k = 0; k < starts; ++k) {
    PromptRng rng(seed, purpose, static_cast<std::uint64_t>(k));
    Eigen::VectorXd th(pr.size());
    rng.fill_normal(th);
    sp.structured.emplace_back(fmt::format("random N(0, 0.5^2) #{}", k + 1), th * 0.5);
  }
  sp.refine = [&](const Eigen::VectorXd& x, int effort, std::uint64_t) {
    o.max_iterations = effort;
    const auto r = learn::minimize_lbfgs(f, x, o);
    if (r.converged) ++s.converged;
    return Eigen::VectorXd(r.theta);
  };
  sp.select = [&](const Eigen::VectorXd& x) { return -pr.loss(x, n, nullptr); };
  SearchBudget b;
  b.random_starts = 0;
  b.continuation_steps = 0;
  b.refine_effort = 3000;
  b.final_effort = 0;
  b.improving_tol = 1e-9;
  s.search = search_maximum(sp, b, seed, purpose);
  s.theta = s.search.best.size() == pr.size() ? s.search.best : sp.structured.front().second;  // none finite: start 1
  s.loss = s.search.best.size() == pr.size() ? -s.search.best_value : pr.loss(s.theta, n, nullptr);
  std::vector<double> losses;  // the second-smallest start loss (ties count), as reported before the mechanism
  for (const auto& p : s.search.paths)
    if (!p.values.empty()) losses.push_back(-p.values.front());
  std::sort(losses.begin(), losses.end());
  if (losses.size() >= 2) s.second = losses[1];
  return s;
}

Algorithm1Run algorithm1_run(const Stage1Problem& pr, const GaussianIclModel& gm, int n, int starts, std::uint64_t seed,
                std::uint64_t purpose, bool general) {
  Algorithm1Run r;
  r.n = n;
  r.s1 = algorithm1_stage1(pr, n, starts, seed, purpose);
  const Eigen::MatrixXd C = pr.coefficients(r.s1.theta);
  const FeatureMoments f = pr.features(C);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(f.Lambda);
  r.sigma_min = std::sqrt(std::max(0.0, es.eigenvalues().minCoeff()));
  r.sigma_max = std::sqrt(std::max(0.0, es.eigenvalues().maxCoeff()));
  r.Gstar = optimal_sparse_gamma(f, n);
  r.loss2 = sparse_lsa_loss(f, r.Gstar, n);
  const Eigen::MatrixXd Lh = sqrt_psd(f.Lambda);
  r.delta = (Lh * r.Gstar * Lh + Eigen::MatrixXd::Identity(pr.dbar(), pr.dbar())).norm();
  r.layer = pr.layer(r.s1.theta);
  if (general) {
    // The features as the real layer computes them (exact/feature_moments.hpp), an independent route to the
    // same moments, and the general single layer searched from the sparse optimum and random starts.
    const SingleLayerMoments sm = single_layer_moments(gm, bilinear_features(r.layer, pr.d(), pr.dbar()));
    r.moment_check = (sm.Lambda - f.Lambda).norm() / f.Lambda.norm();
    Eigen::VectorXd b;
    Eigen::MatrixXd A;
    sparse_as_general(r.Gstar, b, A);
    r.general_best = alternating_single_layer(sm, n, b, A).loss;
    for (int k = 0; k < 2; ++k) {
      PromptRng rng(seed, purpose ^ 0x5eedULL, static_cast<std::uint64_t>(k));
      rng.fill_normal(b);
      rng.fill_normal(A);
      r.general_best = std::min(r.general_best, alternating_single_layer(sm, n, b, A).loss);
    }
  }
  return r;
}

}  // namespace icl::sja
