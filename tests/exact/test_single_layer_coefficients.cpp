// One layer of several masked heads as a coefficient tensor (exact/optimal_attention.hpp): its loss equals the
// rank-one loss for one head, the sparse loss for the sparse form, Monte Carlo through the real multi-head
// forward pass, and only the symmetrised coefficients matter.
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/montecarlo/statistics.hpp"

#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

namespace test_single_layer_coefficients {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

LinearSelfAttention head(const Eigen::MatrixXd& P, const Eigen::MatrixXd& Q, double scale = 0.0) {
  return LinearSelfAttention{P, Q, true, scale};
}

}  // namespace

TEST_CASE("coefficient loss = rank-one loss for one head, = sparse loss for the sparse form") {
  for (int task = 0; task < 2; ++task) {
    const int d = 2;
    const PolynomialTask t = task == 0 ? PolynomialTask::linear(d) : PolynomialTask::quadratic(d);
    GaussianIclModel model = GaussianIclModel::from_task(t, test_covariance(d, 2));
    model.noise_sd = 0.5;
    const auto u = identity_features(d);
    const SingleLayerMoments m = single_layer_moments(model, u);
    for (double n : {1.0, 4.0, 30.0}) {
      const Eigen::MatrixXd P = test::random_matrix(d + 1, d + 1, 3), Q = test::random_matrix(d + 1, d + 1, 4);
      const Eigen::VectorXd b = P.row(d).transpose();
      const Eigen::MatrixXd A = Q.leftCols(d);
      const double rank_one = single_layer_loss(m, b, A, n);
      const double tensor = single_layer_loss(m, single_layer_coefficients({head(P, Q)}, d, n), n);
      CHECK(tensor == doctest::Approx(rank_one).epsilon(1e-12));
      // A head with its own scale s acts as P scaled by s n.
      const double scaled = single_layer_loss(m, single_layer_coefficients({head(P, Q, 2.5 / n)}, d, n), n);
      CHECK(scaled == doctest::Approx(single_layer_loss(m, 2.5 * b, A, n)).epsilon(1e-12));

      const Eigen::MatrixXd G = test::random_matrix(d, d, 6);
      Eigen::VectorXd bs;
      Eigen::MatrixXd As;
      sparse_as_general(G, bs, As);
      const FeatureMoments fm = model_feature_moments(model, u);
      Eigen::MatrixXd Ps = Eigen::MatrixXd::Zero(d + 1, d + 1), Qs = Eigen::MatrixXd::Zero(d + 1, d + 1);
      Ps(d, d) = 1;
      Qs.topLeftCorner(d, d) = G;
      CHECK(single_layer_loss(m, single_layer_coefficients({head(Ps, Qs)}, d, n), n) ==
            doctest::Approx(sparse_lsa_loss(fm, G, n)).epsilon(1e-10));
    }
  }
}

TEST_CASE("several heads: the exact coefficient loss agrees with Monte Carlo through the multi-head forward pass") {
  const int d = 2, n = 6;
  const GaussianIclModel model = GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 1));
  std::vector<LinearSelfAttention> heads;
  for (int h = 0; h < 3; ++h)
    heads.push_back(head(0.4 * test::random_matrix(d + 1, d + 1, 20 + h), 0.4 * test::random_matrix(d + 1, d + 1, 30 + h)));
  const SingleLayerMoments m = single_layer_moments(model, identity_features(d));
  const double exact = single_layer_loss(m, single_layer_coefficients(heads, d, n), n);
  Transformer t;
  t.layers.emplace_back(LinearAttentionHeads{heads});
  MonteCarlo mc(1, 2);
  mc.extend_to(60000, [&] { return ModelPromptWorker(t, model, acds_shape(d, n), 1, 77); });
  const Estimate e = make_estimate(mc.total(), 0, 0.999);
  INFO("exact " << exact << ", Monte Carlo " << e.mean << " +/- " << e.stderr_);
  CHECK(std::abs(e.mean - exact) <= 4.5 * e.stderr_);
  // The heads' sum is not the heads applied one after another.
  Transformer seq;
  for (const auto& h : heads) seq.layers.emplace_back(h);
  const auto p = test::random_prompt(acds_shape(d, n), 2, 3);
  Eigen::MatrixXd Z1 = p.Z, Z2 = p.Z;
  ForwardWorkspace ws;
  t.forward(Z1, ws);
  seq.forward(Z2, ws);
  CHECK((Z1 - Z2).cwiseAbs().maxCoeff() > 1e-3);
  // ... and it is the sum of each head's own update.
  Eigen::MatrixXd sum = p.Z;
  for (const auto& h : heads) {
    Eigen::MatrixXd Zh = p.Z;
    h.apply(Zh, ws);
    sum += Zh - p.Z;
  }
  CHECK((Z1 - sum).cwiseAbs().maxCoeff() <= 1e-12);
}

TEST_CASE("only the symmetrised coefficients reach the prediction") {
  // Head 1 reads row a of H through P's last row and column b through Q; head 2 swaps a and b. Their
  // coefficients differ, their symmetrised coefficients do not, and they predict alike on every prompt.
  const int d = 3, n = 5, D = d + 1;
  const int a = 0, b = 3, c = 1;
  Eigen::MatrixXd P1 = Eigen::MatrixXd::Zero(D, D), Q1 = Eigen::MatrixXd::Zero(D, D), P2 = P1, Q2 = Q1;
  P1(d, a) = 1;
  Q1(b, c) = 1;
  P2(d, b) = 1;
  Q2(a, c) = 1;
  const Eigen::MatrixXd C1 = single_layer_coefficients({head(P1, Q1)}, d, n), C2 = single_layer_coefficients({head(P2, Q2)}, d, n);
  CHECK((C1 - C2).norm() > 1);
  CHECK((symmetrised_coefficients(C1, D) - symmetrised_coefficients(C2, D)).norm() == 0);
  ForwardWorkspace ws;
  for (std::uint64_t i = 0; i < 5; ++i) {
    const auto p = test::random_prompt(acds_shape(d, n), 4, 4, i);
    Eigen::MatrixXd Z1 = p.Z, Z2 = p.Z;
    head(P1, Q1).apply(Z1, ws);
    head(P2, Q2).apply(Z2, ws);
    CHECK(prediction(Z1) == doctest::Approx(prediction(Z2)).epsilon(1e-12));
  }
}

}  // namespace test_single_layer_coefficients
