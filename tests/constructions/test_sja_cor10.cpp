// sja Cor. 10 stack on a hand-computable network (d = 1, h = 1: the hidden unit computes x^2), and the corollary's
// check (cor10_setup, cor10_check_prompt) on a random network, where everything is known but rounding.
#include "constructions/sja_cor10.hpp"
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/exact/symbolic_forward.hpp"
#include "icl/model/prompt.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace test_sja_cor10 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("Cor. 10, d = 1, h = 1, hidden = x^2, Gamma = I: one block step by hand") {
  sja::FeatureNetwork net;
  net.d = 1;
  net.h = 1;
  Eigen::MatrixXd a(1, 3);
  a << 0, 1, 0;  // reads x
  net.A0 = {a};
  net.A1 = {a};
  // symbolic: the hidden row is x^2
  auto rows = sja_feature_rows<double>(1, 3);
  apply_symbolic(net.layer(0), rows);
  Exponent e;
  REQUIRE(is_unit_monomial(rows[2], e));
  CHECK(e == Exponent{2});
  // x_1 = 2, y_1 = 1, x_q = 3: as in App. G, yhat = y_1 (1, 2, 4).(1, 3, 9) = 43
  const PromptShape s = sja_shape(1, 3, 1);
  Eigen::MatrixXd X(1, 2);
  X << 2, 3;
  Eigen::RowVectorXd y(2);
  y << 1, 0;
  Eigen::MatrixXd Z = test::embedded(s, X, y);
  ForwardWorkspace ws;
  sja::cor10_stack(net, {Eigen::MatrixXd::Identity(3, 3)}).forward(Z, ws);
  CHECK(prediction(Z) == doctest::Approx(43.0));
  // BCD on (1, x, x^2) with eta = -I
  Eigen::MatrixXd Phi(3, 1);
  Phi << 1, 2, 4;
  const auto it = block_coordinate_descent<double>(Phi, -y.head(1).transpose(), {{{0, 1, 2}, -Eigen::MatrixXd::Identity(3, 3)}},
                                                   Eigen::VectorXd::Zero(3));
  CHECK(Eigen::Vector3d(1, 3, 9).dot(it[1]) == doctest::Approx(43.0));
}

TEST_CASE("Cor. 10: a layer writes only the hidden rows") {
  sja::FeatureNetwork net;
  net.d = 2;
  net.h = 2;
  net.A0 = {Eigen::MatrixXd::Ones(2, 5)};
  net.A1 = {Eigen::MatrixXd::Ones(2, 5)};
  const BilinearLayer b = net.layer(0);
  CHECK(b.W0.topRows(3).isZero());
  CHECK(b.W1.bottomRows(2).isOnes());
}

TEST_CASE("Cor. 10 setting and one prompt: the stack equals block-coordinate descent to rounding") {
  // d = 2, h = 3, L = 2, n = 5 (the claim's quick case): by hand, layer l's hidden units are polynomials of degree
  // 2^l (each bilinear layer multiplies two affine forms of the previous rows), rows 1 and x are carried unchanged.
  const sja::Cor10Setup s = sja::cor10_setup(2, 3, 2, 5, 11, 0x5eed);
  CHECK(s.w == 6);
  REQUIRE(s.act.size() == 2);
  CHECK(s.degree == 4);
  CHECK(s.act[0][5].degree() == 2);
  Exponent e;
  for (std::size_t l = 0; l < 2; ++l) {
    CHECK(s.act[l][0].degree() == 0);
    REQUIRE(is_unit_monomial(s.act[l][1], e));
    CHECK(e == Exponent{1, 0});
    REQUIRE(is_unit_monomial(s.act[l][2], e));
    CHECK(e == Exponent{0, 1});
    // -(Lambda + r I)^{-1}: symmetric negative definite
    const Eigen::MatrixXd& g = s.neg_lambda_inv[l];
    CHECK((g - g.transpose()).norm() <= 1e-10 * g.norm());
    CHECK(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(-g).eigenvalues().minCoeff() > 0);
  }
  // |coefficients| bound the polynomial at |x|: |h(x)| <= h_abs(|x|)
  const double x[2] = {0.7, -1.3}, xa[2] = {0.7, 1.3};
  for (std::size_t r = 0; r < 6; ++r) CHECK(std::abs(s.act[1][r].evaluate(x)) <= s.act_abs[1][r].evaluate(xa) + 1e-15);

  // Prompt 0 (Gamma = -(Lambda + r I)^{-1}) and prompt 1 (a random Gamma): every error at rounding level.
  for (std::uint64_t i : {0, 1}) {
    CAPTURE(i);
    const sja::Cor10Prompt o = sja::cor10_check_prompt(s, 11, 0x5eed, i);
    REQUIRE_FALSE(o.out_of_range);
    for (double err : o.err) CHECK(err < 1e-10);
    CHECK(o.err[sja::Cor10Prompt::kTop] == 0.0);  // rows written by neither layer stay bit for bit
    CHECK(o.forward == doctest::Approx(o.reference).epsilon(1e-10));
    CHECK(std::abs(o.reference) > 0);
  }
  // Over prompts: the worst of each error and where, the same at any thread count; prompt 0's errors as above.
  const auto check = [&](std::uint64_t i) { return sja::cor10_check_prompt(s, 11, 0x5eed, i); };
  const WorstCase w1 = worst_prompts(70, 1, check, sja::Cor10Prompt::kLabels).worst;
  {  // the case's quantities, in the report's order, from the worst case and its worst label prompt
    CaseJson j(nlohmann::ordered_json{{"d", 2}});
    const sja::Cor10Prompt at = sja::cor10_check_prompt(s, 11, 0x5eed, w1.where[sja::Cor10Prompt::kLabels]);
    sja::cor10_quantities(j, s, w1, at);
    const auto q = j.take()["quantities"];
    CHECK(q.begin().key() == "stated");
    CHECK(q["exact"]["value"] == at.forward);
    CHECK(q["max_rel_error"]["value"] == w1.worst[sja::Cor10Prompt::kLabels]);
    CHECK(q["feature_degree"]["value"] == 4.0);
    CHECK(q["prompts"]["value"] == 70.0);
    CHECK(q.size() == 10);
  }
  const WorstCase w2 = worst_prompts(70, 2, check, sja::Cor10Prompt::kLabels).worst;
  CHECK(w1.prompts == 70);
  CHECK(w1.set_aside == 0);
  CHECK(w1.worst == w2.worst);
  CHECK(w1.where == w2.where);
  const sja::Cor10Prompt at = sja::cor10_check_prompt(s, 11, 0x5eed, w1.where[sja::Cor10Prompt::kLabels]);
  CHECK(at.err[sja::Cor10Prompt::kLabels] == w1.worst[sja::Cor10Prompt::kLabels]);
  CHECK(w1.worst[sja::Cor10Prompt::kLabels] < 1e-9);
}

TEST_CASE("Cor. 10 case: the setting of the case's stream, its prompts' worst errors and its quantities") {
  ClaimContext ctx;
  ctx.claim_id = "test.cor10";
  ctx.seed = 11;
  ctx.samples = 1;  // at least 2 prompts are checked
  ctx.threads = 1;
  const Case c{{{"d", 1.0}, {"h", 2.0}, {"L", 2.0}, {"n", 4.0}}};
  CaseJson j(c);
  const WorstCase w = sja::cor10_check_case(ctx, c, j);
  CHECK(w.prompts == 2);
  CHECK(w.worst[sja::Cor10Prompt::kLabels] < 1e-9);
  const sja::Cor10Setup s = sja::cor10_setup(1, 2, 2, 4, 11, ctx.purpose(c.label()));
  const auto q = j.take()["quantities"];
  CHECK(q["feature_degree"]["value"] == double(s.degree));
  CHECK(q["max_rel_error"]["value"] == w.worst[sja::Cor10Prompt::kLabels]);
  CHECK(q["stated"]["value"] == sja::cor10_check_prompt(s, 11, ctx.purpose(c.label()), w.where[0]).reference);
}

}  // namespace test_sja_cor10
