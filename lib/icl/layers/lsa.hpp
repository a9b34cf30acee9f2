// Linear self-attention (sja/acds eq. (2), zfb): Z + s P Z M (Z^T Q Z), M = diag(I_n, 0) when masked (the query
// column is neither key nor value: sja, acds), no mask (zfb); s = 1/n (n = columns - 1) unless `scale` is set.
// Parameters: P, Q (rows x rows).
//
// Evaluated as P (Z_K Z_K^T) Q Z (K the key columns): O(D^2 N). Adjoint, with R = dL/dZ_out, G = Z_K Z_K^T,
// T = P G Q: dZ = R + s T^T R + (dG + dG^T) Z_K, dT = s R Z^T, dP = dT Q^T G, dQ = G P^T dT, dG = P^T dT Q^T.
// Query path (the prediction alone): yhat = Z(D-1, N-1) + s p^T G q, p = P's last row, q = Q z_q.
//
// One layer type, layers::Lsa (parameters "P" and "Q" by name), and layers::LsaHeads (several heads reading the
// same input, their updates summed: the acds authors' multi-head layer; parameters P0, Q0, P1, Q1, ...). Their
// in-place pass apply() (what the Monte Carlo workers run) skips the zero rows and columns of P (constructions are
// sparse: sja App. C's P = e e^T) and sums in the order of the Eigen products it replaced; forward()/backward()
// keep what the adjoint needs. A construction writes its weights as icl::LinearSelfAttention /
// icl::LinearAttentionHeads (plain values; a stack turns them into these layers, layers/network.hpp; their own
// apply() runs the same kernel on the values in place). Tests check apply() and forward() give the same outputs to
// rounding (tests/learn/test_network.cpp), forward()/backward() against finite differences (tests/layers/), apply()
// against direct products (tests/model/).
#pragma once
#include "icl/layers/layer.hpp"
#include "icl/layers/workspace.hpp"

#include <memory>
#include <vector>

namespace icl::layers {
class Lsa;
class LsaHeads;
}  // namespace icl::layers

namespace icl {

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

// Several linear self-attention heads reading the same input, their updates summed (the acds authors'
// multi-head layer): Z + sum_h scale_h P_h Z M (Z^T Q_h Z). Uses the workspace's A as the accumulator.
struct LinearAttentionHeads {
  std::vector<LinearSelfAttention> heads;
  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;  // column N-1 only, as apply()
};

// The layer of a construction's weights (a stack holds these: layers/network.hpp).
std::unique_ptr<layers::Lsa> make_layer(const LinearSelfAttention& spec);
std::unique_ptr<layers::LsaHeads> make_layer(const LinearAttentionHeads& spec);

}  // namespace icl

namespace icl::layers {

class Lsa final : public LayerBase<Lsa> {
public:
  static constexpr const char* kKind = "lsa";
  explicit Lsa(Eigen::Index rows, bool masked = true, double scale = 0.0);
  explicit Lsa(const LinearSelfAttention& spec);
  bool masked = true;
  double scale = 0.0;  // 0: 1/n
  LinearSelfAttention spec() const;  // the weights as a construction writes them

  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const override;
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const override;

  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
  double forward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s) const override;
  void backward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, double dy, Eigen::MatrixXd& R,
                      Grads& g) const override;
};

class LsaHeads final : public LayerBase<LsaHeads> {
public:
  static constexpr const char* kKind = "lsa_heads";
  LsaHeads(Eigen::Index rows, int heads, bool masked = true, double scale = 0.0);
  explicit LsaHeads(const LinearAttentionHeads& spec);
  std::vector<char> masked;    // per head
  std::vector<double> scale;   // per head (0: 1/n)
  int heads() const { return static_cast<int>(masked.size()); }
  LinearAttentionHeads spec() const;

  void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const override;
  void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const override;
  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
};

}  // namespace icl::layers
