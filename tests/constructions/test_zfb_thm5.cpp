// Theorem 5's limit model and family (constructions/zfb_thm5) by hand: at Lam = I_d, Gam = (1 + (1 + d)/N) I; the
// LSA's value and key scales multiply to Gam^-1; the tasks; the exact scan's 1080 points in their order; the search
// space's encoding round trip and its continuation, which scales the log-spectrum's spread about its mean.
#include "constructions/zfb_thm5.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_zfb_thm5 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("Theorem 5 limit model at Lam = I: Gam, Gam^-2, the LSA's scales") {
  const int d = 3, N = 4;
  const zfb::Thm5Setting s = zfb::thm5_setting(Eigen::MatrixXd::Identity(d, d), N);
  CHECK(s.trL == 3.0);
  CHECK(s.kappa == doctest::Approx(1.0));
  CHECK(s.Gam.isApprox((1 + 1.0 / N + 3.0 / N) * Eigen::MatrixXd::Identity(d, d)));  // 2 I
  CHECK(s.Gm2.isApprox(0.25 * Eigen::MatrixXd::Identity(d, d)));
  const LinearSelfAttention a = zfb::thm5_limit_model(s, 7);
  CHECK_FALSE(a.masked);
  CHECK(a.scale == doctest::Approx(1.0 / 7));
  // P(d, d) * Q's top-left block = Gam^-1 (the tr(Gam^-2)^{1/4} factors cancel)
  CHECK((a.P(d, d) * a.Q.topLeftCorner(d, d)).isApprox(s.Gam_inv));
  CHECK(a.P(d, d) == doctest::Approx(std::pow(0.75, 0.25)));
}

TEST_CASE("Theorem 5 tasks: fixed coefficients, noise, and w drawn per prompt") {
  const Eigen::MatrixXd Lam = Eigen::MatrixXd::Identity(2, 2);
  CHECK_FALSE(zfb::thm5_task(0, 2, Lam, 1, 2).random_w);
  CHECK(zfb::thm5_task(1, 2, Lam, 1, 2).noise_sd == 0.5);
  CHECK(zfb::thm5_task(0, 2, Lam, 1, 2).fixed_w == zfb::thm5_task(1, 2, Lam, 1, 2).fixed_w);  // the same stream
  CHECK(zfb::thm5_task(2, 2, Lam, 1, 2).fixed_w.size() == 6);  // 1, x1, x2, x1^2, x1 x2, x2^2
  CHECK(zfb::thm5_task(3, 2, Lam, 1, 2).random_w);
  CHECK(zfb::thm5_task_name(3) == "noiseless linear, w ~ N(0, I)");
}

TEST_CASE("Theorem 5 scan family and search space") {
  int count = 0;
  zfb::Thm5ScanPoint last;
  zfb::thm5_scan_family([&](const zfb::Thm5ScanPoint& q) {
    if (count == 0) CHECK((q.d == 1 && q.kappa == 1.0 && q.shape == 0 && q.N == 1 && q.M == 1));
    if (q.d == 3 && q.kappa == 100.0 && q.shape == 0) CHECK(q.lam[1] == doctest::Approx(10.0));  // geometric
    if (q.d == 3 && q.kappa == 10.0 && q.shape == 2) CHECK((q.lam[0] == 1.0 && q.lam[2] == 10.0));  // one small
    ++count;
    last = q;
  });
  CHECK(count == 4 * 3 * 3 * 6 * 5);
  CHECK((last.d == 4 && last.N == 10000 && last.M == 10000));

  Eigen::VectorXd lam(2);
  lam << 0.5, 8.0;
  const Eigen::VectorXd x = zfb::thm5_encode(lam, 20, 3);
  Eigen::VectorXd back;
  int N = 0, M = 0;
  zfb::thm5_decode(2, x, back, N, M);
  CHECK(back.isApprox(lam));
  CHECK(N == 20);
  CHECK(M == 3);
  const SearchProblem pr = zfb::thm5_search_problem(2, [](const Eigen::VectorXd& v) { return -v.squaredNorm(); }, x, "x");
  CHECK(pr.dim == 4);
  CHECK(pr.structured.front().first == "x");
  const Eigen::VectorXd y = pr.rescale(x, 2.0);
  CHECK(y.head(2).mean() == doctest::Approx(x.head(2).mean()));
  CHECK(y[1] - y[0] == doctest::Approx(2 * (x[1] - x[0])));
  CHECK(y.tail(2) == x.tail(2));
  CHECK(pr.select(x) == doctest::Approx(-x.squaredNorm()));
}

}  // namespace test_zfb_thm5
