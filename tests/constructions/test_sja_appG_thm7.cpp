// Theorem 7's check of one prompt (constructions/sja_appG_thm7): the setting known by hand at d = 2 (6 monomials, the
// blocks of App. G, exact inverse second moments), every error at rounding level on the four prompt families, and the
// negative control (eta = -Gamma, no transpose) far from it where Gamma is not symmetric.
#include "constructions/sja_appG.hpp"
#include "constructions/sja_appG_thm7.hpp"

#include <doctest/doctest.h>

#include <string>

namespace test_sja_appG_thm7 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("Theorem 7 setting at d = 2: monomials, blocks, inverse block moments") {
  const sja::AppGSetup s = sja::appG_setup(2, 6, 3);
  CHECK(s.monomials.size() == 6);  // 1, x1, x2, x1^2, x1 x2, x2^2
  REQUIRE(s.blocks.size() == 2);
  REQUIRE(s.lambda_inv.size() == 2);
  // block b_1 = (1, x1, x2, x1 x1, x2 x1): E[xbar xbar^T] under N(0, I) has E[1 x1^2] = 1 and E[x1^4] = 3, so its
  // inverse is known: (Lambda)^{-1}[0,0] = 3/2, [0,3] = -1/2, [3,3] = 1/2, the x rows 1.
  const Eigen::MatrixXd& Li = s.lambda_inv[0];
  CHECK(Li(0, 0) == doctest::Approx(1.5));
  CHECK(Li(0, 3) == doctest::Approx(-0.5));
  CHECK(Li(3, 3) == doctest::Approx(0.5));
  CHECK(Li(1, 1) == doctest::Approx(1.0));
  CHECK(Li(4, 4) == doctest::Approx(1.0));  // E[x2^2 x1^2] = 1
}

TEST_CASE("Theorem 7 check of one prompt: every family at rounding level, the negative control far from it") {
  const sja::AppGSetup s = sja::appG_setup(2, 6, 3);
  using P = sja::AppGPrompt;
  for (std::uint64_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    const P o = sja::appG_check_prompt(s, 7, 0xa99, i);
    REQUIRE_FALSE(o.out_of_range);
    CHECK(o.family == static_cast<int>(i));
    CHECK(std::string(sja::appG_family_name(o.family)).size() > 10);
    for (int k : {P::kTopRows, P::kScratch, P::kLabelCarry, P::kStated, P::kMatrixForm, P::kRefSelf}) CHECK(o.err[k] < 1e-9);
    CHECK(o.forward == doctest::Approx(o.reference).epsilon(1e-9));
    CHECK(o.W_final.rows() == 3);
    CHECK((o.W_final - o.W_final.transpose()).norm() == 0.0);
  }
  // Family 0 draws a non-symmetric Gamma: descent with eta = -Gamma differs from eta = -Gamma^T.
  CHECK(sja::appG_check_prompt(s, 7, 0xa99, 0).err[P::kNegative] > 1e-3);
  // Over prompts, the same at any thread count.
  const auto check = [&](std::uint64_t i) { return sja::appG_check_prompt(s, 7, 0xa99, i); };
  const WorstCase w1 = worst_prompts(24, 1, check, P::kStated).worst;
  const WorstCase w2 = worst_prompts(24, 2, check, P::kStated).worst;
  CHECK(w1.prompts == 24);
  CHECK(w1.worst == w2.worst);
  CHECK(w1.where == w2.where);
  CHECK(w1.worst[P::kStated] < 1e-9);
}

}  // namespace test_sja_appG_thm7
