// sja App. C construction (constructions/sja_appC.hpp): the bilinear layer must turn the prompt
// column (1, x, 0, ..., 0, y) into (xbar(x), y) with xbar the features (7):
//   1, x_1..x_d, then for 1 <= j <= k <= d: x_j^2 - 1 (j = k) or x_j x_k (j < k),
// and appC_gamma must be -E[xbar xbar^T]^{-1} = -diag(1, 1 (x), 1/2 (squares), 1 (cross terms)). The block's
// setting (AppCSetting): its exact loss is C(d)/n with the constant derived by hand, its Monte Carlo agrees, and
// Figure 3's protocol (fig3_protocol_r2) is the same at any thread count.
#include "constructions/sja_appC.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace test_sja_appC {  // named: a unity build compiles several test files as one unit

namespace {

// xbar(x) written out from the paper's (7), independently of kernel_features.
std::vector<double> xbar_by_hand(const Eigen::VectorXd& x) {
  const int d = static_cast<int>(x.size());
  std::vector<double> v{1.0};
  for (int j = 0; j < d; ++j) v.push_back(x[j]);
  for (int j = 0; j < d; ++j)
    for (int k = j; k < d; ++k) v.push_back(j == k ? x[j] * x[j] - 1.0 : x[j] * x[k]);
  return v;
}

}  // namespace

TEST_CASE("kernel_width is C(d+2, 2)") {
  const int expected[] = {0, 3, 6, 10, 15, 21, 28, 36, 45};
  for (int d = 1; d <= 8; ++d) {
    CAPTURE(d);
    CHECK(icl::sja::kernel_width(d) == expected[d]);
    CHECK(icl::sja::kernel_width(d) == 1 + d + d * (d + 1) / 2);
    CHECK(static_cast<int>(icl::sja::kernel_features(d).size()) == expected[d]);
  }
}

TEST_CASE("kernel_features evaluate to the features (7) in the paper's order") {
  icl::PromptRng rng(7, icl::stable_hash("test_sja_appC/features"), 0);
  for (int d = 1; d <= 5; ++d) {
    Eigen::VectorXd x(d);
    rng.fill_normal(x);
    const auto f = icl::sja::kernel_features(d);
    const auto hand = xbar_by_hand(x);
    REQUIRE(f.size() == hand.size());
    for (std::size_t a = 0; a < f.size(); ++a) {
      CAPTURE(d);
      CAPTURE(a);
      CHECK(f[a].evaluate(x.data()) == doctest::Approx(hand[a]).epsilon(1e-14));
    }
  }
}

TEST_CASE("App. C bilinear layer maps the prompt (1, x, 0, y) to (xbar(x), y) exactly") {
  for (int d = 1; d <= 5; ++d) {
    const int dbar = icl::sja::kernel_width(d);
    const int n = 7;
    const auto shape = icl::sja_shape(d, dbar, n);
    for (std::uint64_t trial = 0; trial < 20; ++trial) {
      icl::PromptRng rng(2024, icl::stable_hash("test_sja_appC/bilinear"), trial * 16 + d);
      Eigen::MatrixXd X(d, n + 1);
      rng.fill_normal(X);
      X *= 1.0 + static_cast<double>(trial % 4);  // also inputs far from the unit scale
      Eigen::RowVectorXd y(n + 1);
      rng.fill_normal(y);
      Eigen::MatrixXd Z(shape.rows(), shape.cols());
      icl::embed(shape, X, y, Z);
      const Eigen::MatrixXd before = Z;
      icl::ForwardWorkspace ws;
      icl::sja::appC_bilinear(d).apply(Z, ws);
      for (int c = 0; c <= n; ++c) {
        const auto hand = xbar_by_hand(X.col(c));
        REQUIRE(static_cast<int>(hand.size()) == dbar);
        for (int r = 0; r < dbar; ++r) {
          CAPTURE(d);
          CAPTURE(trial);
          CAPTURE(c);
          CAPTURE(r);
          // The layer forms x_j^2 - 1 as (x_j - 1)(x_j + 1): equal up to rounding only.
          CHECK(Z(r, c) == doctest::Approx(hand[r]).epsilon(1e-13).scale(1.0));
        }
        CHECK(Z(dbar, c) == before(dbar, c));  // the label row passes through
      }
      CHECK(Z(dbar, n) == 0.0);  // the query label stays absent
    }
  }
}

TEST_CASE("appC_gamma = -E[xbar xbar^T]^{-1} = -diag(1, 1.., 1/2 for squares, 1 for cross terms)") {
  for (int d = 1; d <= 5; ++d) {
    CAPTURE(d);
    const int dbar = icl::sja::kernel_width(d);
    Eigen::VectorXd diag(dbar);
    int a = 0;
    diag[a++] = 1.0;
    for (int j = 0; j < d; ++j) diag[a++] = 1.0;
    for (int j = 0; j < d; ++j)
      for (int k = j; k < d; ++k) diag[a++] = j == k ? 0.5 : 1.0;
    const Eigen::MatrixXd expected = -Eigen::MatrixXd(diag.asDiagonal());
    const Eigen::MatrixXd gamma = icl::sja::appC_gamma(d);
    REQUIRE(gamma.rows() == dbar);
    REQUIRE(gamma.cols() == dbar);
    CHECK((gamma - expected).cwiseAbs().maxCoeff() <= 1e-14);

    // Gamma inverts the moment matrix: Gamma * Lambda = -I, with Lambda from exact moments.
    const auto f = icl::sja::kernel_features(d);
    const Eigen::MatrixXd lambda = icl::to_eigen(
        icl::moment_matrix(f, f, icl::Polynomial<icl::Rational>::constant(d, icl::Rational(1))));
    CHECK((gamma * lambda + Eigen::MatrixXd::Identity(dbar, dbar)).cwiseAbs().maxCoeff() <= 1e-13);
  }
}

TEST_CASE("sparse_attention(Gamma): P = e e^T, Q = diag(Gamma, 0), masked") {
  Eigen::MatrixXd G(2, 2);
  G << 1, 2,  //
      3, 4;
  const auto a = icl::sja::sparse_attention(G);
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(3, 3), Q = Eigen::MatrixXd::Zero(3, 3);
  P(2, 2) = 1;
  Q.topLeftCorner(2, 2) = G;
  CHECK(a.P == P);
  CHECK(a.Q == Q);
  CHECK(a.masked);
  CHECK(a.scale == 0.0);
}

TEST_CASE("appC_block predicts (1/n) sum_i y_i xbar_i^T Gamma xbar_q") {
  for (int d = 1; d <= 3; ++d) {
    const int dbar = icl::sja::kernel_width(d), n = 9;
    const auto shape = icl::sja_shape(d, dbar, n);
    icl::PromptRng rng(99, icl::stable_hash("test_sja_appC/block"), d);
    Eigen::MatrixXd X(d, n + 1);
    rng.fill_normal(X);
    Eigen::RowVectorXd y(n + 1);
    rng.fill_normal(y);
    Eigen::MatrixXd Z(shape.rows(), shape.cols());
    icl::embed(shape, X, y, Z);
    icl::ForwardWorkspace ws;
    const auto block = icl::sja::appC_block(d);
    REQUIRE(block.layers.size() == 2);
    block.forward(Z, ws);

    const Eigen::MatrixXd gamma = icl::sja::appC_gamma(d);
    const auto q = xbar_by_hand(X.col(n));
    const Eigen::VectorXd xq = Eigen::Map<const Eigen::VectorXd>(q.data(), dbar);
    double expected = 0;
    for (int i = 0; i < n; ++i) {
      const auto v = xbar_by_hand(X.col(i));
      expected += y[i] * Eigen::Map<const Eigen::VectorXd>(v.data(), dbar).dot(gamma * xq);
    }
    expected /= n;
    CAPTURE(d);
    CHECK(icl::prediction(Z) == doctest::Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("orthonormal_gram: the v_ij's exact Gram matrix is the identity; a wrong scale is named as the failure") {
  for (int d = 1; d <= 4; ++d) {
    const icl::sja::OrthonormalFeatures f = icl::sja::orthonormal_features(d);
    const icl::sja::OrthonormalGram g = icl::sja::orthonormal_gram(d, f);
    CHECK(g.identity);
    CHECK(g.first_failure.empty());
    CHECK(g.gram == Eigen::MatrixXd::Identity(icl::sja::kernel_width(d), icl::sja::kernel_width(d)));
  }
  icl::sja::OrthonormalFeatures f = icl::sja::orthonormal_features(1);  // v00, v01, v11 = (x^2 - 1)/sqrt(2)
  f.scale_squared[2] = icl::Rational(1);                            // x^2 - 1 without the 1/sqrt(2): E[(x^2 - 1)^2] = 2
  const icl::sja::OrthonormalGram g = icl::sja::orthonormal_gram(1, f);
  CHECK_FALSE(g.identity);
  CHECK(g.first_failure == "<v11, v11> = 2");
  CHECK(g.gram(2, 2) == 2.0);
}

TEST_CASE("AppCSetting: the exact loss is C(d)/n, C = d(d^3 + 18d^2 + 95d + 142)/4, and Monte Carlo agrees") {
  // C(1) = 64, C(2) = 206 (sja.thm2's corrected constant, derived by hand term by term).
  for (int d : {1, 2}) {
    CAPTURE(d);
    const icl::sja::AppCSetting u(d);
    const double C = d * (d * d * d + 18.0 * d * d + 95.0 * d + 142.0) / 4.0;
    CHECK(u.dbar == icl::sja::kernel_width(d));
    for (int n : {5, 40, 1000}) CHECK(u.exact_loss(n) * n == doctest::Approx(C).epsilon(1e-10));
    // the split block: the bilinear layer, then the masked attention; Psi symmetric positive semidefinite
    REQUIRE(u.features.layers.size() == 1);
    REQUIRE(u.attention.layers.size() == 1);
    CHECK((u.Psi - u.Psi.transpose()).norm() <= 1e-12 * u.Psi.norm());
    CHECK(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(u.Psi).eigenvalues().minCoeff() > -1e-9 * u.Psi.norm());
  }
  // The conditional Monte Carlo at d = 1, n = 10 (exact 6.4): mean within 5 standard errors, the same at 1 and 2
  // threads, and its variance below the plain squared error's.
  const icl::sja::AppCSetting u(1);
  const icl::Accumulator a1 = u.conditional_mc(10, 4096, 1, 3, 0x77), a2 = u.conditional_mc(10, 4096, 2, 3, 0x77);
  CHECK(a1.count == 4096);
  CHECK(a1.mean.at(1) == a2.mean.at(1));
  const icl::Estimate e = icl::make_estimate(a1, 1, 0.99);
  CHECK(std::abs(e.mean - 6.4) < 5 * e.stderr_);
  CHECK(a1.variance(1) < a1.variance(0));
}

TEST_CASE("fig3_protocol_r2: r^2 in [0, 1], the same at any thread count, near 1 for a clean 1/n loss") {
  const icl::sja::AppCSetting u(1);
  const std::vector<int> ns{10, 100, 1000};
  const std::vector<std::uint64_t> purposes{1, 2, 3};
  const std::vector<double> logn{std::log(10.0), std::log(100.0), std::log(1000.0)};
  const std::vector<double> r1 = icl::sja::fig3_protocol_r2(u, ns, purposes, logn, 6, 50, 9, 1);
  const std::vector<double> r2 = icl::sja::fig3_protocol_r2(u, ns, purposes, logn, 6, 50, 9, 2);
  REQUIRE(r1.size() == 6);
  CHECK(r1 == r2);
  for (double v : r1) {
    CHECK(v >= 0.0);
    CHECK(v <= 1.0);
  }
  // the losses fall like 64/n over two decades: the log-log line explains most of the spread
  CHECK(*std::min_element(r1.begin(), r1.end()) > 0.5);
  CHECK_THROWS_AS(icl::sja::fig3_protocol_r2(u, ns, {1, 2}, logn, 6, 50, 9, 1), std::invalid_argument);
}

}  // namespace test_sja_appC
