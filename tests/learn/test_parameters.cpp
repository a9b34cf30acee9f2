// model/parameters.hpp and learn/forms.hpp: frozen entries stay at their values, tied and symmetric
// parameters write every entry they own, and the minibatch gradient with respect to theta (the chunked
// objective of learn/objective.hpp) agrees with central finite differences for every form.
#include "constructions/acds_forms.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/model/gaussian_model.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>

namespace icl::learn {
namespace test_parameters {  // named: a unity build compiles several test files as one unit
namespace {

using test::random_matrix;

// Fourth-order central differences (8 (f(h) - f(-h)) - (f(2h) - f(-2h))) / (12 h), h = kStep * max(1, |theta|):
// truncation O(h^4), rounding ~1e-16 |f| / h; the gradient must agree within kFdTol * (1 + |grad|).
constexpr double kStep = 1e-4;
constexpr double kFdTol = 1e-6;

PromptSource linear_prompts(int d, int n, Embedding e = Embedding::acds, int dbar = 0) {
  const PromptShape shape = e == Embedding::sja ? sja_shape(d, dbar, n) : (e == Embedding::zfb ? zfb_shape(d, n) : acds_shape(d, n));
  return gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(d), test_covariance(d, 2)), shape);
}
PromptSource quadratic_prompts(int d, int dbar, int n) {
  return gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::quadratic(d), Eigen::MatrixXd::Identity(d, d)),
                          sja_shape(d, dbar, n));
}

void check_theta_gradient(const Parameterisation& p, const PromptSource& src, LossSpec loss, double scale,
                          std::uint64_t seed) {
  BatchObjective obj(p, src, loss, 2);
  const Eigen::VectorXd theta = normal_theta(p, scale, seed, 5);
  Eigen::VectorXd g;
  obj.evaluate(theta, seed, 9, 70, &g);  // 70 prompts: two chunks, the second partial
  REQUIRE(g.size() == p.size());
  Eigen::VectorXd th = theta;
  for (int k = 0; k < p.size(); ++k) {
    const double h = kStep * std::max(1.0, std::abs(theta[k]));
    auto f = [&](double step) {
      th[k] = theta[k] + step;
      const double v = obj.evaluate(th, seed, 9, 70, nullptr);
      th[k] = theta[k];
      return v;
    };
    const double fd = (8 * (f(h) - f(-h)) - (f(2 * h) - f(-2 * h))) / (12 * h);
    INFO("theta[", k, "]: gradient ", g[k], " finite difference ", fd);
    REQUIRE(std::abs(fd - g[k]) <= kFdTol * (1 + std::abs(g[k])));
  }
}

TEST_CASE("learn: acds form (8) freezes P and writes -A into Q's top-left block; symmetric A stays symmetric") {
  const int d = 3, L = 2;
  for (bool sym : {false, true}) {
    const auto p = acds_form8(d, L, sym);
    CHECK(p.size() == L * (sym ? d * (d + 1) / 2 : d * d));
    const Eigen::VectorXd th = normal_theta(p, 1.0, 3, 4);
    const Network n = p.network(th);
    for (int l = 0; l < L; ++l) {
      Eigen::MatrixXd P0 = Eigen::MatrixXd::Zero(d + 1, d + 1);
      P0(d, d) = 1;
      CHECK(n.weight(l, "P") == P0);
      const Eigen::MatrixXd A = p.group_matrix(fmt::format("A_{}", l), th);
      CHECK(n.weight(l, "Q").topLeftCorner(d, d) == -A);
      CHECK(n.weight(l, "Q").row(d).norm() == 0.0);
      CHECK(n.weight(l, "Q").col(d).norm() == 0.0);
      if (sym) CHECK(A == A.transpose());
    }
    CHECK(p.theta_from(n) == th);
  }
}

TEST_CASE("learn: sja sparse form (12) trains only W~ (rows d+1.., columns 0..d); dense trains every entry") {
  const int d = 2, dbar = 6, L = 2;
  const auto sparse = sja_bilinear(d, dbar, L, BilinearForm::sparse);
  const auto dense = sja_bilinear(d, dbar, L, BilinearForm::dense);
  CHECK(sparse.size() == L * (2 * (dbar - d - 1) * (d + 1) + 2 * (dbar + 1) * (dbar + 1)));
  CHECK(dense.size() == L * (2 * dbar * dbar + 2 * (dbar + 1) * (dbar + 1)));
  const Network n = sparse.network(normal_theta(sparse, 1.0, 1, 2));
  for (int l = 0; l < 2 * L; l += 2)
    for (int s = 0; s < 2; ++s) {
      Eigen::MatrixXd W = n.layer(l).param(s);
      CHECK(W.block(d + 1, 0, dbar - d - 1, d + 1).cwiseAbs().minCoeff() > 0);
      W.block(d + 1, 0, dbar - d - 1, d + 1).setZero();
      CHECK(W.norm() == 0.0);
    }
}

TEST_CASE("learn: a group tied across layers writes both and its gradient is the sum") {
  Network base;
  base.rows = 3;
  base.add_lsa(true).add_lsa(true);
  base.weight(0, "P") = random_matrix(3, 3, 1);
  base.weight(1, "P") = random_matrix(3, 3, 2);
  Parameterisation p(base);
  p.add(ParamGroup::full("Q_shared", 3, 3, {{0, "Q"}, {1, "Q", 0, 0, 0.5}}));
  const Eigen::VectorXd th = normal_theta(p, 0.5, 7, 7);
  const Network n = p.network(th);
  CHECK(n.weight(1, "Q") == 0.5 * n.weight(0, "Q"));
  CHECK(n.weight(0, "P") == base.weight(0, "P"));  // frozen P keeps its base values
  check_theta_gradient(p, linear_prompts(2, 5), LossSpec::acds(), 0.5, 11);
}

TEST_CASE("learn: minibatch gradients in theta agree with finite differences for every form") {
  for (std::uint64_t seed : {31u, 32u}) {
    CAPTURE(seed);
    INFO("acds form (8), general and symmetric A");
    check_theta_gradient(acds_form8(2, 3), linear_prompts(2, 6), LossSpec::acds(), 0.4, seed);
    check_theta_gradient(acds_form8(2, 2, true), linear_prompts(2, 6), LossSpec::acds(), 0.4, seed);
    INFO("acds form (11)");
    check_theta_gradient(acds_form11(2, 3), linear_prompts(2, 6), LossSpec::acds(), 0.4, seed);
    INFO("acds family A_i = a_i Sigma^-1, B_i = b_i I");
    const Eigen::MatrixXd Sinv = test_covariance(2, 2).inverse();
    check_theta_gradient(acds_family(2, 3, Sinv, true), linear_prompts(2, 6), LossSpec::acds(), 0.4, seed);
    INFO("zfb: one unmasked LSA layer, every entry, loss 1/2 (yhat - y)^2");
    check_theta_gradient(full_lsa(3, 1, false), linear_prompts(2, 6, Embedding::zfb), LossSpec::zfb(), 0.5, seed);
    INFO("sja linear Transformer (full masked LSA, 2 layers) on quadratic prompts");
    check_theta_gradient(full_lsa(6, 2, true), quadratic_prompts(2, 5, 5), LossSpec::sja(), 0.2, seed);
    INFO("sja bilinear Transformer, dense (11) and sparse (12)");
    check_theta_gradient(sja_bilinear(2, 5, 2, BilinearForm::dense), quadratic_prompts(2, 5, 5), LossSpec::sja(), 0.1, seed);
    check_theta_gradient(sja_bilinear(2, 5, 2, BilinearForm::sparse), quadratic_prompts(2, 5, 5), LossSpec::sja(), 0.1, seed);
    INFO("xlssc: two causal softmax layers on unstructured prompts");
    check_theta_gradient(softmax_stack(2, 2), unstructured_prompts(2, 4), LossSpec::zfb(), 0.5, seed);
  }
}

TEST_CASE("learn: bad parameter groups are rejected") {
  auto p = acds_form8(2, 1);
  CHECK_THROWS_AS(p.add(ParamGroup::full("X", 4, 4, {{0, "Q"}})), std::invalid_argument);       // does not fit
  CHECK_THROWS_AS(p.add(ParamGroup::full("Y", 1, 1, {{3, "Q"}})), std::invalid_argument);       // no such layer
  CHECK_THROWS_AS(p.add(ParamGroup::full("A_0", 1, 1, {{0, "P"}})), std::invalid_argument);     // duplicate name
  CHECK_THROWS_AS(sja_bilinear(2, 3, 1, BilinearForm::sparse), std::invalid_argument);        // no scratch row
}

}  // namespace
}  // namespace test_parameters
}  // namespace icl::learn
