// The zfb population loss (lib/icl/zfb_population_loss.hpp), the gradient-flow integrator
// (lib/icl/gradient_flow.hpp) and the moment quadrature (lib/icl/moment_quadrature.hpp).
#include "icl/gaussian_moments.hpp"
#include "icl/gradient_flow.hpp"
#include "icl/moment_quadrature.hpp"
#include "icl/montecarlo.hpp"
#include "icl/zfb_population_loss.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace icl {
namespace {

using zfb::LsaWeights;
using zfb::PopulationLoss;

Eigen::MatrixXd random_matrix(int r, int c, std::uint64_t seed) {
  PromptRng rng(seed, 77, 0);
  Eigen::MatrixXd m(r, c);
  rng.fill_normal(m);
  return m;
}

Eigen::MatrixXd random_spd(int d, std::uint64_t seed) {
  const Eigen::MatrixXd a = random_matrix(d, d, seed);
  return a * a.transpose() / d + 0.3 * Eigen::MatrixXd::Identity(d, d);
}

LsaWeights random_weights(int d, std::uint64_t seed) {
  return {0.5 * random_matrix(d + 1, d + 1, seed), 0.5 * random_matrix(d + 1, d + 1, seed + 1)};
}

// 1/2 E[(yhat - y_q)^2] by the moment engine, expanding the forward pass symbolically in all
// (N + 2) d standard Gaussian variables: z_1..z_N, z_q (x = L z) and w. Independent of the closed form.
double loss_by_moment_engine(const LsaWeights& W, const Eigen::MatrixXd& lambda, int N) {
  using P = Polynomial<double>;
  const int d = static_cast<int>(lambda.rows()), n = d + 1, nv = (N + 2) * d;
  const Eigen::MatrixXd L = lambda.llt().matrixL();
  auto var = [&](int k) { return P::variable(nv, k); };
  std::vector<std::vector<P>> E(n, std::vector<P>(N + 1, P(nv)));
  for (int j = 0; j <= N; ++j)
    for (int i = 0; i < d; ++i)
      for (int k = 0; k <= i; ++k) E[i][j] += var(j * d + k) * L(i, k);
  const int wbase = (N + 1) * d;
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < d; ++i) E[d][j] += var(wbase + i) * E[i][j];
  P yq(nv);
  for (int i = 0; i < d; ++i) yq += var(wbase + i) * E[i][N];
  // yhat = sum_{a,b,c} pv(d,a) (E E^T)_ab kq(b,c) E_cN / N
  std::vector<P> r(n, P(nv));  // r_b = sum_a pv(d,a) (E E^T)_ab
  for (int a = 0; a < n; ++a) {
    if (W.pv(d, a) == 0) continue;
    for (int b = 0; b < n; ++b) {
      P eab(nv);
      for (int j = 0; j <= N; ++j) eab += E[a][j] * E[b][j];
      r[b] += eab * W.pv(d, a);
    }
  }
  P s(nv);  // sum_c kq(b,c) E_cN
  P yhat(nv);
  for (int b = 0; b < n; ++b) {
    P t(nv);
    for (int c = 0; c < n; ++c) t += E[c][N] * W.kq(b, c);
    yhat += r[b] * t;
  }
  yhat *= 1.0 / N;
  const P e = yhat - yq;
  return 0.5 * (e * e).gaussian_expectation();
}

}  // namespace

TEST_CASE("zfb population loss equals the moment engine's direct expansion of the forward pass") {
  struct Tiny {
    int d, N;
  };
  for (const Tiny t : {Tiny{1, 1}, Tiny{1, 3}, Tiny{2, 1}, Tiny{2, 2}}) {
    const Eigen::MatrixXd lambda = random_spd(t.d, 10 + t.d);  // not diagonal for d = 2
    const LsaWeights W = random_weights(t.d, 100 + t.N);
    const double closed = PopulationLoss::gaussian(lambda, t.N).loss(W);
    const double engine = loss_by_moment_engine(W, lambda, t.N);
    INFO("d=" << t.d << " N=" << t.N << " closed form " << closed << " moment engine " << engine);
    CHECK(std::abs(closed - engine) <= 1e-10 * std::max(1.0, std::abs(engine)));
  }
}

TEST_CASE("zfb closed-form gradient equals central finite differences of the closed-form loss") {
  const int d = 3, N = 4;
  const PopulationLoss pl = PopulationLoss::gaussian(random_spd(d, 5), N);
  const Eigen::VectorXd theta = random_weights(d, 9).theta();
  Eigen::VectorXd g(theta.size()), dummy(theta.size());
  pl.loss_and_gradient(theta, g);
  double worst = 0;
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    const double h = 1e-5;
    Eigen::VectorXd tp = theta, tm = theta;
    tp[k] += h;
    tm[k] -= h;
    const double fd = (pl.loss_and_gradient(tp, dummy) - pl.loss_and_gradient(tm, dummy)) / (2 * h);
    worst = std::max(worst, std::abs(fd - g[k]) / std::max(1.0, std::abs(g[k])));
  }
  INFO("worst relative difference " << worst << ", ||grad|| = " << g.norm());
  CHECK(worst < 1e-7);
  CHECK(g.norm() > 1e-3);  // a real test point, not a stationary one
}

TEST_CASE("zfb per-prompt gradient (backpropagation) equals finite differences of the forward pass") {
  const int d = 2, N = 5;
  zfb::PromptModel m;
  m.d = d;
  m.N = N;
  m.chol = random_spd(d, 3).llt().matrixL();
  m.with_gradient = true;
  const Eigen::VectorXd theta = random_weights(d, 21).theta();
  std::vector<double> out(m.dims()), op(m.dims()), om(m.dims());
  zfb::PromptWorker(LsaWeights::from_theta(d, theta), m, 1, 2)(7, out.data());
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    const double h = 1e-6;
    Eigen::VectorXd tp = theta, tm = theta;
    tp[k] += h;
    tm[k] -= h;
    zfb::PromptWorker(LsaWeights::from_theta(d, tp), m, 1, 2)(7, op.data());
    zfb::PromptWorker(LsaWeights::from_theta(d, tm), m, 1, 2)(7, om.data());
    const double fd = (op[0] - om[0]) / (2 * h);
    INFO("component " << k << ": backprop " << out[3 + k] << " finite difference " << fd);
    CHECK(std::abs(fd - out[3 + k]) <= 1e-6 * std::max(1.0, std::abs(fd)));
  }
}

TEST_CASE("zfb population loss and gradient agree with Monte Carlo through the forward pass") {
  const int d = 2, N = 3;
  const Eigen::MatrixXd lambda = random_spd(d, 31);
  const PopulationLoss pl = PopulationLoss::gaussian(lambda, N);
  const LsaWeights W = random_weights(d, 41);
  Eigen::VectorXd g(zfb::theta_size(d));
  const double L = pl.loss_and_gradient(W.theta(), g);
  zfb::PromptModel m;
  m.d = d;
  m.N = N;
  m.chol = lambda.llt().matrixL();
  m.with_gradient = true;
  MonteCarlo mc(m.dims(), 2);
  mc.extend_to(1 << 18, [&] { return zfb::PromptWorker(W, m, 5, 6); });
  const Accumulator acc = mc.total();
  auto z = [&](int k, double exact) {
    const double se = std::sqrt(acc.variance(k) / static_cast<double>(acc.count));
    return se > 0 ? (acc.mean[k] - exact) / se : (acc.mean[k] == exact ? 0.0 : INFINITY);
  };
  // 1 + 18 tests at |z| < 4.5: a false failure has probability < 2e-4 in all.
  INFO("loss exact " << L << " MC " << acc.mean[0]);
  CHECK(std::abs(z(0, L)) < 4.5);
  for (int k = 0; k < g.size(); ++k) {
    INFO("gradient component " << k << " exact " << g[k] << " MC " << acc.mean[3 + k]);
    CHECK(std::abs(z(3 + k, g[k])) < 4.5);
  }
  // The MC gradient must actually resolve the gradient (the test could otherwise not fail).
  double se_max = 0;
  for (int k = 0; k < g.size(); ++k) se_max = std::max(se_max, std::sqrt(acc.variance(3 + k) / acc.count));
  CHECK(se_max < 0.05 * g.norm());
}

TEST_CASE("gradient flow integrator reproduces the solution of a linear ODE") {
  // L = 1/2 x^T A x - b^T x: the flow x' = b - A x has x(t) = x* + V exp(-D t) V^T (x0 - x*).
  const int n = 4;
  Eigen::MatrixXd Q = random_matrix(n, n, 3).householderQr().householderQ();
  const Eigen::VectorXd D = (Eigen::VectorXd(n) << 0.5, 1.0, 2.0, 5.0).finished();
  const Eigen::MatrixXd A = Q * D.asDiagonal() * Q.transpose();
  const Eigen::VectorXd b = random_matrix(n, 1, 4), x0 = random_matrix(n, 1, 5);
  const Eigen::VectorXd xs = A.ldlt().solve(b);
  auto exact = [&](double t) {
    Eigen::VectorXd e = (-D * t).array().exp();
    return Eigen::VectorXd(xs + Q * e.asDiagonal() * Q.transpose() * (x0 - xs));
  };
  auto loss = [&](const Eigen::Ref<const Eigen::VectorXd>& x) { return 0.5 * x.dot(A * x) - b.dot(x); };
  LossFunction f = [&](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) {
    g = A * x - b;
    return loss(x);
  };
  FlowOptions opt;
  opt.grad_tol = 1e-9;
  opt.t_max = 1e3;
  opt.trace_t_min = 0.05;
  opt.trace_per_decade = 6;
  const FlowResult r = gradient_flow(f, x0, opt, [&](const Eigen::Ref<const Eigen::VectorXd>& x) { return (x - xs).norm(); });
  CHECK(r.status == FlowStatus::converged);
  // ||grad(t)|| = ||A (x(t) - x*)|| decreases monotonically: the tolerance is first met at t*, found by
  // bisection on the exact solution; the integrator checks after every step, so t* <= t_end <= t* + max_dt.
  auto gnorm = [&](double t) { return (A * (exact(t) - xs)).norm(); };
  double lo = 0, hi = 1e3;
  for (int k = 0; k < 200; ++k) (gnorm(0.5 * (lo + hi)) < opt.grad_tol ? hi : lo) = 0.5 * (lo + hi);
  INFO("t* = " << hi << ", t_end = " << r.t_end << ", max dt = " << r.max_dt);
  CHECK(r.t_end >= hi - 1e-6);
  CHECK(r.t_end <= hi + r.max_dt + 1e-6);
  CHECK(r.trace.size() > 10);
  for (const auto& s : r.trace) {
    const Eigen::VectorXd xe = exact(s.t);
    INFO("t = " << s.t << " loss " << s.loss << " exact " << loss(xe));
    CHECK(std::abs(s.loss - loss(xe)) < 1e-8 * (1 + std::abs(loss(xe))));
    CHECK(std::abs(s.distance - (xe - xs).norm()) < 1e-7);
  }
  CHECK((r.theta - xs).norm() < 1e-8);
}

TEST_CASE("gradient flow integrator reports time limits, stiffness and blow-up as such") {
  const int n = 2;
  Eigen::MatrixXd A(n, n);
  A << 1e-3, 0, 0, 1e4;  // stiffness ratio 1e7 for an explicit method
  LossFunction stiff = [&](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) {
    g = A * x;
    return 0.5 * x.dot(A * x);
  };
  FlowOptions opt;
  opt.max_steps = 20000;
  opt.t_max = 1e9;
  const Eigen::VectorXd x0 = Eigen::VectorXd::Ones(n);
  const FlowResult r1 = gradient_flow(stiff, x0, opt);
  CHECK(r1.status == FlowStatus::step_limit);
  CHECK(r1.max_dt < 1e-2);  // the fast mode caps the step
  opt.max_steps = 2000000;
  opt.t_max = 1.0;
  const FlowResult r2 = gradient_flow(stiff, x0, opt);
  CHECK(r2.status == FlowStatus::time_limit);
  LossFunction concave = [](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) {
    g = -x;
    return -0.5 * x.squaredNorm();
  };
  opt.t_max = 1e6;
  opt.blowup_norm = 1e6;
  const FlowResult r3 = gradient_flow(concave, x0, opt);
  CHECK(r3.status == FlowStatus::blow_up);
  CHECK(r3.t_end == doctest::Approx(std::log(1e6 / std::sqrt(2.0))).epsilon(0.05));
}

TEST_CASE("moment quadrature: the 2-point rule integrates the random-covariance zfb loss exactly") {
  // Exp(1): m_k = k!. The 2-point rule (moments to 3) and the 3-point rule (moments to 5) must give the
  // same loss for a cubic-in-Lambda integrand; a quartic integrand would tell them apart.
  const GaussRule r2 = gauss_rule_from_moments({1, 1, 2, 6}, 2);
  const GaussRule r3 = gauss_rule_from_moments({1, 1, 2, 6, 24, 120}, 3);
  for (int k = 0; k <= 5; ++k) {
    double s = 0;
    for (int i = 0; i < 3; ++i) s += r3.weights[i] * std::pow(r3.nodes[i], k);
    CHECK(s == doctest::Approx(std::tgamma(k + 1.0)).epsilon(1e-10));
  }
  double q4 = 0;
  for (int i = 0; i < 2; ++i) q4 += r2.weights[i] * std::pow(r2.nodes[i], 4);
  CHECK(std::abs(q4 - 24) > 1);  // the 2-point rule is not exact beyond degree 3
  const int d = 2, N = 3;
  auto tensor = [&](const GaussRule& r) {
    std::vector<double> w;
    std::vector<Eigen::MatrixXd> L;
    const int k = static_cast<int>(r.nodes.size());
    for (int i = 0; i < k; ++i)
      for (int j = 0; j < k; ++j) {
        w.push_back(r.weights[i] * r.weights[j]);
        L.push_back(Eigen::Vector2d(r.nodes[i], r.nodes[j]).asDiagonal());
      }
    return PopulationLoss::mixture(w, L, N);
  };
  const LsaWeights W = random_weights(d, 8);
  const double l2 = tensor(r2).loss(W), l3 = tensor(r3).loss(W);
  INFO("2-point " << l2 << " 3-point " << l3);
  CHECK(std::abs(l2 - l3) < 1e-10 * std::abs(l3));
  const double lr = PopulationLoss::random_diagonal(r2.nodes, r2.weights, d, N).loss(W);
  CHECK(std::abs(lr - l2) < 1e-12 * std::abs(l2));
  // Boost.Math moments of Exp(1) are 1, 1, 2, 6.
  const auto m = PositiveDistribution::parse(0).raw_moments_to_3();
  CHECK(m[1] == doctest::Approx(1));
  CHECK(m[2] == doctest::Approx(2));
  CHECK(m[3] == doctest::Approx(6));
}

}  // namespace icl
