// Lemma 12's settings (constructions/sja_appC_lemma12.hpp): the six settings' names in code order, each with its
// LaTeX label; the memory estimate is the largest of the six settings' prompts (by hand at d = 1, n = 8: width
// C(3,2) = 3, so 4 rows and 9 columns, 8 (6 * 4 * 9 + 4 * 16) = 2240 bytes); each setting keeps its context length.
#include "constructions/sja_appC_lemma12.hpp"

#include <doctest/doctest.h>

#include <algorithm>

namespace test_sja_appC_lemma12 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("lemma12 settings: names in code order, each with a LaTeX label") {
  const ValueNames names = sja::lemma12_setting_names();
  const auto latex = sja::lemma12_setting_latex();
  REQUIRE(names.size() == 6);
  CHECK(latex.size() == 6);
  for (std::size_t i = 0; i < names.size(); ++i) {
    CAPTURE(i);
    CHECK(names[i].first == static_cast<double>(i + 1));
    CHECK(latex.count(names[i].second) == 1);
  }
  CHECK(names[0].second == "quad-fixed-w");
  CHECK(names[5].second == "quad-raw");
}

TEST_CASE("lemma12 settings: the memory estimate is the largest prompt's; each setting keeps n") {
  CHECK(sja::lemma12_workspace_bytes(1, 8) == 2240.0);
  double largest = 0;
  for (int s = 1; s <= 6; ++s) {
    const sja::Lemma12Setting k = sja::lemma12_setting(s, 1, 8, 1, 2);
    CHECK(k.n == 8);
    largest = std::max(largest, k.shape.workspace_bytes());
  }
  CHECK(largest == sja::lemma12_workspace_bytes(1, 8));
}

}  // namespace test_sja_appC_lemma12
