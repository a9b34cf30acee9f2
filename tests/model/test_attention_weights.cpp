// Weights trained elsewhere (lib/icl/model/attention_weights.hpp): the allparam layout runs exactly like the acds
// authors' code (a literal port of its einsums on row tokens, below), several heads sum, and every malformed
// array is refused with a one-line message.
#include "icl/model/attention_weights.hpp"

#include "tests/support/npy_files.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <limits>

namespace test_attention_weights {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// chengxiang/LinearTransformer, linear_transformer.py, `attention(P, Q, Z)` with Z of shape (N+1, d+1) (one
// prompt, tokens as rows), written out index by index:
//   P_full = [[P, 0], [0, 1]], Q_full = [[Q, 0], [0, 0]], A = I with A[N, N] = 0,
//   Attn[N', M] = sum_ij Z[N', i] Q_full[i, j] Z[M, j],  key[L, i] = sum_j P_full[i, j] Z[L, j],
//   Output[N', i] = sum_{M, L} Attn[N', M] A[M, L] key[L, i],  returned / N.
Eigen::MatrixXd acds_attention(const Eigen::MatrixXd& P, const Eigen::MatrixXd& Q, const Eigen::MatrixXd& Z) {
  const Eigen::Index T = Z.rows(), N = T - 1, D = Z.cols(), d = D - 1;
  Eigen::MatrixXd Pf = Eigen::MatrixXd::Zero(D, D), Qf = Eigen::MatrixXd::Zero(D, D), A = Eigen::MatrixXd::Identity(T, T);
  Pf.topLeftCorner(d, d) = P;
  Pf(d, d) = 1;
  Qf.topLeftCorner(d, d) = Q;
  A(N, N) = 0;
  Eigen::MatrixXd attn = Eigen::MatrixXd::Zero(T, T), key = Eigen::MatrixXd::Zero(T, D), out = Eigen::MatrixXd::Zero(T, D);
  for (Eigen::Index a = 0; a < T; ++a)
    for (Eigen::Index m = 0; m < T; ++m)
      for (Eigen::Index i = 0; i < D; ++i)
        for (Eigen::Index j = 0; j < D; ++j) attn(a, m) += Z(a, i) * Qf(i, j) * Z(m, j);
  for (Eigen::Index l = 0; l < T; ++l)
    for (Eigen::Index i = 0; i < D; ++i)
      for (Eigen::Index j = 0; j < D; ++j) key(l, i) += Pf(i, j) * Z(l, j);
  for (Eigen::Index a = 0; a < T; ++a)
    for (Eigen::Index i = 0; i < D; ++i)
      for (Eigen::Index m = 0; m < T; ++m)
        for (Eigen::Index l = 0; l < T; ++l) out(a, i) += attn(a, m) * A(m, l) * key(l, i);
  return out / static_cast<double>(N);
}

// Transformer_F.forward: per layer, Z <- Z + sum_h attention(W[l,h,0], W[l,h,1], Z).
Eigen::MatrixXd acds_forward(const NpyArray& W, Eigen::MatrixXd Z) {
  const int L = static_cast<int>(W.shape[0]), H = static_cast<int>(W.shape[1]), d = static_cast<int>(W.shape[3]);
  auto block = [&](int l, int h, int k) {
    Eigen::MatrixXd m(d, d);
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) m(i, j) = W.data[(((static_cast<std::size_t>(l) * H + h) * 2 + k) * d + i) * d + j];
    return m;
  };
  for (int l = 0; l < L; ++l) {
    Eigen::MatrixXd residues = Eigen::MatrixXd::Zero(Z.rows(), Z.cols());
    for (int h = 0; h < H; ++h) residues += acds_attention(block(l, h, 0), block(l, h, 1), Z);
    Z += residues;
  }
  return Z;
}

NpyArray random_allparam(int L, int H, int d, std::uint64_t seed, double sd) {
  NpyArray a;
  a.shape = {L, H, 2, d, d};
  a.dtype = "<f8";
  const Eigen::MatrixXd r = sd * test::random_matrix(L * H * 2 * d * d, 1, seed);
  a.data.assign(r.data(), r.data() + r.size());
  return a;
}

using icl::test::contains;
using icl::test::error_of;

NpyArray matrix_array(const Eigen::MatrixXd& m) {
  NpyArray a;
  a.shape = {m.rows(), m.cols()};
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) a.data.push_back(m(i, j));
  return a;
}

}  // namespace

TEST_CASE("allparam weights run exactly like the acds authors' code (several layers and heads, non-symmetric Q)") {
  for (auto [L, H, d, n] : {std::array<int, 4>{1, 1, 3, 5}, {2, 2, 3, 6}, {3, 1, 2, 4}, {1, 3, 4, 7}}) {
    CAPTURE(L);
    CAPTURE(H);
    const NpyArray W = random_allparam(L, H, d, 11 + L + H, 0.4);
    const LsaStack st = lsa_stack_from_allparam(W, "w.npy");
    CHECK(st.d == d);
    CHECK(st.num_layers() == L);
    CHECK(st.num_heads() == H);
    CHECK(st.layout == "allparam");
    const auto p = test::random_prompt(acds_shape(d, n), 5, 9);
    Eigen::MatrixXd Z = p.Z;
    ForwardWorkspace ws;
    st.transformer().forward(Z, ws);
    const Eigen::MatrixXd ref = acds_forward(W, p.Z.transpose()).transpose();
    CHECK((Z - ref).cwiseAbs().maxCoeff() <= 1e-12 * std::max(1.0, ref.cwiseAbs().maxCoeff()));
    // Reading Q without the transpose gives another forward pass whenever Q is not symmetric.
    if (L == 1 && H == 1) {
      LsaStack wrong = st;
      wrong.layers[0][0].Q.transposeInPlace();
      Eigen::MatrixXd Zw = p.Z;
      wrong.transformer().forward(Zw, ws);
      CHECK((Zw - ref).cwiseAbs().maxCoeff() > 1e-3);
    }
  }
}

TEST_CASE("allparam and named weights: malformed arrays are refused with the fault located") {
  NpyArray ok = random_allparam(1, 1, 2, 3, 1.0);
  NpyArray nan = ok, inf = ok;
  nan.data[5] = std::numeric_limits<double>::quiet_NaN();  // [0, 0, 1, 0, 1]
  inf.data[2] = -std::numeric_limits<double>::infinity();  // [0, 0, 0, 1, 0]
  CHECK(contains(error_of([&] { lsa_stack_from_allparam(nan, "w.npy"); }), "w.npy: allparam has a non-finite entry (nan) at [0, 0, 1, 0, 1]"));
  CHECK(contains(error_of([&] { lsa_stack_from_allparam(inf, "w.npy"); }), "(-inf) at [0, 0, 0, 1, 0]"));
  for (const std::vector<std::int64_t>& shape : std::vector<std::vector<std::int64_t>>{
           {1, 2, 2, 2}, {1, 1, 3, 2, 2}, {1, 1, 2, 2, 3}, {0, 1, 2, 2, 2}, {1, 0, 2, 2, 2}, {1, 1, 2, 0, 0}, {8}}) {
    NpyArray a;
    a.shape = shape;
    std::size_t count = 1;
    for (auto s : shape) count *= static_cast<std::size_t>(s);
    a.data.assign(count, 0.0);
    CHECK(contains(error_of([&] { lsa_stack_from_allparam(a, "w.npy"); }), "is not (L, H, 2, d, d)"));
  }

  const Eigen::MatrixXd M = test::random_matrix(3, 3, 4);
  using Arrays = std::vector<std::pair<std::string, NpyArray>>;
  const LsaStack st = lsa_stack_from_named(Arrays{{"Q2", matrix_array(M)}, {"P1", matrix_array(M)}, {"Q1", matrix_array(M)},
                                                  {"P2", matrix_array(2 * M)}},
                                           "w.npz");
  CHECK(st.d == 2);
  CHECK(st.num_layers() == 2);
  CHECK(st.layers[1][0].P == 2 * M);
  CHECK(st.layers[1][0].Q == M);  // named matrices are already in the convention: no transpose

  NpyArray bad_nan = matrix_array(M);
  bad_nan.data[4] = std::numeric_limits<double>::infinity();
  struct Bad {
    Arrays arrays;
    std::string expect;
  };
  const std::vector<Bad> bad = {
      {{}, "no arrays: expected allparam, or P1, Q1"},
      {{{"P1", matrix_array(M)}}, "missing array Q1 (present: P1)"},
      {{{"P1", matrix_array(M)}, {"Q1", matrix_array(M)}, {"Q2", matrix_array(M)}}, "missing array P2"},
      {{{"P1", matrix_array(M)}, {"Q1", matrix_array(M)}, {"P3", matrix_array(M)}, {"Q3", matrix_array(M)}}, "missing array P2"},
      {{{"P1", matrix_array(M)}, {"Q1", matrix_array(M)}, {"W1", matrix_array(M)}}, "unexpected array 'W1'"},
      {{{"P0", matrix_array(M)}, {"Q0", matrix_array(M)}}, "unexpected array 'P0'"},
      {{{"P1", matrix_array(M)}, {"Q1", matrix_array(M.leftCols(2))}}, "Q1 has shape (3, 2)"},
      {{{"P1", matrix_array(M)}, {"Q1", matrix_array(Eigen::MatrixXd::Ones(4, 4))}}, "every matrix must have the same size"},
      {{{"P1", matrix_array(Eigen::MatrixXd::Ones(1, 1))}, {"Q1", matrix_array(Eigen::MatrixXd::Ones(1, 1))}}, "d >= 1"},
      {{{"P1", matrix_array(M)}, {"Q1", bad_nan}}, "Q1 has a non-finite entry (inf) at [1, 1]"},
  };
  for (const auto& b : bad) {
    INFO("expected: " << b.expect);
    const std::string msg = error_of([&] { lsa_stack_from_named(b.arrays, "w.npz"); });
    CHECK(contains(msg, "w.npz: "));
    CHECK(contains(msg, b.expect));
  }
}

TEST_CASE("read_lsa_stack: by extension, from files") {
  test::ScratchDir dir;
  const NpyArray W = random_allparam(2, 1, 2, 8, 0.3);
  test::write_bytes(dir.path / "w.NPY", test::npy_f8(W.shape, W.data));
  const LsaStack a = read_lsa_stack((dir.path / "w.NPY").string());
  CHECK(a.num_layers() == 2);
  const Eigen::MatrixXd M = test::random_matrix(3, 3, 2);
  const std::vector<double> v(M.data(), M.data() + 9);  // any 3 x 3 values
  test::write_zip(dir.path / "w.npz", {{"P1.npy", test::npy_f8({3, 3}, v)}, {"Q1.npy", test::npy_f8({3, 3}, v)}}, true);
  const LsaStack b = read_lsa_stack((dir.path / "w.npz").string());
  CHECK(b.layout == "named");
  CHECK(b.d == 2);
  CHECK(contains(error_of([&] { read_lsa_stack((dir.path / "w.pt").string()); }), "expected a .npy"));
}

}  // namespace test_attention_weights
