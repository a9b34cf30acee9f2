// Weights under any names (attention_weights.hpp, issue 46): a name map reads the arrays of a state dict or a file
// under the canonical names, lists the arrays it leaves out, and refuses a malformed map with one line.
#include "icl/model/attention_weights.hpp"

#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

namespace test_weight_names {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

NpyArray square(int D, double scale) {
  NpyArray a;
  a.shape = {D, D};
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) a.data.push_back(scale * (i == j ? 1.0 : 0.1 * (i - j)));
  return a;
}

using Arrays = std::vector<std::pair<std::string, NpyArray>>;

std::string refusal(const Arrays& arrays, const NameMap& names) {
  try {
    lsa_stack_from_arrays(arrays, "w.safetensors", names);
  } catch (const ArrayFileError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("weights: a name map reads any naming, exactly as the canonical names") {
  const Arrays canonical{{"P1", square(3, 1)}, {"Q1", square(3, -0.5)}, {"P2", square(3, 2)}, {"Q2", square(3, 0.25)}};
  const Arrays theirs{{"layers.0.attn.P", square(3, 1)}, {"layers.0.attn.Q", square(3, -0.5)},
                      {"layers.1.attn.P", square(3, 2)}, {"layers.1.attn.Q", square(3, 0.25)},
                      {"head.bias", square(3, 7)}};
  const NameMap names{{"P1", "layers.0.attn.P"}, {"Q1", "layers.0.attn.Q"}, {"P2", "layers.1.attn.P"},
                      {"Q2", "layers.1.attn.Q"}};
  const LsaStack a = lsa_stack_from_arrays(canonical, "a"), b = lsa_stack_from_arrays(theirs, "b", names);
  REQUIRE(b.num_layers() == 2);
  CHECK(b.d == 2);
  for (int l = 0; l < 2; ++l) {
    CHECK(b.layers[l][0].P == a.layers[l][0].P);
    CHECK(b.layers[l][0].Q == a.layers[l][0].Q);
  }
  CHECK(b.names == names);
  CHECK(b.unused == std::vector<std::string>{"head.bias"});
  CHECK(a.unused.empty());
  // Without the map the same arrays are refused, and the message says how to name them.
  const std::string plain = refusal(theirs, {});
  CHECK(plain.find("unexpected array 'layers.0.attn.P'") != std::string::npos);
  CHECK(plain.find("names={\"P1\": \"layers.0.attn.P\"") != std::string::npos);
  CHECK(plain.find("--name P1=layers.0.attn.P") != std::string::npos);
}

TEST_CASE("weights: a malformed name map is refused with one line naming the entry") {
  const Arrays theirs{{"p", square(3, 1)}, {"q", square(3, 1)}};
  CHECK(refusal(theirs, {{"P1", "p"}, {"Q1", "x"}}).find("no array 'x' (for Q1); present: p, q") != std::string::npos);
  CHECK(refusal(theirs, {{"P1", "p"}, {"Q1", "p"}}).find("the array 'p' is named both P1 and Q1") != std::string::npos);
  CHECK(refusal(theirs, {{"P1", "p"}, {"P1", "q"}}).find("'P1' is given twice") != std::string::npos);
  CHECK(refusal(theirs, {{"W1", "p"}}).find("'W1' is not a name of the weights' layout") != std::string::npos);
  CHECK(refusal(theirs, {{"P0", "p"}}).find("'P0' is not a name") != std::string::npos);
  CHECK(refusal(theirs, {{"P1", "p"}}).find("missing array Q1") != std::string::npos);  // the layout's own check
  for (const auto& m : {refusal(theirs, {{"P1", "p"}, {"Q1", "x"}}), refusal(theirs, {{"W1", "p"}})})
    CHECK(m.find('\n') == std::string::npos);
}

}  // namespace test_weight_names
