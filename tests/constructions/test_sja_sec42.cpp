// sja Sec. 4.2 stacks: the symbolic features against the real forward pass, and the sparse/dense forms.
#include "constructions/sja_sec42.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

namespace test_sja_sec42 {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {
void check_features_match_forward(sja::Sec42Stack s) {
  const int d = sja::kSec42D, w = sja::kSec42Width, n = 5;
  const auto u = sja::sec42_features(s);
  Transformer t;
  t.layers = sja::sec42_feature_layers(s);
  auto [X, y, Z] = test::random_prompt(sja_shape(d, w, n), 3, 9, static_cast<std::uint64_t>(s));
  ForwardWorkspace ws;
  t.forward(Z, ws);
  for (int c = 0; c <= n; ++c)
    for (int r = 0; r < w; ++r) {
      const double want = u[static_cast<std::size_t>(r)].to_double_poly().evaluate(X.col(c).data());
      CHECK(Z(r, c) == doctest::Approx(want).epsilon(1e-12));
    }
  for (int c = 0; c < n; ++c) CHECK(Z(w, c) == y[c]);  // labels untouched by the feature layers
}
}  // namespace

TEST_CASE("Sec. 4.2 features: symbolic rows equal the forward pass") {
  check_features_match_forward(sja::Sec42Stack::sparse_quadratic);
  check_features_match_forward(sja::Sec42Stack::dense);
  check_features_match_forward(sja::Sec42Stack::sparse_escape);
}

TEST_CASE("Sec. 4.2 stacks: which are sparse (12), and what they compute") {
  CHECK(sja::sec42_all_bilinear_sparse(sja::Sec42Stack::sparse_quadratic));
  CHECK_FALSE(sja::sec42_all_bilinear_sparse(sja::Sec42Stack::dense));
  CHECK(sja::sec42_all_bilinear_sparse(sja::Sec42Stack::sparse_escape));
  // escape stack, scratch row 4 (row index 8): x1' x2 = x1 x2 + x2 x3 x4
  const auto u = sja::sec42_features(sja::Sec42Stack::sparse_escape);
  const auto& s4 = u[8];
  REQUIRE(s4.terms().size() == 2);
  CHECK(s4.terms().count(Exponent{1, 1, 0, 0}) == 1);
  CHECK(s4.terms().count(Exponent{0, 1, 1, 1}) == 1);
  // dense stack, scratch row 4: x1 x2 x3
  const auto v = sja::sec42_features(sja::Sec42Stack::dense);
  CHECK(v[8].terms().count(Exponent{1, 1, 1, 0}) == 1);
  CHECK(sja::sec42_task().num_coefficients() == 10);
}

}  // namespace test_sja_sec42
