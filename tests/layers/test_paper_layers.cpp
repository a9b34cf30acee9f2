// The papers' layer types (lsa, bilinear, softmax attention): each one's adjoint, full pass and query path,
// against central finite differences (tests/support/layer_fd.hpp), and their parameters by name.
#include "icl/layers/bilinear.hpp"
#include "icl/layers/lsa.hpp"
#include "icl/layers/softmax_attention.hpp"
#include "tests/support/layer_fd.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

namespace icl::layers {
namespace {

using test::check_layer_adjoint;
using test::randomise_layer;
using test::random_matrix;

TEST_CASE("layers: lsa, bilinear and softmax attention adjoints agree with central finite differences") {
  for (std::uint64_t seed : {31u, 32u}) {
    CAPTURE(seed);
    for (bool masked : {true, false}) {
      Lsa l(4, masked, masked ? 0.0 : 0.3);
      randomise_layer(l, 0.5, seed);
      check_layer_adjoint(l, random_matrix(4, 6, seed + 1), seed);
    }
    Bilinear b(5);
    randomise_layer(b, 0.5, seed);
    check_layer_adjoint(b, random_matrix(5, 6, seed + 1), seed);
    for (auto act : {SoftmaxAttention::Activation::softmax, SoftmaxAttention::Activation::linear})
      for (bool causal : {true, false}) {
        SoftmaxAttention a(3, act, causal);
        randomise_layer(a, 0.7, seed);
        check_layer_adjoint(a, random_matrix(3, 7, seed + 1), seed);
      }
  }
}

TEST_CASE("layers: parameters are addressed by name; an unknown name is an error that lists the names") {
  Lsa l(3);
  CHECK(l.find("P") == 0);
  CHECK(l.find("Q") == 1);
  CHECK(l.find("W0") == -1);
  l.param("Q")(0, 1) = 2.0;
  CHECK(l.param(1)(0, 1) == 2.0);
  CHECK_THROWS_WITH_AS(l.param("V"), "a lsa layer has no parameter 'V' (it has: P, Q)", std::invalid_argument);
  Bilinear b(4);
  CHECK(b.param("W1").rows() == 3);
  CHECK_FALSE(b.writes_prediction());
  // A layer held by value copies its parameters.
  LayerPtr p(std::make_unique<Lsa>(l));
  LayerPtr q = p;
  q->param("Q")(0, 1) = 5.0;
  CHECK(p->param("Q")(0, 1) == 2.0);
  CHECK(std::string(q->kind()) == "lsa");
}

}  // namespace
}  // namespace icl::layers
