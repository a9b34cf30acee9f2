// Figure 2's models and settings (constructions/xlssc_fig2): the seven models in the report's order, which of them a
// reduced run trains, the paper's settings recognised and every reduction named.
#include "constructions/xlssc_fig2.hpp"

#include <doctest/doctest.h>

namespace test_xlssc_fig2 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("Fig. 2: the seven models, the paper's settings, the reductions") {
  xlssc::Fig2Settings s;  // the paper's defaults
  CHECK(s.is_paper());
  CHECK(s.differences().empty());
  const std::vector<xlssc::Fig2Model> m = xlssc::fig2_models(s);
  REQUIRE(m.size() == 7);
  CHECK((m[0].spec.layers == 1 && m[0].spec.mask && m[0].spec.pe == gpt2::Pe::none));
  CHECK((m[1].spec.layers == 1 && !m[1].spec.mask));
  CHECK((m[2].spec.layers == 2 && m[2].spec.mask && m[2].spec.pe == gpt2::Pe::none));  // the positive control
  CHECK((m[4].spec.layers == 2 && !m[4].spec.mask && m[4].spec.pe == gpt2::Pe::trainable));
  CHECK((m[6].spec.mask && m[6].spec.pe == gpt2::Pe::sincos));
  for (const auto& x : m) CHECK((x.spec.d == 5 && x.spec.D == 30 && x.spec.p == 64 && x.spec.heads == 8));

  s.models = xlssc::kControlOnly;
  CHECK_FALSE(s.is_paper());
  for (std::size_t i = 0; i < 7; ++i) CHECK(s.trains(i) == (i == 2));
  s.models = xlssc::kMaskedModels;
  CHECK((s.trains(2) && s.trains(5) && s.trains(6) && !s.trains(0) && !s.trains(3)));
  s.steps = 2000;
  s.lr = 1e-3;
  s.trials = 2;
  const std::string d = s.differences();
  CHECK(d.find("2000 steps (paper 500k)") != std::string::npos);
  CHECK(d.find("learning rate 0.001 (Garg et al. 1e-4)") != std::string::npos);
  CHECK(d.find("2 trials") != std::string::npos);
  CHECK(d.find("only the three two-layer masked models") != std::string::npos);
}

}  // namespace test_xlssc_fig2
