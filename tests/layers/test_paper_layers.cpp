// The papers' layer types (lsa, bilinear, softmax attention): each one's adjoint, full pass and query path,
// against central finite differences (tests/support/layer_fd.hpp), and their parameters by name.
#include "icl/layers/bilinear.hpp"
#include "icl/layers/lsa.hpp"
#include "icl/layers/network.hpp"
#include "icl/layers/positional.hpp"
#include "icl/layers/softmax_attention.hpp"
#include "tests/support/layer_fd.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <stdexcept>

namespace icl::layers {
namespace test_paper_layers {  // named: a unity build compiles several test files as one unit
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
    LsaHeads h(4, 3);
    h.masked[1] = 0;
    h.scale[2] = 0.2;
    randomise_layer(h, 0.5, seed);
    check_layer_adjoint(h, random_matrix(4, 6, seed + 1), seed);
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

bool same_bits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

// The in-place pass (what the Monte Carlo workers run) against forward() (what training runs): one layer type, two
// passes, the same outputs to rounding; and a layer made from a construction's weights runs bit for bit what the
// weights' own apply() runs.
TEST_CASE("layers: apply() in place equals forward(), and a construction's weights run bit for bit as its layer") {
  for (std::uint64_t seed : {41u, 42u}) {
    CAPTURE(seed);
    const Eigen::MatrixXd Z = random_matrix(5, 8, seed + 1);
    std::vector<LayerPtr> all;
    for (bool masked : {true, false}) all.emplace_back(std::make_unique<Lsa>(5, masked, masked ? 0.0 : 0.3));
    all.emplace_back(std::make_unique<LsaHeads>(5, 2));
    all.emplace_back(std::make_unique<Bilinear>(5));
    for (auto act : {SoftmaxAttention::Activation::softmax, SoftmaxAttention::Activation::linear})
      all.emplace_back(std::make_unique<SoftmaxAttention>(5, act, true));
    all.emplace_back(std::make_unique<PositionalEncoding>(5, 8, PositionalEncoding::Kind::trainable));  // default apply()
    for (auto& l : all) {
      CAPTURE(l->kind());
      randomise_layer(*l, 0.4, seed);
      Cache c;
      Scratch s;
      Eigen::MatrixXd out;
      l->forward(Z, out, c, s);
      ForwardWorkspace ws;
      Eigen::MatrixXd Za = Z;
      l->apply(Za, ws);
      CHECK((Za - out).norm() <= 1e-12 * out.norm());
      Eigen::MatrixXd Zq = Z;
      l->apply_query(Zq, ws);
      CHECK(std::bit_cast<std::uint64_t>(Zq(4, 7)) == std::bit_cast<std::uint64_t>(Za(4, 7)));
    }
    // From the construction's weights: the same bits as the weights' own in-place pass.
    const LinearSelfAttention spec{random_matrix(5, 5, seed + 2), random_matrix(5, 5, seed + 3), true, 0.0};
    const LinearAttentionHeads heads{{spec, {random_matrix(5, 5, seed + 4), random_matrix(5, 5, seed + 5), false, 0.5}}};
    const BilinearLayer bil{random_matrix(4, 4, seed + 6), random_matrix(4, 4, seed + 7)};
    ForwardWorkspace ws;
    Eigen::MatrixXd a = Z, b = Z;
    spec.apply(a, ws);
    Network{0, {spec}}.forward(b, ws);
    CHECK(same_bits(a, b));
    a = Z, b = Z;
    heads.apply(a, ws);
    Network{0, {heads}}.forward(b, ws);
    CHECK(same_bits(a, b));
    a = Z, b = Z;
    bil.apply(a, ws);
    Network{0, {bil}}.forward(b, ws);
    CHECK(same_bits(a, b));
    // and the layer gives the weights back
    const Network n{0, {spec, heads, bil}};
    CHECK(same_bits(n.layer_as<Lsa>(0).spec().Q, spec.Q));
    CHECK(n.layer_as<LsaHeads>(1).spec().heads[1].scale == 0.5);
    CHECK(same_bits(n.layer_as<Bilinear>(2).spec().W1, bil.W1));
    CHECK_THROWS_WITH_AS(n.layer_as<Bilinear>(0), "layer 0 of the stack is a lsa layer, not a bilinear layer",
                         std::invalid_argument);
  }
}

}  // namespace
}  // namespace test_paper_layers
}  // namespace icl::layers
