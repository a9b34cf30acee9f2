// layers/backprop.hpp: the trainable forward pass agrees with the project's layers (model/), and the
// hand-written adjoints agree with central finite differences for every layer kind and for stacks, at
// several random points.
#include "icl/layers/lsa.hpp"
#include "icl/layers/backprop.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/softmax_attention.hpp"
#include "tests/support/network_fd.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>

namespace icl::learn {
namespace test_network {  // named: a unity build compiles several test files as one unit
namespace {

using test::random_matrix;
using Act = SoftmaxAttention::Activation;

// Finite differences: tests/support/network_fd.hpp (step 1e-5 * max(1, |w|), tolerance 1e-6 * (1 + |adjoint|)).

void randomise(Network& net, double scale, std::uint64_t seed) {
  for (int l = 0; l < net.size(); ++l)
    for (int s = 0; s < net.layer(l).param_count(); ++s) {
      auto& W = net.layer(l).param(s);
      W = scale * random_matrix(static_cast<int>(W.rows()), static_cast<int>(W.cols()), seed + 10 * l + s);
    }
}

Eigen::MatrixXd random_prompt_matrix(int rows, int cols, std::uint64_t seed) {
  Eigen::MatrixXd Z = random_matrix(rows, cols, seed);
  Z(rows - 1, cols - 1) = 0.0;  // the query label is absent
  return Z;
}

double predict(const Network& net, const Eigen::MatrixXd& Z) { return test::network_prediction(net, Z); }

// Every weight entry and every prompt entry of `net` at prompt Z: adjoint vs central differences.
void check_gradients(const Network& net, const Eigen::MatrixXd& Z) { CHECK(test::check_network_gradients(net, Z) > 0); }

Network lsa_stack(int rows, int L, bool masked) {
  Network n;
  n.rows = rows;
  for (int l = 0; l < L; ++l) n.add_lsa(masked);
  return n;
}

TEST_CASE("learn: the training forward pass equals the in-place pass (lsa, bilinear, softmax)") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    // sja-shaped bilinear Transformer (2 blocks) and acds/zfb LSA stacks.
    Network sja;
    sja.rows = 7;
    sja.add_bilinear().add_lsa(true).add_bilinear().add_lsa(true);
    randomise(sja, 0.3, seed);
    const Eigen::MatrixXd Z = random_prompt_matrix(7, 9, seed + 100);
    Eigen::MatrixXd Zt = Z;
    ForwardWorkspace ws;
    sja.forward(Zt, ws);  // apply(): the kernels the Monte Carlo workers run
    CHECK(predict(sja, Z) == doctest::Approx(prediction(Zt)).epsilon(1e-12));
    Eigen::MatrixXd Zf = Z;
    forward_full(sja, Zf);
    CHECK((Zf - Zt).norm() <= 1e-12 * Zt.norm());

    Network zfb = lsa_stack(4, 2, false);
    dynamic_cast<layers::Lsa&>(zfb.layer(1)).scale = 0.25;
    randomise(zfb, 0.4, seed + 7);
    const Eigen::MatrixXd E = random_prompt_matrix(4, 6, seed + 200);
    Eigen::MatrixXd Et = E;
    zfb.forward(Et, ws);
    CHECK(predict(zfb, E) == doctest::Approx(prediction(Et)).epsilon(1e-12));

    for (Act act : {Act::softmax, Act::linear})
      for (bool causal : {true, false}) {
        Network sm;
        sm.rows = 3;
        sm.add_softmax(act, causal).add_softmax(act, causal);
        randomise(sm, 0.5, seed + 13);
        const Eigen::MatrixXd U = random_prompt_matrix(3, 7, seed + 300);
        Eigen::MatrixXd Ut = U;
        sm.forward(Ut, ws);
        CHECK(predict(sm, U) == doctest::Approx(unstructured_prediction(Ut)).epsilon(1e-12));
        Eigen::MatrixXd Uf = U;
        forward_full(sm, Uf);
        CHECK((Uf - Ut).norm() <= 1e-12 * Ut.norm());
      }
  }
}

TEST_CASE("learn: adjoints of single layers agree with central finite differences") {
  for (std::uint64_t seed : {11u, 12u, 13u}) {
    CAPTURE(seed);
    {
      INFO("masked LSA (sja, acds)");
      Network n = lsa_stack(4, 1, true);
      randomise(n, 0.5, seed);
      check_gradients(n, random_prompt_matrix(4, 6, seed + 1));
    }
    {
      INFO("unmasked LSA (zfb), explicit scale");
      Network n = lsa_stack(4, 1, false);
      dynamic_cast<layers::Lsa&>(n.layer(0)).scale = 0.3;
      randomise(n, 0.5, seed);
      check_gradients(n, random_prompt_matrix(4, 6, seed + 1));
    }
    {
      INFO("bilinear layer followed by LSA (the bilinear layer alone cannot change the prediction)");
      Network n;
      n.rows = 5;
      n.add_bilinear().add_lsa(true);
      randomise(n, 0.5, seed);
      check_gradients(n, random_prompt_matrix(5, 6, seed + 1));
    }
    {
      INFO("softmax attention, causal and not, softmax and linear phi");
      for (Act act : {Act::softmax, Act::linear})
        for (bool causal : {true, false}) {
          Network n;
          n.rows = 3;
          n.add_softmax(act, causal);
          randomise(n, 0.7, seed);
          check_gradients(n, random_prompt_matrix(3, 7, seed + 1));
        }
    }
  }
}

TEST_CASE("learn: adjoints of stacks agree with central finite differences") {
  for (std::uint64_t seed : {21u, 22u, 23u}) {
    CAPTURE(seed);
    {
      INFO("three masked LSA layers (acds)");
      Network n = lsa_stack(4, 3, true);
      randomise(n, 0.4, seed);
      check_gradients(n, random_prompt_matrix(4, 7, seed + 1));
    }
    {
      INFO("two unmasked LSA layers (zfb)");
      Network n = lsa_stack(3, 2, false);
      randomise(n, 0.4, seed);
      check_gradients(n, random_prompt_matrix(3, 5, seed + 1));
    }
    {
      INFO("bilinear Transformer, 2 blocks, with a trailing bilinear layer (sja)");
      Network n;
      n.rows = 6;
      n.add_bilinear().add_lsa(true).add_bilinear().add_lsa(true).add_bilinear();
      randomise(n, 0.3, seed);
      check_gradients(n, random_prompt_matrix(6, 6, seed + 1));
    }
    {
      INFO("two causal softmax layers, then a linear-phi layer (xlssc)");
      Network n;
      n.rows = 3;
      n.add_softmax(Act::softmax, true).add_softmax(Act::softmax, true).add_softmax(Act::linear, true);
      randomise(n, 0.5, seed);
      check_gradients(n, random_prompt_matrix(3, 7, seed + 1));
    }
    {
      INFO("mixed: bilinear, softmax, masked LSA");
      Network n;
      n.rows = 5;
      n.add_bilinear().add_softmax(Act::softmax, false).add_lsa(true);
      randomise(n, 0.4, seed);
      check_gradients(n, random_prompt_matrix(5, 6, seed + 1));
    }
  }
}

TEST_CASE("learn: a stack of bilinear layers alone has zero gradient and predicts the prompt's entry") {
  Network n;
  n.rows = 4;
  n.add_bilinear().add_bilinear();
  randomise(n, 0.5, 5);
  const Eigen::MatrixXd Z = random_prompt_matrix(4, 5, 6);
  Tape t;
  CHECK(forward(n, Z, t) == Z(3, 4));
  WeightGrads g = n.make_grads();
  backward(n, t, 1.0, g);
  for (const auto& w : g.g) CHECK(w[0].norm() + w[1].norm() == 0.0);
}

}  // namespace
}  // namespace test_network
}  // namespace icl::learn
