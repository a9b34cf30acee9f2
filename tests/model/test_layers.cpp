// The paper layers' in-place pass and a stack's (lib/icl/layers/network.hpp) against the formulas written out naively
// (Z + scale * P Z M (Z^T Q Z), the O(D N^2) association the papers print) and against small
// cases computed by hand.
#include "icl/layers/network.hpp"
#include "icl/model/rng.hpp"

#include <doctest/doctest.h>

#include <vector>

namespace test_layers {  // named: a unity build compiles several test files as one unit

namespace {

Eigen::MatrixXd random_matrix(Eigen::Index r, Eigen::Index c, std::uint64_t tag) {
  icl::PromptRng rng(12345, icl::stable_hash("test_layers"), tag);
  Eigen::MatrixXd m(r, c);
  rng.fill_normal(m);
  return m;
}

// Z + scale * P Z M (Z^T Q Z), M = diag(I_n, 0) if masked else I_{n+1}: the papers' association.
Eigen::MatrixXd naive_lsa(const Eigen::MatrixXd& Z, const Eigen::MatrixXd& P, const Eigen::MatrixXd& Q, bool masked,
                          double scale) {
  const Eigen::Index N = Z.cols();
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(N, N);
  if (masked) M(N - 1, N - 1) = 0.0;
  const Eigen::MatrixXd inner = Z.transpose() * Q * Z;  // N x N
  return Z + scale * (P * Z * M * inner);
}

// Z + (diag(W0, 0) Z) .* (diag(W1, 0) Z), with the block-diagonal matrices built in full.
Eigen::MatrixXd naive_bilinear(const Eigen::MatrixXd& Z, const Eigen::MatrixXd& W0, const Eigen::MatrixXd& W1) {
  const Eigen::Index D = Z.rows();
  Eigen::MatrixXd B0 = Eigen::MatrixXd::Zero(D, D), B1 = Eigen::MatrixXd::Zero(D, D);
  B0.topLeftCorner(D - 1, D - 1) = W0;
  B1.topLeftCorner(D - 1, D - 1) = W1;
  return Z + (B0 * Z).cwiseProduct(B1 * Z);
}

double max_abs_diff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("LinearSelfAttention: tiny case computed by hand") {
  // Columns (x1, y1) = (1, 3) and the query (x_q, 0) = (2, 0); n = 1, so the default scale is 1.
  Eigen::MatrixXd Z(2, 2);
  Z << 1, 2,  //
      3, 0;
  icl::ForwardWorkspace ws;

  SUBCASE("P = Q = I, masked: Z + z1 z1^T Z") {
    icl::LinearSelfAttention a{Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Identity(2, 2), true, 0.0};
    Eigen::MatrixXd out = Z;
    a.apply(out, ws);
    // z1 z1^T = [[1,3],[3,9]]; times Z = [[10,2],[30,6]].
    Eigen::MatrixXd expected(2, 2);
    expected << 11, 4,  //
        33, 6;
    CHECK(out == expected);
  }
  SUBCASE("P = Q = I, unmasked: Z + Z Z^T Z (the query is a key too)") {
    icl::LinearSelfAttention a{Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Identity(2, 2), false, 0.0};
    Eigen::MatrixXd out = Z;
    a.apply(out, ws);
    // Z Z^T = [[5,3],[3,9]]; times Z = [[14,10],[30,6]].
    Eigen::MatrixXd expected(2, 2);
    expected << 15, 12,  //
        33, 6;
    CHECK(out == expected);
  }
  SUBCASE("sparse form P = e e^T, Q = diag(Gamma, 0): prediction y1 x1 Gamma x_q / n") {
    Eigen::MatrixXd P = Eigen::MatrixXd::Zero(2, 2), Q = Eigen::MatrixXd::Zero(2, 2);
    P(1, 1) = 1;
    Q(0, 0) = 2;  // Gamma = 2
    icl::LinearSelfAttention a{P, Q, true, 0.0};
    Eigen::MatrixXd out = Z;
    a.apply(out, ws);
    Eigen::MatrixXd expected(2, 2);
    expected << 1, 2,  //
        9, 12;          // 3 + 3*1*2*1, 0 + 3*1*2*2
    CHECK(out == expected);
  }
  SUBCASE("explicit scale 0.5") {
    icl::LinearSelfAttention a{Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Identity(2, 2), true, 0.5};
    Eigen::MatrixXd out = Z;
    a.apply(out, ws);
    Eigen::MatrixXd expected(2, 2);
    expected << 6, 3,  //
        18, 3;
    CHECK(out == expected);
  }
}

TEST_CASE("LinearSelfAttention equals the naive Z + scale P Z M (Z^T Q Z)") {
  icl::ForwardWorkspace ws;
  std::uint64_t tag = 0;
  for (int D : {2, 3, 5})
    for (int N : {2, 4, 9})
      for (bool masked : {true, false})
        for (double scale : {0.0, 0.37}) {
          CAPTURE(D);
          CAPTURE(N);
          CAPTURE(masked);
          CAPTURE(scale);
          const Eigen::MatrixXd Z = random_matrix(D, N, ++tag);
          const Eigen::MatrixXd P = random_matrix(D, D, ++tag), Q = random_matrix(D, D, ++tag);
          icl::LinearSelfAttention a{P, Q, masked, scale};
          Eigen::MatrixXd out = Z;
          a.apply(out, ws);
          // scale 0 means 1/n with n = N - 1 context columns (masked or not).
          const double s = scale != 0.0 ? scale : 1.0 / (N - 1);
          const Eigen::MatrixXd expected = naive_lsa(Z, P, Q, masked, s);
          CHECK(max_abs_diff(out, expected) <= 1e-12 * (1.0 + expected.cwiseAbs().maxCoeff()));
          // The default scale is exactly 1/n, not 1/(n+1) or 1: the others are far off.
          if (scale == 0.0) {
            const Eigen::MatrixXd other = naive_lsa(Z, P, Q, masked, 1.0 / N);
            CHECK(max_abs_diff(out, other) > 1e-6);
          }
        }
}

TEST_CASE("LinearSelfAttention: masked and unmasked differ by the query column's own term") {
  const int D = 4, N = 6;
  const Eigen::MatrixXd Z = random_matrix(D, N, 100);
  const Eigen::MatrixXd P = random_matrix(D, D, 101), Q = random_matrix(D, D, 102);
  icl::ForwardWorkspace ws;
  Eigen::MatrixXd zm = Z, zu = Z;
  icl::LinearSelfAttention{P, Q, true, 0.0}.apply(zm, ws);
  icl::LinearSelfAttention{P, Q, false, 0.0}.apply(zu, ws);
  const Eigen::VectorXd zq = Z.col(N - 1);
  const Eigen::MatrixXd query_term = (1.0 / (N - 1)) * P * zq * (zq.transpose() * Q * Z);
  CHECK(max_abs_diff(zu - zm, query_term) <= 1e-12 * (1.0 + query_term.cwiseAbs().maxCoeff()));
  CHECK(query_term.cwiseAbs().maxCoeff() > 1e-3);  // the difference is real
}

TEST_CASE("LinearSelfAttention rejects weights of the wrong shape") {
  icl::ForwardWorkspace ws;
  Eigen::MatrixXd Z = random_matrix(3, 4, 200);
  icl::LinearSelfAttention a{Eigen::MatrixXd::Identity(2, 2), Eigen::MatrixXd::Identity(3, 3), true, 0.0};
  CHECK_THROWS_AS(a.apply(Z, ws), std::invalid_argument);
}

TEST_CASE("BilinearLayer: tiny case computed by hand, label row untouched") {
  // dbar = 2: rows (1, x), then the label row.
  Eigen::MatrixXd Z(3, 2);
  Z << 1, 1,  //
      2, -1,  //
      5, 7;
  Eigen::MatrixXd W0(2, 2), W1(2, 2);
  W0 << 1, 0,  //
      0, 1;
  W1 << 0, 0,  //
      1, 0;
  // W0 Z_top = [[1,1],[2,-1]], W1 Z_top = [[0,0],[1,1]]: product [[0,0],[2,-1]].
  icl::ForwardWorkspace ws;
  icl::BilinearLayer b{W0, W1};
  Eigen::MatrixXd out = Z;
  b.apply(out, ws);
  Eigen::MatrixXd expected(3, 2);
  expected << 1, 1,  //
      4, -2,         //
      5, 7;
  CHECK(out == expected);

  // x -> x + x^2 with W0 = W1 = [[0,0],[0,1]].
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(2, 2);
  S(1, 1) = 1;
  Eigen::MatrixXd out2 = Z;
  icl::BilinearLayer{S, S}.apply(out2, ws);
  Eigen::MatrixXd expected2(3, 2);
  expected2 << 1, 1,  //
      6, 0,           //
      5, 7;
  CHECK(out2 == expected2);
}

TEST_CASE("BilinearLayer equals the naive Z + (diag(W0,0) Z) .* (diag(W1,0) Z)") {
  icl::ForwardWorkspace ws;
  std::uint64_t tag = 1000;
  for (int dbar : {1, 3, 6})
    for (int N : {1, 5}) {
      CAPTURE(dbar);
      CAPTURE(N);
      const Eigen::MatrixXd Z = random_matrix(dbar + 1, N, ++tag);
      const Eigen::MatrixXd W0 = random_matrix(dbar, dbar, ++tag), W1 = random_matrix(dbar, dbar, ++tag);
      Eigen::MatrixXd out = Z;
      icl::BilinearLayer{W0, W1}.apply(out, ws);
      const Eigen::MatrixXd expected = naive_bilinear(Z, W0, W1);
      CHECK(max_abs_diff(out, expected) <= 1e-12 * (1.0 + expected.cwiseAbs().maxCoeff()));
      CHECK(out.row(dbar) == Z.row(dbar));  // the label row is masked
    }
  Eigen::MatrixXd Z = random_matrix(4, 3, 1999);
  CHECK_THROWS_AS((icl::BilinearLayer{Eigen::MatrixXd::Identity(4, 4), Eigen::MatrixXd::Identity(4, 4)}.apply(Z, ws)),
                  std::invalid_argument);
}

TEST_CASE("Transformer applies its layers in order and reports each intermediate") {
  const int dbar = 3, N = 5;
  const Eigen::MatrixXd Z = random_matrix(dbar + 1, N, 3000);
  const icl::BilinearLayer bil{random_matrix(dbar, dbar, 3001), random_matrix(dbar, dbar, 3002)};
  const icl::LinearSelfAttention att{random_matrix(dbar + 1, dbar + 1, 3003), random_matrix(dbar + 1, dbar + 1, 3004),
                                     true, 0.0};
  const Eigen::MatrixXd after1 = naive_bilinear(Z, bil.W0, bil.W1);
  const Eigen::MatrixXd after2 = naive_lsa(after1, att.P, att.Q, true, 1.0 / (N - 1));
  const Eigen::MatrixXd reversed = naive_bilinear(naive_lsa(Z, att.P, att.Q, true, 1.0 / (N - 1)), bil.W0, bil.W1);
  REQUIRE(max_abs_diff(after2, reversed) > 1e-3);  // the order matters for this pair

  icl::Transformer t;
  t.layers.emplace_back(bil);
  t.layers.emplace_back(att);
  icl::ForwardWorkspace ws;
  std::vector<int> seen;
  std::vector<Eigen::MatrixXd> snapshots;
  std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> observe =
      [&](int k, const Eigen::Ref<const Eigen::MatrixXd>& z) {
        seen.push_back(k);
        snapshots.emplace_back(z);
      };
  Eigen::MatrixXd out = Z;
  t.forward(out, ws, &observe);
  const double tol = 1e-12 * (1.0 + after2.cwiseAbs().maxCoeff());
  CHECK(max_abs_diff(out, after2) <= tol);
  REQUIRE(seen == std::vector<int>{1, 2});
  CHECK(max_abs_diff(snapshots[0], after1) <= tol);
  CHECK(max_abs_diff(snapshots[1], after2) <= tol);

  // Without an observer, the same result; a workspace sized for another shape is resized correctly.
  icl::ForwardWorkspace ws2;
  ws2.reserve(7, 11);
  Eigen::MatrixXd out2 = Z;
  t.forward(out2, ws2);
  CHECK(out2 == out);
  Eigen::MatrixXd out3 = Z;
  t.forward(out3, ws2);  // reused workspace: same numbers
  CHECK(out3 == out);
}

TEST_CASE("Layers skip zero rows and columns of their weights and still equal the naive formulas") {
  // Weights with whole rows and columns zeroed (as constructions have: P = e e^T, sparse W0, W1), every
  // pattern from none to all zero: the sparse path must give the naive dense result.
  icl::ForwardWorkspace ws;
  std::uint64_t tag = 5000;
  auto zero_some = [](Eigen::MatrixXd M, std::uint64_t rows, std::uint64_t cols) {
    for (Eigen::Index i = 0; i < M.rows(); ++i)
      if ((rows >> i) & 1) M.row(i).setZero();
    for (Eigen::Index j = 0; j < M.cols(); ++j)
      if ((cols >> j) & 1) M.col(j).setZero();
    return M;
  };
  for (int D : {3, 6})
    for (std::uint64_t pat : {0ull, 1ull, 5ull, 0x2aull, 0x3full}) {
      CAPTURE(D);
      CAPTURE(pat);
      const int N = 7;
      const Eigen::MatrixXd Z = random_matrix(D, N, ++tag);
      const Eigen::MatrixXd P = zero_some(random_matrix(D, D, ++tag), pat, pat >> 1);
      const Eigen::MatrixXd Q = zero_some(random_matrix(D, D, ++tag), pat >> 2, pat);
      for (bool masked : {true, false}) {
        Eigen::MatrixXd out = Z;
        icl::LinearSelfAttention{P, Q, masked, 0.0}.apply(out, ws);
        const Eigen::MatrixXd expected = naive_lsa(Z, P, Q, masked, 1.0 / (N - 1));
        CHECK(max_abs_diff(out, expected) <= 1e-12 * (1.0 + expected.cwiseAbs().maxCoeff()));
        // two heads summed
        Eigen::MatrixXd out2 = Z;
        icl::LinearAttentionHeads{{icl::LinearSelfAttention{P, Q, masked, 0.5}, icl::LinearSelfAttention{Q, P, masked, 0.25}}}
            .apply(out2, ws);
        const Eigen::MatrixXd expected2 =
            naive_lsa(Z, P, Q, masked, 0.5) + naive_lsa(Z, Q, P, masked, 0.25) - Z;
        CHECK(max_abs_diff(out2, expected2) <= 1e-12 * (1.0 + expected2.cwiseAbs().maxCoeff()));
      }
      const Eigen::MatrixXd W0 = zero_some(random_matrix(D - 1, D - 1, ++tag), pat, pat >> 2);
      const Eigen::MatrixXd W1 = zero_some(random_matrix(D - 1, D - 1, ++tag), pat >> 1, pat >> 3);
      Eigen::MatrixXd out = Z;
      icl::BilinearLayer{W0, W1}.apply(out, ws);
      const Eigen::MatrixXd expected = naive_bilinear(Z, W0, W1);
      CHECK(max_abs_diff(out, expected) <= 1e-12 * (1.0 + expected.cwiseAbs().maxCoeff()));
    }
}

}  // namespace test_layers
