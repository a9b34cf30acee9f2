// A trainable stack of the project's layers and its reverse-mode gradient (hand-written adjoints).
//
// Layers (the same mathematics as lib/icl/model/layers.hpp and softmax_attention.hpp; tests check the
// forward passes agree with those to rounding):
//   lsa       Z + s P Z M (Z^T Q Z), M = diag(I_n, 0) when masked (sja, acds), no mask (zfb); s = 1/n
//             unless `scale` is set. Slots: 0 = P, 1 = Q.
//   bilinear  sja eq. (3): the top D-1 rows X <- X + (W0 X) .* (W1 X), the label row untouched.
//             Slots: 0 = W0, 1 = W1 ((D-1) x (D-1)).
//   softmax   xlssc: Z + V Z phi(Z^T K Z + mask), phi the column softmax (or the identity, "linear"), the
//             look-ahead mask when causal. Slots: 0 = V, 1 = K.
// The prediction is Z_L[last row, last column]; the per-prompt loss is factor * (yhat + sign * y_q)^2
// (sja/acds: sign +1, factor 1; zfb: sign -1, factor 1/2).
//
// Gradients (reverse mode, per prompt). With R = dL/dZ_out:
//   lsa:      T = P G Q, G = Z_K Z_K^T (K the key columns); dZ = R + s T^T R + (dG + dG^T) Z_K,
//             dT = s R Z^T, dP = dT Q^T G, dQ = G P^T dT, dG = P^T dT Q^T.
//   bilinear: A = W0 X, B = W1 X; dW0 = (R .* B) X^T, dW1 = (R .* A) X^T, dX = R + W0^T (R .* B) + W1^T (R .* A).
//   softmax:  S = Z^T K Z, W = phi(S) (masked), C = Z W; dV = R C^T, dC = V^T R, dZ = R + dC W^T,
//             dW = Z^T dC, dS = W .* (dW - 1 (1^T (W .* dW))) (softmax; linear: dS = dW), dK = Z dS Z^T,
//             dZ += (K Z) dS^T + K^T Z dS.
// Only the prediction matters, so the last layer that can change it runs on the query column alone and
// its adjoint starts from the single entry dL/dyhat (O(D N) instead of O(D^2 N)); bilinear layers after it
// cannot change the prediction and are skipped. Tests (tests/learn/) check every layer and stacks against
// central finite differences.
#pragma once
#include "icl/model/layers.hpp"
#include "icl/model/softmax_attention.hpp"

#include <Eigen/Dense>

#include <array>
#include <string>
#include <vector>

namespace icl::learn {

enum class LayerKind { lsa, bilinear, softmax };
const char* to_string(LayerKind k);

struct LayerSpec {
  LayerKind kind = LayerKind::lsa;
  bool masked = true;   // lsa: the query column is neither key nor value (sja, acds); false: zfb
  double scale = 0.0;   // lsa: 0 means 1/n, n = columns - 1
  SoftmaxAttention::Activation activation = SoftmaxAttention::Activation::softmax;  // softmax layers
  bool causal = true;   // softmax layers: the look-ahead mask
};

using LayerWeights = std::array<Eigen::MatrixXd, 2>;
// Slot names for reports: lsa P/Q, bilinear W0/W1, softmax V/K.
const char* slot_name(LayerKind k, int slot);

// Per-layer, per-slot gradient accumulators; a slot is only touched when `wanted` says so.
struct WeightGrads {
  std::vector<LayerWeights> g;
  std::vector<std::array<bool, 2>> wanted;
  void zero();
};

struct Network {
  int rows = 0;  // D: prompt rows (the label row last)
  std::vector<LayerSpec> layers;
  std::vector<LayerWeights> weights;

  int size() const { return static_cast<int>(layers.size()); }
  // Appends a layer with zero weights of the right shape.
  Network& add_lsa(bool masked = true, double scale = 0.0);
  Network& add_bilinear();
  Network& add_softmax(SoftmaxAttention::Activation act = SoftmaxAttention::Activation::softmax, bool causal = true);
  // The first k layers (the intermediate predictions of sja Thm. 7 / App. I).
  Network truncated(int k) const;
  // The last layer that can change the prediction (-1 if none): bilinear layers never write the label row.
  int last_effective() const;
  WeightGrads make_grads(bool all = true) const;

  // The same weights as the project's forward-pass types (lsa/bilinear -> Transformer, softmax -> AttentionStack),
  // so a trained model can be run through the Monte Carlo workers of montecarlo/. Throw on a mixed stack.
  Transformer to_transformer() const;
  AttentionStack to_attention_stack() const;
};

// Scratch and stored activations for one prompt; one per thread, sized on first use, no allocation after.
struct Tape {
  std::vector<Eigen::MatrixXd> Z;   // Z[l]: the input of layer l
  std::vector<Eigen::MatrixXd> C1;  // lsa: G = Z_K Z_K^T; softmax: the attention weights W (N x N); bilinear: W0 X
  std::vector<Eigen::MatrixXd> C2;  // lsa: T = P G Q; softmax: C = Z W; bilinear: W1 X
  Eigen::MatrixXd adj;                         // the running adjoint dL/dZ during backward()
  Eigen::MatrixXd R2, F, H, M1, M2, KZ, S, dS;  // scratch
  Eigen::VectorXd v1, v2, v3, v4, v5, v6;
  int last = -1;
};

// Forward pass of the whole stack on Z (in place: Z becomes the full output of every layer).
void forward_full(const Network& net, Eigen::Ref<Eigen::MatrixXd> Z);
// Forward pass storing what the backward pass needs; returns the prediction. Z is not modified.
double forward(const Network& net, const Eigen::Ref<const Eigen::MatrixXd>& Z, Tape& tape);
// Backward pass after forward(): adds dyhat * d(yhat)/d(weights) into grads (wanted slots only). If dZ0 is
// given it receives d(yhat)/dZ * dyhat (the gradient with respect to the prompt, for tests).
void backward(const Network& net, Tape& tape, double dyhat, WeightGrads& grads, Eigen::MatrixXd* dZ0 = nullptr);

struct LossSpec {
  double sign = +1.0;   // error = yhat + sign * y_q
  double factor = 1.0;  // loss = factor * error^2
  static LossSpec sja() { return {+1.0, 1.0}; }
  static LossSpec acds() { return {+1.0, 1.0}; }
  static LossSpec zfb() { return {-1.0, 0.5}; }
  double operator()(double yhat, double yq) const {
    const double e = yhat + sign * yq;
    return factor * e * e;
  }
  double derivative(double yhat, double yq) const { return 2.0 * factor * (yhat + sign * yq); }
};

}  // namespace icl::learn
