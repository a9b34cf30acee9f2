// Softmax / linear attention with the look-ahead mask on unstructured prompts (xlssc), by hand.
#include "constructions/xlssc_sec4.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/softmax_attention.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_softmax_attention {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("unstructured embedding E_2") {
  Eigen::MatrixXd X(1, 3);
  X << 1, 2, 3;  // x_1, x_2, x_q
  Eigen::RowVectorXd y(2);
  y << 10, 20;
  Eigen::MatrixXd Z(2, 5);
  embed_unstructured(X, y, Z);
  Eigen::MatrixXd want(2, 5);
  want << 1, 0, 2, 0, 3, 0, 10, 0, 20, 0;
  CHECK(Z == want);
}

TEST_CASE("layer 1 of xlssc (W^K = W^Q = 0, W^V = I, mask): eq. (4), both code paths") {
  const int d = 2, D = 3;
  PromptRng rng(5, 1, 0);
  Eigen::MatrixXd X(d, D + 1);
  rng.fill_normal(X);
  Eigen::RowVectorXd y(D);
  rng.fill_normal(y);
  Eigen::MatrixXd E(d + 1, 2 * D + 1);
  embed_unstructured(X, y, E);
  SoftmaxAttention l1 = xlssc::twolayer(d, D).layer_as<layers::SoftmaxAttention>(0).spec();
  Eigen::MatrixXd Z1 = E, Z2 = E;
  l1.apply(Z1);
  l1.allow_uniform_shortcut = false;  // the general softmax path
  l1.apply(Z2);
  CHECK((Z1 - Z2).cwiseAbs().maxCoeff() < 1e-14);
  // eq. (4): columns 2 x_1 | (x_1/2, 3 y_1/2) | (x_1/3 + 4 x_2/3, y_1/3) | (x_1/4 + x_2/4, y_1/4 + 5 y_2/4)
  CHECK((Z1.col(0).head(d) - 2 * X.col(0)).norm() < 1e-14);
  CHECK(Z1(d, 0) == 0.0);
  CHECK((Z1.col(1).head(d) - X.col(0) / 2).norm() < 1e-14);
  CHECK(Z1(d, 1) == doctest::Approx(1.5 * y[0]));
  CHECK((Z1.col(2).head(d) - (X.col(0) / 3 + 4 * X.col(1) / 3)).norm() < 1e-14);
  CHECK(Z1(d, 2) == doctest::Approx(y[0] / 3));
  CHECK((Z1.col(3).head(d) - (X.col(0) + X.col(1)) / 4).norm() < 1e-14);
  CHECK(Z1(d, 3) == doctest::Approx(y[0] / 4 + 5 * y[1] / 4));
  // query column: (2D+2)/(2D+1) x_q + sum x_i / (2D+1), label sum y_i / (2D+1)
  const double N = 2 * D + 1;
  const Eigen::VectorXd q = (N + 1) / N * X.col(D) + (X.leftCols(D).rowwise().sum()) / N;
  CHECK((Z1.col(2 * D).head(d) - q).norm() < 1e-14);
  CHECK(Z1(d, 2 * D) == doctest::Approx(y.sum() / N));
}

TEST_CASE("softmax scores, the mask, and last-column-only") {
  // Two tokens in R^1 (rows: a single feature and the label): z_1 = (1, 0), z_2 = (2, 1).
  Eigen::MatrixXd Z(2, 2);
  Z << 1, 2, 0, 1;
  SoftmaxAttention a;
  a.V = Eigen::MatrixXd::Identity(2, 2);
  a.K = Eigen::MatrixXd::Zero(2, 2);
  a.K(0, 0) = 1.0;  // score z_i^T K z_j = z_i[0] z_j[0]
  Eigen::MatrixXd masked = Z, full = Z, last = Z;
  a.apply(masked);
  // token 1 sees only itself: + z_1. token 2: weights softmax(2, 4) over (z_1, z_2).
  CHECK(masked(0, 0) == doctest::Approx(2.0));
  const double w1 = std::exp(2.0) / (std::exp(2.0) + std::exp(4.0)), w2 = 1 - w1;
  CHECK(masked(0, 1) == doctest::Approx(2 + w1 * 1 + w2 * 2));
  CHECK(masked(1, 1) == doctest::Approx(1 + w2 * 1));
  a.causal = false;
  a.apply(full);  // token 1 now also sees z_2: weights softmax(1, 2)
  const double u1 = std::exp(1.0) / (std::exp(1.0) + std::exp(2.0));
  CHECK(full(0, 0) == doctest::Approx(1 + u1 * 1 + (1 - u1) * 2));
  a.causal = true;
  a.apply(last, true);
  CHECK(last(0, 0) == 1.0);  // untouched
  CHECK(last(0, 1) == doctest::Approx(masked(0, 1)));
  // linear activation: weights are the raw scores
  a.activation = SoftmaxAttention::Activation::linear;
  Eigen::MatrixXd lin = Z;
  a.apply(lin);
  CHECK(lin(0, 1) == doctest::Approx(2 + 2 * 1 + 4 * 2));
}

TEST_CASE("one-layer xlssc: linear output is even in theta, softmax output is not") {
  const int d = 2, D = 3;
  PromptRng rng(9, 2, 0);
  Eigen::MatrixXd X(d, D + 1);
  rng.fill_normal(X);
  Eigen::VectorXd theta0(2);
  theta0 << 1, 0;
  Eigen::RowVectorXd y = theta0.transpose() * X;
  Eigen::VectorXd v(d + 1);
  Eigen::MatrixXd K(d + 1, d + 1);
  rng.fill_normal(v);
  rng.fill_normal(K);
  for (auto act : {SoftmaxAttention::Activation::linear, SoftmaxAttention::Activation::softmax}) {
    const SoftmaxAttention l = xlssc::onelayer(v, K, act);
    Eigen::MatrixXd Zp(d + 1, 2 * D + 1), Zm(d + 1, 2 * D + 1);
    embed_unstructured(X, y.head(D), Zp);
    const Eigen::RowVectorXd yneg = -y;
    embed_unstructured(X, yneg.head(D), Zm);
    l.apply(Zp, true);
    l.apply(Zm, true);
    if (act == SoftmaxAttention::Activation::linear)
      CHECK(unstructured_prediction(Zp) == unstructured_prediction(Zm));
    else
      CHECK(std::abs(unstructured_prediction(Zp) - unstructured_prediction(Zm)) > 1e-6);
  }
}

TEST_CASE("xlssc two-layer output equals the direct formula of App. A (layer 1 averages, layer 2 linear)") {
  const int d = 3, D = 7, N = 2 * D + 1;
  PromptRng rng(5, 3, 0);
  Eigen::MatrixXd X(d, D + 1);
  rng.fill_normal(X);
  Eigen::VectorXd theta(d);
  rng.fill_normal(theta);
  const Eigen::RowVectorXd y = theta.transpose() * X;
  Eigen::MatrixXd Z(d + 1, N);
  embed_unstructured(X, y.head(D), Z);
  const Eigen::MatrixXd E = Z;
  ForwardWorkspace ws;
  xlssc::twolayer(d, D).predict(Z, ws);
  // F_t = E_t + (1/t) sum_{k <= t} E_k; yhat = F[label, N] + (1/log D) sum_t F[label, t] (F[x, t] . F[x, N]).
  Eigen::MatrixXd F(d + 1, N);
  for (int t = 0; t < N; ++t) {
    Eigen::VectorXd s = Eigen::VectorXd::Zero(d + 1);
    for (int k = 0; k <= t; ++k) s += E.col(k);
    F.col(t) = E.col(t) + s / (t + 1.0);
  }
  double yhat = F(d, N - 1);
  for (int t = 0; t < N; ++t) yhat += F(d, t) * F.col(t).head(d).dot(F.col(N - 1).head(d)) / std::log(double(D));
  CHECK(unstructured_prediction(Z) == doctest::Approx(yhat).epsilon(1e-12));
}

}  // namespace test_softmax_attention
