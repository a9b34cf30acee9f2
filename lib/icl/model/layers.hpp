// Layers and the forward pass. Real matrix arithmetic on the whole prompt: every weight of a
// construction is exercised, nothing is replaced by the closed form it is supposed to compute.
#pragma once
#include <Eigen/Dense>

#include <functional>
#include <variant>
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

// Linear self-attention, sja/acds eq. (2) and zfb:  Z + scale * P Z M (Z^T Q Z),
// M = diag(I_n, 0) when `masked` (the query column is neither key nor value). scale defaults to 1/n.
// Evaluated as P (Z M Z^T) Q Z, the same product re-associated: O(D^2 N) instead of O(D N^2).
struct LinearSelfAttention {
  Eigen::MatrixXd P, Q;
  bool masked = true;
  double scale = 0.0;  // 0 means 1/n with n = columns - 1
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
  // The query column (the last) alone: Z(:, N-1) gets exactly what apply() gives it (the keys are the
  // other columns, or all of them when unmasked); the other columns are left as they were.
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
};

// Bilinear (GLU without activation) feed-forward layer, sja eq. (3):
//   Z + (diag(W0, 0) Z) .* (diag(W1, 0) Z): W0, W1 are dbar x dbar; the label row is masked.
struct BilinearLayer {
  Eigen::MatrixXd W0, W1;
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;  // column N-1 only, as apply()
};

// Several linear self-attention heads reading the same input, their updates summed (the acds authors'
// multi-head layer): Z + sum_h scale_h P_h Z M (Z^T Q_h Z). Uses the workspace's A as the accumulator.
struct LinearAttentionHeads {
  std::vector<LinearSelfAttention> heads;
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;  // column N-1 only, as apply()
};

using Layer = std::variant<LinearSelfAttention, BilinearLayer, LinearAttentionHeads>;

// A stack of layers applied in order. `observe`, if set, sees Z after each layer (index from 1).
struct Transformer {
  std::vector<Layer> layers;
  void forward(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
               const std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)>* observe = nullptr) const;
  // The prediction alone (prediction(Z) after forward(), bit for bit): every layer but the last runs on
  // the whole prompt, the last on the query column only (the prediction reads nothing else), so Z's
  // other columns are left as the last layer's input. Monte Carlo loss workers use it.
  double predict(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
};

}  // namespace icl
