// The population loss of one unmasked LSA layer (lib/icl/exact/lsa_population_loss.hpp): the closed form
// against the moment engine's direct expansion and against Monte Carlo through the forward pass
// (lib/icl/montecarlo/lsa_prompt_worker.hpp); the closed-form and per-prompt gradients against finite
// differences.
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/exact/lsa_population_loss.hpp"
#include "icl/montecarlo/lsa_prompt_worker.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace icl {
namespace test_lsa_population_loss {  // named: a unity build compiles several test files as one unit
namespace {

using test::random_matrix;
using test::random_spd;

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
  LsaPromptModel m;
  m.d = d;
  m.N = N;
  m.chol = random_spd(d, 3).llt().matrixL();
  m.with_gradient = true;
  const Eigen::VectorXd theta = random_weights(d, 21).theta();
  std::vector<double> out(m.dims()), op(m.dims()), om(m.dims());
  LsaPromptWorker(LsaWeights::from_theta(d, theta), m, 1, 2)(7, out.data());
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    const double h = 1e-6;
    Eigen::VectorXd tp = theta, tm = theta;
    tp[k] += h;
    tm[k] -= h;
    LsaPromptWorker(LsaWeights::from_theta(d, tp), m, 1, 2)(7, op.data());
    LsaPromptWorker(LsaWeights::from_theta(d, tm), m, 1, 2)(7, om.data());
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
  Eigen::VectorXd g(theta_size(d));
  const double L = pl.loss_and_gradient(W.theta(), g);
  LsaPromptModel m;
  m.d = d;
  m.N = N;
  m.chol = lambda.llt().matrixL();
  m.with_gradient = true;
  MonteCarlo mc(m.dims(), 2);
  mc.extend_to(1 << 18, [&] { return LsaPromptWorker(W, m, 5, 6); });
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

}  // namespace test_lsa_population_loss
}  // namespace icl
