// The GPT-2 pieces of layers/ (linear, layer_norm, gelu_mlp, multi_head_attention, positional, residual_blocks):
// each one's adjoint against central finite differences (tests/support/layer_fd.hpp), one output entry of
// LayerNorm, GeluMlp and MultiHeadAttention against a hand computation, the sin-cos encoding against Xing et al.
// formula (2), the blocks against their pieces composed, bad constructions, and a whole GPT-2-style model
// (read-in, trainable positions, two blocks, final LayerNorm, read-out) as a icl::Network: its gradient with
// respect to every parameter and prompt entry against central differences of icl::forward.
#include "icl/layers/gelu_mlp.hpp"
#include "icl/layers/layer_norm.hpp"
#include "icl/layers/linear.hpp"
#include "icl/layers/multi_head_attention.hpp"
#include "icl/layers/positional.hpp"
#include "icl/layers/residual_blocks.hpp"
#include "icl/layers/backprop.hpp"
#include "tests/support/layer_fd.hpp"
#include "tests/support/network_fd.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace icl::layers {
namespace test_gpt2_layers {  // named: a unity build compiles several test files as one unit
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using test::check_layer_adjoint;
using test::randomise_layer;
using test::random_matrix;

MatrixXd run(const Layer& l, const MatrixXd& Z) {
  Cache c;
  Scratch s;
  MatrixXd out;
  l.forward(Z, out, c, s);
  return out;
}

// The tanh-approximate gelu written out independently of gelu_mlp.cpp.
double gelu_ref(double x) {
  const double c = 0.7978845608028654;  // sqrt(2 / pi)
  return 0.5 * x * (1.0 + std::tanh(c * (x + 0.044715 * x * x * x)));
}

TEST_CASE("gpt2 layers: adjoints agree with central finite differences") {
  for (std::uint64_t seed : {41u, 42u}) {
    CAPTURE(seed);
    for (bool bias : {true, false}) {
      Linear in(3, 4, bias);
      randomise_layer(in, 0.6, seed);
      check_layer_adjoint(in, random_matrix(3, 6, seed + 1), seed);
    }
    {
      Linear out(4, 1);
      randomise_layer(out, 0.6, seed);
      check_layer_adjoint(out, random_matrix(4, 5, seed + 1), seed);
    }
    {
      LayerNorm ln(5);
      randomise_layer(ln, 0.8, seed);
      check_layer_adjoint(ln, random_matrix(5, 6, seed + 1), seed);
    }
    {
      GeluMlp mlp(4, 8);
      randomise_layer(mlp, 0.6, seed);
      check_layer_adjoint(mlp, random_matrix(4, 6, seed + 1), seed);
    }
    for (bool causal : {true, false}) {
      MultiHeadAttention a(4, 2, causal);
      randomise_layer(a, 0.7, seed);
      check_layer_adjoint(a, random_matrix(4, 7, seed + 1), seed);
    }
    {
      MultiHeadAttention a(6, 3, true);
      randomise_layer(a, 0.6, seed);
      check_layer_adjoint(a, random_matrix(6, 5, seed + 1), seed);
    }
    for (auto kind : {PositionalEncoding::Kind::none, PositionalEncoding::Kind::trainable,
                      PositionalEncoding::Kind::sincos, PositionalEncoding::Kind::sincos_vaswani}) {
      PositionalEncoding pe(4, 8, kind, 50.0);
      randomise_layer(pe, 0.5, seed);
      check_layer_adjoint(pe, random_matrix(4, 6, seed + 1), seed);
    }
    for (bool causal : {true, false}) {
      AttentionBlock b(4, 2, causal);
      randomise_layer(b, 0.7, seed);
      check_layer_adjoint(b, random_matrix(4, 6, seed + 1), seed);
    }
    {
      MlpBlock b(4, 8);
      randomise_layer(b, 0.6, seed);
      check_layer_adjoint(b, random_matrix(4, 6, seed + 1), seed);
    }
  }
}

TEST_CASE("gpt2 layers: one output entry of LayerNorm, GeluMlp and MultiHeadAttention by hand") {
  const MatrixXd Z = random_matrix(4, 5, 7);
  SUBCASE("linear") {
    Linear l(4, 3);
    randomise_layer(l, 1.0, 3);
    double y = l.param("b")(2, 0);
    for (Index k = 0; k < 4; ++k) y += l.param("W")(2, k) * Z(k, 3);
    CHECK(run(l, Z)(2, 3) == doctest::Approx(y).epsilon(1e-13));
  }
  SUBCASE("layer norm (biased variance, eps inside the square root)") {
    LayerNorm ln(4, 0.1);  // a large eps, so that its place matters
    randomise_layer(ln, 1.0, 3);
    const Index i = 2, j = 1;
    double mu = 0, var = 0;
    for (Index k = 0; k < 4; ++k) mu += Z(k, j) / 4;
    for (Index k = 0; k < 4; ++k) var += (Z(k, j) - mu) * (Z(k, j) - mu) / 4;
    const double y = ln.param("gamma")(i, 0) * (Z(i, j) - mu) / std::sqrt(var + 0.1) + ln.param("beta")(i, 0);
    CHECK(run(ln, Z)(i, j) == doctest::Approx(y).epsilon(1e-13));
    // A fresh LayerNorm (gamma = 1, beta = 0) gives columns of mean 0 and biased variance 1/(1 + eps/var).
    LayerNorm fresh(4);
    const MatrixXd out = run(fresh, Z);
    CHECK(std::abs(out.col(j).mean()) < 1e-14);
    CHECK(out.col(j).squaredNorm() / 4 == doctest::Approx(var / (var + 1e-5)).epsilon(1e-12));
  }
  SUBCASE("gelu mlp (GPT-2's tanh gelu)") {
    CHECK(gelu_tanh(1.0) == doctest::Approx(0.8411919906082768).epsilon(1e-14));  // erf gelu: 0.8413447
    CHECK(gelu_tanh(-0.5) == doctest::Approx(-0.15428599017485606).epsilon(1e-14));
    GeluMlp mlp(4, 8);
    randomise_layer(mlp, 0.7, 3);
    const Index i = 1, j = 4;
    double y = mlp.param("b2")(i, 0);
    for (Index k = 0; k < 8; ++k) {
      double a = mlp.param("b1")(k, 0);
      for (Index l = 0; l < 4; ++l) a += mlp.param("W1")(k, l) * Z(l, j);
      y += mlp.param("W2")(i, k) * gelu_ref(a);
    }
    CHECK(run(mlp, Z)(i, j) == doctest::Approx(y).epsilon(1e-13));
  }
  SUBCASE("multi-head attention (scaled by 1/sqrt(p/h), causal mask)") {
    const Index p = 4, h = 2, m = 2, N = 5;
    for (bool causal : {true, false}) {
      CAPTURE(causal);
      MultiHeadAttention a(p, h, causal);
      randomise_layer(a, 0.8, 3);
      const auto affine = [&](const char* W, const char* b, Index t) {
        Eigen::VectorXd x = a.param(b).col(0);
        for (Index r = 0; r < p; ++r)
          for (Index k = 0; k < p; ++k) x[r] += a.param(W)(r, k) * Z(k, t);
        return x;
      };
      const Index i = 3, j = 2;  // output entry (feature i, token j)
      const Eigen::VectorXd q = affine("Wq", "bq", j);
      Eigen::VectorXd concat = Eigen::VectorXd::Zero(p);
      for (Index head = 0; head < h; ++head) {
        const Index keys = causal ? j + 1 : N;
        std::vector<double> w;
        double total = 0;
        for (Index t = 0; t < keys; ++t) {
          const Eigen::VectorXd k = affine("Wk", "bk", t);
          double sc = 0;
          for (Index r = head * m; r < head * m + m; ++r) sc += k[r] * q[r];
          w.push_back(std::exp(sc / std::sqrt(static_cast<double>(m))));
          total += w.back();
        }
        for (Index t = 0; t < keys; ++t) {
          const Eigen::VectorXd v = affine("Wv", "bv", t);
          for (Index r = head * m; r < head * m + m; ++r) concat[r] += w[static_cast<std::size_t>(t)] / total * v[r];
        }
      }
      double y = a.param("bo")(i, 0);
      for (Index r = 0; r < p; ++r) y += a.param("Wo")(i, r) * concat[r];
      CHECK(run(a, Z)(i, j) == doctest::Approx(y).epsilon(1e-12));
      // Causal: token j's output does not see later tokens.
      MatrixXd Z2 = Z;
      Z2.col(N - 1).setConstant(3.0);
      const double change = (run(a, Z2).leftCols(N - 1) - run(a, Z).leftCols(N - 1)).norm();
      if (causal) CHECK(change == 0.0);
      else CHECK(change > 1e-3);
    }
  }
}

TEST_CASE("gpt2 layers: the sin-cos positional encoding is Xing et al. formula (2) with d replaced by p") {
  const Index p = 6, T = 8;
  const double Lambda = 100.0;
  // Formula (2), 1-based row rho and position pos: rho = 2i-1 -> sin((pos-1)/Lambda^(2i/p)), rho = 2i -> cos.
  const auto formula2 = [&](Index rho, Index pos) {
    const double i = static_cast<double>((rho + 1) / 2);
    const double x = static_cast<double>(pos - 1) / std::pow(Lambda, 2.0 * i / static_cast<double>(p));
    return rho % 2 == 1 ? std::sin(x) : std::cos(x);
  };
  PositionalEncoding pe(p, T, PositionalEncoding::Kind::sincos, Lambda);
  CHECK(pe.param_count() == 0);
  const MatrixXd E = pe.table();
  const MatrixXd out = run(pe, MatrixXd::Zero(p, 7));  // Z = 0: out = E[:, 0:7]
  for (auto [rho, pos] : std::vector<std::pair<Index, Index>>{{1, 1}, {2, 1}, {1, 2}, {2, 5}, {3, 4}, {4, 4},
                                                              {5, 7}, {6, 7}, {6, 8}}) {
    CAPTURE(rho);
    CAPTURE(pos);
    CHECK(E(rho - 1, pos - 1) == doctest::Approx(formula2(rho, pos)).epsilon(1e-14));
    if (pos <= 7) CHECK(out(rho - 1, pos - 1) == doctest::Approx(formula2(rho, pos)).epsilon(1e-14));
  }
  // Spot values: row 1 at pos 2 is sin(1/Lambda^(2/p)) = sin(100^(-1/3)); row 6 at pos 8 is cos(7/100).
  CHECK(E(0, 1) == doctest::Approx(std::sin(std::pow(100.0, -1.0 / 3.0))).epsilon(1e-14));
  CHECK(E(5, 7) == doctest::Approx(std::cos(0.07)).epsilon(1e-14));
  // The GPT-style (Vaswani) variant: i - 1 in the exponent, so rows 1, 2 are sin t, cos t.
  PositionalEncoding v(p, T, PositionalEncoding::Kind::sincos_vaswani, Lambda);
  const MatrixXd Ev = v.table();
  CHECK(Ev(0, 3) == doctest::Approx(std::sin(3.0)).epsilon(1e-14));
  CHECK(Ev(1, 3) == doctest::Approx(std::cos(3.0)).epsilon(1e-14));
  CHECK(Ev(2, 5) == doctest::Approx(std::sin(5.0 / std::pow(Lambda, 2.0 / 6.0))).epsilon(1e-14));
  CHECK(Ev(2, 5) == doctest::Approx(E(0, 5)).epsilon(1e-14));  // shifted by one pair
  // Trainable: E is the parameter; none: identity.
  PositionalEncoding t(p, T, PositionalEncoding::Kind::trainable);
  randomise_layer(t, 1.0, 5);
  const MatrixXd Z = random_matrix(p, 5, 6);
  CHECK((run(t, Z) - (Z + t.param("E").leftCols(5))).norm() == 0.0);
  PositionalEncoding none(p, T, PositionalEncoding::Kind::none);
  CHECK(none.param_count() == 0);
  CHECK((run(none, Z) - Z).norm() == 0.0);
}

TEST_CASE("gpt2 layers: bad constructions and inputs throw") {
  CHECK_THROWS_AS(MultiHeadAttention(6, 4), std::invalid_argument);
  CHECK_THROWS_AS(MultiHeadAttention(4, 0), std::invalid_argument);
  CHECK_THROWS_AS(AttentionBlock(6, 4), std::invalid_argument);
  CHECK_NOTHROW(MultiHeadAttention(6, 3));
  for (auto kind : {PositionalEncoding::Kind::none, PositionalEncoding::Kind::trainable,
                    PositionalEncoding::Kind::sincos}) {
    PositionalEncoding pe(4, 5, kind);
    CHECK_NOTHROW(run(pe, MatrixXd::Zero(4, 5)));
    CHECK_THROWS_AS(run(pe, MatrixXd::Zero(4, 6)), std::invalid_argument);  // N > max_tokens
    CHECK_THROWS_AS(run(pe, MatrixXd::Zero(3, 5)), std::invalid_argument);  // wrong rows
  }
  Linear l(3, 4);
  CHECK(l.out_rows(3) == 4);
  CHECK_THROWS_AS(run(l, MatrixXd::Zero(4, 2)), std::invalid_argument);
  CHECK_THROWS_AS(run(LayerNorm(4), MatrixXd::Zero(3, 2)), std::invalid_argument);
  CHECK_THROWS_AS(run(GeluMlp(4, 8), MatrixXd::Zero(3, 2)), std::invalid_argument);
  CHECK_THROWS_AS(run(MultiHeadAttention(4, 2), MatrixXd::Zero(3, 2)), std::invalid_argument);
}

TEST_CASE("gpt2 layers: a block is its pieces composed, its parameters addressed by prefixed name") {
  const MatrixXd Z = random_matrix(4, 6, 9);
  AttentionBlock ab(4, 2, true);
  CHECK(ab.param("ln.gamma") == MatrixXd::Ones(4, 1));  // GPT-2's initial LayerNorm
  randomise_layer(ab, 0.7, 11);
  MlpBlock mb(4, 8);
  randomise_layer(mb, 0.7, 12);
  LayerNorm ln(4);
  MultiHeadAttention mha(4, 2, true);
  GeluMlp mlp(4, 8);
  const auto copy_into = [](const Layer& block, Layer& piece, const std::string& prefix) {
    for (int p = 0; p < piece.param_count(); ++p)
      piece.param(p) = block.param(prefix + piece.params()[static_cast<std::size_t>(p)].name);
  };
  const auto check_attention = [&] {
    copy_into(ab, ln, "ln.");
    copy_into(ab, mha, "attn.");
    CHECK((run(ab, Z) - Z - run(mha, run(ln, Z))).norm() <= 1e-14 * Z.norm());
  };
  check_attention();
  copy_into(mb, ln, "ln.");
  copy_into(mb, mlp, "mlp.");
  CHECK((run(mb, Z) - Z - run(mlp, run(ln, Z))).norm() <= 1e-14 * Z.norm());
  // A write through param(name) is what the next forward pass uses (no copies to go stale).
  const MatrixXd before = run(ab, Z);
  ab.param("attn.Wq")(1, 2) += 0.5;
  ab.param("ln.beta")(0, 0) -= 0.25;
  CHECK((run(ab, Z) - before).norm() > 1e-6);
  check_attention();
  CHECK(ab.find("attn.bo") == 9);
  CHECK(mb.find("mlp.b2") == 5);
  CHECK_THROWS_AS(ab.param("Wq"), std::invalid_argument);
  // Held by value, a block copies its parameters.
  LayerPtr a(std::make_unique<AttentionBlock>(ab));
  LayerPtr b = a;
  b->param("attn.Wo")(0, 0) = 42.0;
  CHECK(a->param("attn.Wo")(0, 0) != 42.0);
  CHECK(std::string(b->kind()) == "attention_block");
}

using test::network_prediction;

TEST_CASE("gpt2 layers: a GPT-2-style network's gradient agrees with central differences of icl::forward") {
  const int d = 2, p = 4, heads = 2, hidden = 8, N = 7;
  icl::Network net;
  net.rows = d + 1;
  net.add(std::make_unique<Linear>(d + 1, p))  // read-in
      .add(std::make_unique<PositionalEncoding>(p, 9, PositionalEncoding::Kind::trainable));
  for (int block = 0; block < 2; ++block)
    net.add(std::make_unique<AttentionBlock>(p, heads, true)).add(std::make_unique<MlpBlock>(p, hidden));
  net.add(std::make_unique<LayerNorm>(p)).add(std::make_unique<Linear>(p, 1));  // ln_f, read-out
  for (int l = 0; l < net.size(); ++l) randomise_layer(net.layer(l), 0.6, 100 + 97 * static_cast<std::uint64_t>(l));
  MatrixXd Z = random_matrix(d + 1, N, 77);
  Z(d, N - 1) = 0.0;  // the query label is absent

  // The prediction is the last entry of the layers applied in turn.
  MatrixXd X = Z;
  for (int l = 0; l < net.size(); ++l) X = run(net.layer(l), X);
  REQUIRE(X.rows() == 1);
  CHECK(network_prediction(net, Z) == doctest::Approx(X(0, N - 1)).epsilon(1e-13));

  MatrixXd dZ;
  const int checked = test::check_network_gradients(net, Z, &dZ);
  // read-in 16, positions 36, 2 x (attention block 88 + MLP block 84), ln_f 8, read-out 5.
  CHECK(checked == 16 + 36 + 2 * (88 + 84) + 8 + 5);
  // Causal attention: the prediction at the last token changes with the first token's input.
  CHECK(dZ.col(0).norm() > 1e-8);
}

}  // namespace
}  // namespace test_gpt2_layers
}  // namespace icl::layers
