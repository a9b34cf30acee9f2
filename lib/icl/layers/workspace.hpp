// Scratch of the layers' in-place passes (Layer::apply: the kernels of lsa.hpp and bilinear.hpp, and the default
// through forward()), which the Monte Carlo workers run; one per thread.
#pragma once
#include "icl/layers/layer.hpp"

#include <Eigen/Core>

#include <algorithm>
#include <vector>

namespace icl {

// Scratch space reused across prompts (no heap allocation per prompt once sized).
// The layers skip the rows and columns of their weight matrices that are entirely zero, and the bilinear
// layer every zero weight (found from the weights at every call, so any weights are handled): the
// products are the same sums without the exactly-zero terms. Constructions are sparse (sja App. C:
// P = e e^T, two nonzeros per row of W0, W1), so this is most of the speed of the forward pass.
// After LinearSelfAttention::apply, R holds the nonzero rows of P and T(0:|R|, :) the rows R of P G Q
// (G = Z M Z^T of the layer's input; conditional_loss.cpp reads them). The other members are the
// kernels' scratch: K the nonzero columns of P, G the rows K of Z M Z^T, S = P(R, K) G, U the update;
// for the bilinear layer the compiled weights below.
struct ForwardWorkspace {
  Eigen::MatrixXd G, S, T, U, A;
  std::vector<int> R, K;
  struct Term {
    int col;
    double w;
  };
  // The last bilinear layer's weights as compiled (kept while the next call's weights compare equal):
  // its output rows, per row its W0 terms then its W1 terms, the end of each half.
  Eigen::MatrixXd W0, W1;
  std::vector<int> rows;
  std::vector<Term> terms;
  std::vector<int> term_end;
  bool in_place = true;
  // Layer::apply's default (through forward()): its input, output, cache and scratch.
  Eigen::MatrixXd in, out;
  layers::Cache cache;
  layers::Scratch scratch;
  void reserve(Eigen::Index rows, Eigen::Index cols) {
    G.resize(rows, rows);
    S.resize(rows, rows);
    T.resize(rows, rows);
    U.resize(rows, cols);
    A.resize(rows, cols);
    for (auto* v : {&R, &K}) v->reserve(static_cast<std::size_t>(rows));
    terms.reserve(static_cast<std::size_t>(2 * rows * rows));
    term_end.reserve(static_cast<std::size_t>(2 * rows));
    this->rows.reserve(static_cast<std::size_t>(rows));
  }
};

namespace detail {
// Grows m to at least r x c (keeps it when large enough: no allocation once sized by reserve()).
inline void ensure(Eigen::MatrixXd& m, Eigen::Index r, Eigen::Index c) {
  if (m.rows() < r || m.cols() < c) m.resize(std::max(m.rows(), r), std::max(m.cols(), c));
}
}  // namespace detail

}  // namespace icl
