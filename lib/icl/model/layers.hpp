// Layers and the forward pass. Real matrix arithmetic on the whole prompt: every weight of a
// construction is exercised, nothing is replaced by the closed form it is supposed to compute.
#pragma once
#include <Eigen/Dense>

#include <functional>
#include <variant>
#include <vector>

namespace icl {

// Scratch matrices reused across prompts (no heap allocation per prompt once sized).
// The layers skip the rows and columns of their weight matrices that are entirely zero (found from the
// weights at every call, so any weights are handled): the products are the same sums without the
// exactly-zero terms. Constructions are sparse (sja App. C: P = e e^T, two nonzeros per row of W0, W1),
// so this is most of the speed of the forward pass. R, K, R1, K1 hold the row and column index lists;
// W, W1s the compacted weights; ZK, ZK1 the gathered rows of Z.
struct ForwardWorkspace {
  Eigen::MatrixXd G, S, T, U, A, B;
  Eigen::MatrixXd W, W1s, ZK, ZK1;
  std::vector<int> R, K, R1, K1;
  void reserve(Eigen::Index rows, Eigen::Index cols) {
    G.resize(rows, rows);
    S.resize(rows, rows);
    T.resize(rows, rows);
    U.resize(rows, cols);
    A.resize(rows, cols);
    B.resize(rows, cols);
    W.resize(rows, rows);
    W1s.resize(rows, rows);
    ZK.resize(rows, cols);
    ZK1.resize(rows, cols);
    for (auto* v : {&R, &K, &R1, &K1}) v->reserve(static_cast<std::size_t>(rows));
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
};

// Bilinear (GLU without activation) feed-forward layer, sja eq. (3):
//   Z + (diag(W0, 0) Z) .* (diag(W1, 0) Z): W0, W1 are dbar x dbar; the label row is masked.
struct BilinearLayer {
  Eigen::MatrixXd W0, W1;
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
};

// Several linear self-attention heads reading the same input, their updates summed (the acds authors'
// multi-head layer): Z + sum_h scale_h P_h Z M (Z^T Q_h Z). Uses the workspace's A as the accumulator.
struct LinearAttentionHeads {
  std::vector<LinearSelfAttention> heads;
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
};

using Layer = std::variant<LinearSelfAttention, BilinearLayer, LinearAttentionHeads>;

// A stack of layers applied in order. `observe`, if set, sees Z after each layer (index from 1).
struct Transformer {
  std::vector<Layer> layers;
  void forward(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws,
               const std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)>* observe = nullptr) const;
};

}  // namespace icl
