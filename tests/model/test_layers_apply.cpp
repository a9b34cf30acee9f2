// BilinearLayer and LinearSelfAttention apply their formulas, also on a prompt that is a strided
// block of a larger matrix (Eigen::Ref with an outer stride), bitwise equal to the same products
// written out as whole-matrix Eigen expressions.
#include "icl/layers/network.hpp"
#include "icl/model/rng.hpp"

#include <doctest/doctest.h>

namespace test_layers_apply {  // named: a unity build compiles several test files as one unit

namespace {

Eigen::MatrixXd random_matrix(Eigen::Index r, Eigen::Index c, std::uint64_t seed) {
  icl::PromptRng rng(seed, 1, 0);
  Eigen::MatrixXd m(r, c);
  rng.fill_normal(m);
  return m;
}

void check_equal(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  INFO("max |difference| ", (a - b).cwiseAbs().maxCoeff());
  CHECK((a.array() == b.array()).all());
}

}  // namespace

TEST_CASE("BilinearLayer::apply: Z_top + (W0 Z_top) .* (W1 Z_top), label row untouched") {
  const Eigen::Index D = 7, N = 12, dbar = D - 1;
  icl::BilinearLayer b{random_matrix(dbar, dbar, 1), random_matrix(dbar, dbar, 2)};
  const Eigen::MatrixXd Z0 = random_matrix(D, N, 3);
  Eigen::MatrixXd expected = Z0;
  const Eigen::MatrixXd A = b.W0 * Z0.topRows(dbar), B = b.W1 * Z0.topRows(dbar);
  expected.topRows(dbar) += A.cwiseProduct(B);
  icl::ForwardWorkspace ws;
  Eigen::MatrixXd Z = Z0;
  b.apply(Z, ws);
  check_equal(Z, expected);
  CHECK(Z.row(dbar) == Z0.row(dbar));
  // the same prompt held as a block of a taller matrix (outer stride D + 3)
  Eigen::MatrixXd big = random_matrix(D + 3, N, 4);
  big.middleRows(2, D) = Z0;
  b.apply(big.middleRows(2, D), ws);
  check_equal(big.middleRows(2, D), expected);
}

TEST_CASE("LinearSelfAttention::apply: Z + s P (Z M Z^T) Q Z, masked and unmasked") {
  const Eigen::Index D = 6, N = 9;
  for (bool masked : {true, false}) {
    icl::LinearSelfAttention a{random_matrix(D, D, 5), random_matrix(D, D, 6), masked, 0.0};
    const Eigen::MatrixXd Z0 = random_matrix(D, N, 7);
    const Eigen::Index keys = masked ? N - 1 : N;
    const Eigen::MatrixXd G = Z0.leftCols(keys) * Z0.leftCols(keys).transpose();
    const Eigen::MatrixXd S = a.P * G;
    const Eigen::MatrixXd T = S * a.Q;
    const Eigen::MatrixXd U = T * Z0;
    const Eigen::MatrixXd expected = Z0 + (1.0 / static_cast<double>(N - 1)) * U;
    icl::ForwardWorkspace ws;
    Eigen::MatrixXd Z = Z0;
    a.apply(Z, ws);
    check_equal(Z, expected);
    Eigen::MatrixXd big = random_matrix(D + 2, N, 8);
    big.bottomRows(D) = Z0;
    a.apply(big.bottomRows(D), ws);
    check_equal(big.bottomRows(D), expected);
  }
}

}  // namespace test_layers_apply
