// Corollary 8's checks of the App. H stack (constructions/sja_appH_cor8) where the answer is known by hand: at d = 2,
// p = 2 the schedule is (clear, generate(1)), (clear, generate(2)), whose scratch rows hold x1 x, then x2 x, so the
// cycle reaches x1^2, x1 x2, x2^2 and repeats; one prompt through the real stack equals block-coordinate descent to
// rounding, and the worst over prompts is the same at any thread count.
#include "constructions/sja_appH.hpp"
#include "constructions/sja_appH_cor8.hpp"

#include <doctest/doctest.h>

namespace test_sja_appH_cor8 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("Cor. 8 at d = 2, p = 2: the cycle by hand, and one prompt against block-coordinate descent") {
  const auto schedule = sja::appH_schedule(2, 2);
  REQUIRE(schedule.size() == 4);  // C(d+p-2, p-1) p = 2 * 2
  const sja::AppHCycle sym = sja::appH_simulate(2, 2, schedule);
  CHECK(sym.cycle == 4);
  CHECK(sym.non_monomial_rows == 0);
  CHECK(sym.second_cycle_repeats);
  // every row of every block: 1, x1, x2 and the three products, all C(d+p, p) = 6 monomials
  CHECK(sym.covered == std::set<Exponent>{{0, 0}, {1, 0}, {0, 1}, {2, 0}, {1, 1}, {0, 2}});
  // after generate(1) (block 2): scratch rows x1 x1, x2 x1
  REQUIRE(sym.blocks.size() >= 2);
  CHECK(sym.blocks[1].rows[3] == Exponent{2, 0});
  CHECK(sym.blocks[1].rows[4] == Exponent{1, 1});
  CHECK(sym.blocks[0].rows[3].empty());  // clear leaves zeros

  const sja::AppHNumeric nm = sja::appH_numeric(2, 2, 6, sym);
  CHECK(nm.monomials.size() == 6);
  CHECK(nm.L == static_cast<int>(sym.blocks.size()));
  using P = sja::AppHPrompt;
  for (std::uint64_t i : {0, 1}) {
    CAPTURE(i);
    const auto e = sja::appH_check_prompt(nm, schedule, 3, 0xc08, i);
    REQUIRE(e[P::kOutOfRange] == 0);
    for (int k : {P::kLabels, P::kScratch, P::kQueryPlain, P::kRefSelf}) CHECK(e[static_cast<std::size_t>(k)] < 1e-9);
  }
  const WorstCase w1 = sja::appH_worst_over_prompts(nm, schedule, 3, 0xc08, 20, 1);
  const WorstCase w2 = sja::appH_worst_over_prompts(nm, schedule, 3, 0xc08, 20, 2);
  CHECK(w1.prompts == 20);
  CHECK(w1.worst == w2.worst);
  CHECK(w1.where == w2.where);
}

}  // namespace test_sja_appH_cor8
