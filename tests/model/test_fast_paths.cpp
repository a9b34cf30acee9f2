// The Monte Carlo hot loop's fast paths against the straightforward computations they replace, on random
// inputs: the buffered Philox + inline ziggurat of PromptRng::fill_normal against a one-word-at-a-time
// reference; the sparse layer kernels and Transformer::predict against dense Eigen formulas (and predict
// against forward, bit for bit); PolynomialTask::evaluate and embed against plain loops.
#include "constructions/sja_appC.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace test_fast_paths {  // named: a unity build compiles several test files as one unit

namespace {

// The ziggurat as first written (one word at a time, z = (r >> 11) 2^-53 x_layer, sign * z), on the stream
// as documented in rng.hpp, computed with Random123's own classes: (k0, k1, h) = the first 96 bits of
// r123::Philox4x64 under the key (seed, purpose) at counter 0; block b = r123::Philox4x32 under (k0, k1) at
// counter (b, i mod 2^32, i div 2^32, h); words x0 | x1 << 32, x2 | x3 << 32.
class ReferenceRng {
public:
  ReferenceRng(std::uint64_t seed, std::uint64_t purpose, std::uint64_t i) {
    r123::Philox4x64 g;
    const auto h = g(r123::Philox4x64::ctr_type{{0, 0, 0, 0}}, r123::Philox4x64::key_type{{seed, purpose}});
    key_ = {{static_cast<std::uint32_t>(h.v[0]), static_cast<std::uint32_t>(h.v[0] >> 32)}};
    ctr_ = {{0, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i >> 32), static_cast<std::uint32_t>(h.v[1])}};
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 1.0) * 0x1.0p-53; }
  double normal() {
    const auto& t = icl::PromptRng::ziggurat();
    for (;;) {
      const std::uint64_t r = next();
      const unsigned layer = static_cast<unsigned>(r & 0xff);
      const double sign = (r & 0x100) ? -1.0 : 1.0;
      const double z = static_cast<double>(r >> 11) * 0x1.0p-53 * t.x[layer];
      if (z < t.x[layer + 1]) return sign * z;
      if (layer == 0) {
        for (;;) {
          const double a = -std::log(uniform()) / t.x[1];
          const double b = -std::log(uniform());
          if (2.0 * b > a * a) return sign * (t.x[1] + a);
        }
      }
      const double y = t.f[layer] + (uniform() - 0x1.0p-54) * (t.f[layer + 1] - t.f[layer]);
      if (y < std::exp(-0.5 * z * z)) return sign * z;
    }
  }

private:
  std::uint64_t next() {
    if (pos_ == 2) {
      r123::Philox4x32 g;
      const auto out = g(ctr_, key_);
      buf_[0] = out.v[0] | static_cast<std::uint64_t>(out.v[1]) << 32;
      buf_[1] = out.v[2] | static_cast<std::uint64_t>(out.v[3]) << 32;
      ++ctr_.v[0];
      pos_ = 0;
    }
    return buf_[pos_++];
  }
  r123::Philox4x32::key_type key_;
  r123::Philox4x32::ctr_type ctr_;
  std::uint64_t buf_[2] = {0, 0};
  int pos_ = 2;
};

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      if (!same_bits(a(i, j), b(i, j))) return false;
  return true;
}

Eigen::MatrixXd random_matrix(Eigen::Index r, Eigen::Index c, std::uint64_t seed) {
  icl::PromptRng rng(seed, 77, 0);
  Eigen::MatrixXd m(r, c);
  rng.fill_normal(m);
  return m;
}

// A random matrix with about `density` of its entries nonzero, some of them exactly +-1.
Eigen::MatrixXd sparse_matrix(Eigen::Index r, Eigen::Index c, double density, std::uint64_t seed) {
  icl::PromptRng rng(seed, 78, 0);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(r, c);
  for (Eigen::Index j = 0; j < c; ++j)
    for (Eigen::Index i = 0; i < r; ++i) {
      if (rng.uniform() > density) continue;
      const double u = rng.uniform();
      m(i, j) = u < 0.3 ? 1.0 : (u < 0.5 ? -1.0 : rng.normal());
    }
  return m;
}

// The layers written out as whole-matrix Eigen expressions.
Eigen::MatrixXd dense_bilinear(const icl::BilinearLayer& b, Eigen::MatrixXd Z) {
  const Eigen::Index dbar = Z.rows() - 1;
  const Eigen::MatrixXd A = b.W0 * Z.topRows(dbar), B = b.W1 * Z.topRows(dbar);
  Z.topRows(dbar) += A.cwiseProduct(B);
  return Z;
}
Eigen::MatrixXd attention_update(const icl::LinearSelfAttention& a, const Eigen::MatrixXd& Z) {
  const Eigen::Index N = Z.cols(), keys = a.masked ? N - 1 : N;
  const double s = a.scale != 0.0 ? a.scale : 1.0 / static_cast<double>(N - 1);
  return s * (a.P * (Z.leftCols(keys) * Z.leftCols(keys).transpose()) * a.Q * Z);
}
Eigen::MatrixXd dense_forward(const icl::Transformer& t, Eigen::MatrixXd Z) {
  for (const auto& layer : t.layers) {
    if (const auto* b = dynamic_cast<const icl::layers::Bilinear*>(layer.get())) Z = dense_bilinear(b->spec(), Z);
    else if (const auto* a = dynamic_cast<const icl::layers::Lsa*>(layer.get())) Z += attention_update(a->spec(), Z);
    else {
      Eigen::MatrixXd U = Eigen::MatrixXd::Zero(Z.rows(), Z.cols());
      for (const auto& h : dynamic_cast<const icl::layers::LsaHeads&>(*layer).spec().heads) U += attention_update(h, Z);
      Z += U;
    }
  }
  return Z;
}

double relative_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, b.cwiseAbs().maxCoeff());
}

}  // namespace

TEST_CASE("philox4x32::words: the portable and AVX2 paths = r123::Philox4x32, bit for bit, for every block count") {
  using icl::philox4x32::Path;
  long mismatches = 0, checked = 0;
  std::uint64_t portable[2 * 70], avx2[2 * 70], automatic[2 * 70];
  for (std::uint32_t trial = 0; trial < 40; ++trial) {
    const std::uint32_t k0 = 0x9E3779B9u * (trial + 1), k1 = 0x85EBCA6Bu ^ (trial * 0x27D4EB2Fu);
    // counters near 2^32 - 1 in the other words, and block numbers from 0 and from a large offset
    const std::uint32_t c[4] = {trial % 2 ? 0u : 4000000000u + trial, 0xFFFFFFFFu - trial, trial * 7919u, 0x12345678u + trial};
    const int blocks = static_cast<int>(trial * 7 % 71);  // 0 to 70 (all remainders mod 4 and mod 8)
    icl::philox4x32::words(k0, k1, c, blocks, portable, Path::portable);
    icl::philox4x32::words(k0, k1, c, blocks, avx2, Path::avx2);  // portable code where the CPU lacks AVX2
    icl::philox4x32::words(k0, k1, c, blocks, automatic);
    for (int b = 0; b < blocks; ++b) {
      r123::Philox4x32 g;
      const auto out = g(r123::Philox4x32::ctr_type{{c[0] + static_cast<std::uint32_t>(b), c[1], c[2], c[3]}},
                         r123::Philox4x32::key_type{{k0, k1}});
      const std::uint64_t wa = out.v[0] | static_cast<std::uint64_t>(out.v[1]) << 32,
                          wb = out.v[2] | static_cast<std::uint64_t>(out.v[3]) << 32;
      for (const std::uint64_t* w : {portable, avx2, automatic}) {
        ++checked;
        if (w[2 * b] != wa || w[2 * b + 1] != wb) ++mismatches;
      }
    }
  }
  const std::string path_used = icl::philox4x32::avx2_available() ? "run" : "not available on this CPU (portable code run)";
  MESSAGE("AVX2 path " << path_used);
  CHECK(checked > 3000);
  CHECK(mismatches == 0);
}

TEST_CASE("PromptRng::fill_normal (buffered Philox, inline ziggurat) = the one-word-at-a-time ziggurat, bit for bit") {
  long mismatches = 0, draws = 0;
  Eigen::MatrixXd X(4, 201), big(16, 37);
  Eigen::VectorXd w(15);
  Eigen::RowVectorXd rv(9);
  for (std::uint64_t i = 0; i < 3000; ++i) {
    icl::PromptRng fast(5, 11, i);
    ReferenceRng ref(5, 11, i);
    auto check = [&](double v) {
      ++draws;
      if (!same_bits(v, ref.normal())) ++mismatches;
    };
    fast.fill_normal(w);  // a contiguous vector
    for (Eigen::Index k = 0; k < w.size(); ++k) check(w[k]);
    fast.fill_normal(X);  // a contiguous matrix
    for (Eigen::Index j = 0; j < X.cols(); ++j)
      for (Eigen::Index r = 0; r < X.rows(); ++r) check(X(r, j));
    auto block = big.middleRows(1, 5);  // columns with an outer stride
    fast.fill_normal(block);
    for (Eigen::Index j = 0; j < block.cols(); ++j)
      for (Eigen::Index r = 0; r < block.rows(); ++r) check(block(r, j));
    fast.fill_normal(big.row(3));  // a strided row
    for (Eigen::Index j = 0; j < big.cols(); ++j) check(big(3, j));
    fast.fill_normal(rv);
    for (Eigen::Index j = 0; j < rv.size(); ++j) check(rv[j]);
    // interleaved with single draws, which continue the same stream
    if (!same_bits(fast.uniform(), ref.uniform())) ++mismatches;
    check(fast.normal());
    double one[3];
    fast.fill_normal(one, 3);
    for (double v : one) check(v);
  }
  CHECK(mismatches == 0);
  // enough draws that the wedge and tail paths (about 1% of draws) ran many times
  CHECK(draws > 3000 * 1000);
}

TEST_CASE("Sparse layer kernels = dense Eigen formulas; predict = forward then prediction, bit for bit") {
  const int trials = 60;
  double worst = 0;
  for (int trial = 0; trial < trials; ++trial) {
    const std::uint64_t s = static_cast<std::uint64_t>(100 * trial);
    // D from 3 to 18 (odd and even), N from 3 to 300 (below and above the 128-key blocking)
    // (and once D = 70, past the kernels' 64-row stack buffers)
    const Eigen::Index D = trial == trials - 1 ? 70 : 3 + trial % 16,
                       N = trial % 3 == 0 ? 3 + trial : (trial % 3 == 1 ? 140 + 3 * trial : 12);
    const Eigen::Index dbar = D - 1;
    icl::Transformer t;
    const double density = trial % 4 == 0 ? 1.0 : 0.25;
    // bilinear: dense or sparse weights (some rows empty, some +-1 pairs; in place or not)
    icl::BilinearLayer b{sparse_matrix(dbar, dbar, density, s + 1), sparse_matrix(dbar, dbar, density, s + 2)};
    if (trial % 5 == 1) {  // App. C's pattern on the first rows: 2x2 terms of weights +-1, and 1x1 terms
      b.W0.setZero();
      b.W1.setZero();
      for (Eigen::Index r = dbar / 2; r < dbar; ++r) {
        const Eigen::Index a0 = r % (dbar / 2), a1 = (r + 1) % (dbar / 2);
        b.W0(r, a0) = (r % 2) ? 1.0 : -1.0;
        b.W1(r, a0) = (r % 3) ? 1.0 : -1.0;
        if (r % 2 == 0 && a1 != a0) {
          b.W0(r, a1) = (r % 4) ? 1.0 : -1.0;
          b.W1(r, a1) = 1.0;
        }
      }
    }
    t.layers.emplace_back(b);
    icl::LinearSelfAttention a{sparse_matrix(D, D, trial % 2 ? 1.0 / static_cast<double>(D * D) : density, s + 3),
                               random_matrix(D, D, s + 4), trial % 3 != 2, trial % 7 == 0 ? 0.3 : 0.0};
    if (trial % 2) a.P(D - 1, D - 1) = 1.0;  // P = e e^T (plus whatever else was drawn)
    t.layers.emplace_back(a);
    if (trial % 6 == 3) t.layers.emplace_back(icl::LinearAttentionHeads{{a, icl::sja::sparse_attention(random_matrix(dbar, dbar, s + 5))}});
    else if (trial % 6 == 4) t.layers.emplace_back(b);
    Eigen::MatrixXd Z0 = random_matrix(D, N, s + 6);
    Z0.row(0).setOnes();
    const Eigen::MatrixXd expected = dense_forward(t, Z0);
    icl::ForwardWorkspace ws;
    Eigen::MatrixXd Z = Z0;
    t.forward(Z, ws);
    const double e = relative_error(Z, expected);
    worst = std::max(worst, e);
    INFO("trial ", trial, " D ", D, " N ", N);
    CHECK(e < 1e-10);
    // predict: the query column alone through the last layer, the same prediction bit for bit
    Eigen::MatrixXd Zp = Z0;
    CHECK(same_bits(t.predict(Zp, ws), icl::prediction(Z)));
    // the workspace reused with other weights (its compiled bilinear layer must not be reused)
    icl::Transformer t2 = t;
    t2.weight(0, "W0")(dbar - 1, 0) += 0.5;
    Eigen::MatrixXd Z2 = Z0;
    t2.forward(Z2, ws);
    CHECK(relative_error(Z2, dense_forward(t2, Z0)) < 1e-10);
  }
  MESSAGE("worst relative difference from the dense formulas: ", worst);
}

TEST_CASE("sja App. C block: the kernels sum as the Eigen products they replaced (bitwise) and predict = forward") {
  // With Eigen's 2-wide double packets (SSE2), the Gram row and U = T Z are summed in the order of Eigen's
  // matrix-vector kernels, so the numbers are those of the products written with Eigen.
  const int d = 4, n = 200;
  const auto block = icl::sja::appC_block(d);
  const auto task = icl::PolynomialTask::quadratic(d);
  const auto inputs = icl::InputDistribution::standard(d);
  const auto shape = icl::sja_shape(d, icl::sja::kernel_width(d), n);
  Eigen::MatrixXd X(d, shape.cols()), Z(shape.rows(), shape.cols());
  Eigen::VectorXd w(task.num_coefficients());
  Eigen::RowVectorXd y(shape.cols());
  icl::ForwardWorkspace ws;
  const icl::LinearSelfAttention att = block.layer_as<icl::layers::Lsa>(1).spec();
  long mismatches = 0;
  for (std::uint64_t i = 0; i < 200; ++i) {
    icl::PromptRng rng(1, 7, i);
    rng.fill_normal(w);
    inputs.sample(rng, X);
    task.evaluate(X, w, y);
    icl::embed(shape, X, y, Z);
    Eigen::MatrixXd Zf = Z;
    block.forward(Zf, ws);
    Eigen::MatrixXd Zp = Z;
    CHECK(same_bits(block.predict(Zp, ws), icl::prediction(Zf)));
    // the previous implementation's products
    Eigen::MatrixXd Zb = dense_bilinear(block.layer_as<icl::layers::Bilinear>(0).spec(), Z);
    const Eigen::Index D = Zb.rows(), N = Zb.cols();
    Eigen::MatrixXd G(1, D), T(1, D), U(1, N);
    G.noalias() = Zb.row(D - 1).head(N - 1) * Zb.leftCols(N - 1).transpose();
    T.noalias() = G * att.Q;
    U.noalias() = T * Zb;
    Zb.row(D - 1) += (1.0 / n) * U;
    CHECK(relative_error(Zf, Zb) < 1e-12);
    if (Eigen::internal::packet_traits<double>::size == 2 && !same_bits(Zf, Zb)) ++mismatches;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("Attention with one nonzero entry in P: the hand-written sums are Eigen's, bitwise, at every size") {
  // The products as the previous implementation wrote them (P's nonzero row and column gathered).
  long compared = 0, mismatches = 0;
  for (Eigen::Index D = 3; D <= 18; ++D)
    for (Eigen::Index N : {5, 12, 17, 19, 30, 129, 201})
      for (bool masked : {true, false}) {
        const std::uint64_t s = static_cast<std::uint64_t>(1000 * D + N + (masked ? 0 : 7));
        icl::LinearSelfAttention a{Eigen::MatrixXd::Zero(D, D), random_matrix(D, D, s), masked, 0.0};
        const Eigen::Index pr = D - 1 - D % 2, pc = (D * 7) % D;  // not always the corner
        a.P(pr, pc) = 0.75;
        const Eigen::MatrixXd Z0 = random_matrix(D, N, s + 1);
        const Eigen::Index keys = masked ? N - 1 : N;
        Eigen::MatrixXd ZK = Z0.row(pc).head(keys), W(1, 1), G(1, D), S(1, D), T(1, D), U(1, N);
        W(0, 0) = 0.75;
        G.noalias() = ZK * Z0.leftCols(keys).transpose();
        S.noalias() = W * G;
        T.noalias() = S * a.Q;
        U.noalias() = T * Z0;
        Eigen::MatrixXd expected = Z0;
        expected.row(pr) += (1.0 / static_cast<double>(N - 1)) * U;
        icl::ForwardWorkspace ws;
        Eigen::MatrixXd Z = Z0;
        a.apply(Z, ws);
        INFO("D ", D, " N ", N, " masked ", masked);
        CHECK(relative_error(Z, expected) < 1e-13);
        Eigen::MatrixXd Zq = Z0;
        a.apply_query(Zq, ws);
        CHECK(same_bits(Eigen::MatrixXd(Zq.col(N - 1)), Eigen::MatrixXd(Z.col(N - 1))));
        CHECK(same_bits(Eigen::MatrixXd(Zq.leftCols(N - 1)), Eigen::MatrixXd(Z0.leftCols(N - 1))));
        if (Eigen::internal::packet_traits<double>::size == 2) {
          ++compared;
          if (!same_bits(Z, expected)) ++mismatches;
        }
      }
  MESSAGE(compared, " shapes compared bitwise with Eigen's products");
  CHECK(mismatches == 0);
}

TEST_CASE("PolynomialTask::evaluate and embed = plain loops, bit for bit") {
  for (int p : {1, 2, 3}) {
    for (int d : {1, 3, 4}) {
      const auto task = p == 1 ? icl::PolynomialTask::linear(d) : icl::PolynomialTask::polynomial(d, p);
      const Eigen::MatrixXd X = random_matrix(d, 33, static_cast<std::uint64_t>(10 * p + d));
      const Eigen::VectorXd w = random_matrix(task.num_coefficients(), 1, static_cast<std::uint64_t>(20 * p + d));
      Eigen::RowVectorXd y(33), ref(33);
      task.evaluate(X, w, y);
      for (Eigen::Index j = 0; j < 33; ++j) {
        double acc = 0.0;
        for (std::size_t k = 0; k < task.monomials.size(); ++k) {
          double term = w[static_cast<Eigen::Index>(k)];
          for (int i = 0; i < d; ++i)
            for (int q = 0; q < task.monomials[k][static_cast<std::size_t>(i)]; ++q) term *= X(i, j);
          acc += term;
        }
        ref[j] = acc;
      }
      CHECK(same_bits(Eigen::MatrixXd(y), Eigen::MatrixXd(ref)));
      for (const auto& shape : {icl::sja_shape(d, d + 3, 32), icl::acds_shape(d, 32), icl::zfb_shape(d, 32)}) {
        Eigen::MatrixXd Z = Eigen::MatrixXd::Constant(shape.rows(), shape.cols(), 7.0), E;
        icl::embed(shape, X, y, Z);
        E = Eigen::MatrixXd::Zero(shape.rows(), shape.cols());
        int r = 0;
        if (shape.embedding == icl::Embedding::sja) E.row(r++).setOnes();
        E.middleRows(r, d) = X;
        E.row(shape.dbar).head(shape.n) = y.head(shape.n);
        CHECK(same_bits(Z, E));
      }
    }
  }
}

}  // namespace test_fast_paths
