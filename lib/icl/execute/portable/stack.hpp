// A network of dense LSA and bilinear layers (execute/portable/lsa_stack.hpp, bilinear.hpp) in portable code: the
// per-prompt loss, and the same loss with its gradient with respect to every layer's weights, for the training step.
// The stack runs up to its last LSA layer, which takes the query path and writes the prediction (a bilinear layer
// never writes the label row, so layers after the last LSA layer cannot change it and are not part of the stack);
// with no LSA layer the prediction is Z(D-1, N-1) as drawn. Loss = factor (yhat + sign y_q)^2 (learn::LossSpec).
//
// stack_loss_grad runs the same steps as stack_loss (so the same loss bits), keeping Z before each layer, then the
// adjoints last to first; each weight entry's gradient gets one addition per prompt, so that a sum over prompts in
// prompt order is the same whether one thread adds the prompts as it goes (the CPU's portable path) or every prompt
// writes its own gradient and another pass adds them in order (the cuda kernels).
#pragma once
#include "icl/execute/portable/bilinear.hpp"
#include "icl/execute/portable/hd.hpp"
#include "icl/execute/portable/lsa_stack.hpp"

namespace icl::portable {

enum LayerKind : int { kLsa = 0, kBilinear = 1 };

// The network in the scalar type S of its arithmetic: double, or float for the float32 option (plan.hpp: the
// prompt is drawn in double and rounded to float; the weights are the float copies of the double weights).
template <typename S>
struct StackDescT {
  int layers = 0;                  // up to and including the last LSA layer
  int rows = 0, cols = 0;          // D, N of the prompt
  const S* weights = nullptr;      // layer l's at offset[l]: lsa P then Q (D x D), bilinear W0 then W1 ((D-1)^2),
                                   // column-major; a gradient has the same layout
  const long long* offset = nullptr;
  const int* kind = nullptr;       // per layer: kLsa or kBilinear
  const int* masked = nullptr;     // per layer (lsa)
  const double* scale = nullptr;   // per layer (lsa; 0: 1/n), in double; rounded to S once (lsa_layer_scale)
  double loss_sign = 1.0, loss_factor = 1.0;
};
using StackDesc = StackDescT<double>;

// The same network with other weights (the float copy: Plan::net32).
template <typename S>
StackDescT<S> with_weights(const StackDesc& net, const S* weights) {
  return {net.layers, net.rows, net.cols, weights, net.offset, net.kind, net.masked, net.scale, net.loss_sign,
          net.loss_factor};
}

template <typename S>
ICL_HD inline S lsa_layer_scale(const StackDescT<S>& net, int l) {
  return static_cast<S>(net.scale[l] != 0.0 ? net.scale[l] : 1.0 / static_cast<double>(net.cols - 1));
}

// Scratch a prompt's loss needs beyond Z: G and T (D x D each) and two columns.
ICL_HD inline long long stack_scratch_size(int D) { return 2LL * D * D + 2LL * D; }

// Layer l, not the stack's last, applied to Z in place (scratch: G, T (D x D) and two columns u, u2).
template <typename S>
ICL_HD inline void stack_apply_layer(const StackDescT<S>& net, int l, StridedT<S> Z, StridedT<S> G, StridedT<S> T, StridedT<S> u,
                                     StridedT<S> u2) {
  const int D = net.rows, N = net.cols;
  const S* W = net.weights + net.offset[l];
  if (net.kind[l] == kBilinear) {
    bilinear_apply(W, W + static_cast<long long>(D - 1) * (D - 1), Z, D, N, u, u2);
    return;
  }
  lsa_gram(Z, D, net.masked[l] ? N - 1 : N, G);
  lsa_layer_matrix(W, W + static_cast<long long>(D) * D, D, G, T, G);
  lsa_apply(G, lsa_layer_scale(net, l), Z, D, N, u);
}

// The stack's last layer (an LSA layer): its query path from Z, the prediction yhat; leaves G = Z_K Z_K^T and
// u = Q z_q for the adjoint.
template <typename S>
ICL_HD inline S stack_query(const StackDescT<S>& net, StridedT<S> Z, StridedT<S> G, StridedT<S> u) {
  const int l = net.layers - 1, D = net.rows, N = net.cols;
  const S* W = net.weights + net.offset[l];
  lsa_gram(Z, D, net.masked[l] ? N - 1 : N, G);
  return lsa_query(W, W + static_cast<long long>(D) * D, lsa_layer_scale(net, l), Z, D, N, G, u);
}

// The loss of prompt Z (D x N, modified: every layer but the last is applied in place) with label yq.
template <typename S>
ICL_HD inline S stack_loss(const StackDescT<S>& net, StridedT<S> Z, S yq, StridedT<S> work) {
  const int D = net.rows, N = net.cols;
  const long long DD = static_cast<long long>(D) * D;
  const StridedT<S> G{work.p, work.s}, T{work.p + DD * work.s, work.s}, u{work.p + 2 * DD * work.s, work.s},
      u2{work.p + (2 * DD + D) * work.s, work.s};
  for (int l = 0; l + 1 < net.layers; ++l) stack_apply_layer(net, l, Z, G, T, u, u2);
  const S yhat = net.layers > 0 ? stack_query(net, Z, G, u) : Z[static_cast<long long>(N - 1) * D + D - 1];
  const S e = yhat + static_cast<S>(net.loss_sign) * yq;
  return static_cast<S>(net.loss_factor) * e * e;
}

// Scratch of stack_loss_grad beyond Z: the tape (Z before each layer: L blocks of D N), the adjoint R (D N), five
// D x D matrices and four columns.
ICL_HD inline long long stack_grad_scratch_size(int L, int D, int N) {
  return (static_cast<long long>(L) + 1) * D * N + 5LL * D * D + 4LL * D;
}

// The loss of prompt Z with label yq, as stack_loss, and its gradient with respect to every layer's weights added into
// dW (the layout of the weights).
template <typename S>
ICL_HD inline S stack_loss_grad(const StackDescT<S>& net, StridedT<S> Z, S yq, StridedT<S> work, StridedT<S> dW) {
  const int L = net.layers, D = net.rows, N = net.cols;
  const long long DD = static_cast<long long>(D) * D, DN = static_cast<long long>(D) * N;
  if (L == 0) return stack_loss(net, Z, yq, work);  // no weights, no gradient
  const auto at = [&](long long off) { return StridedT<S>{work.p + off * work.s, work.s}; };
  const auto grad = [&](int l) { return StridedT<S>{dW.p + net.offset[l] * dW.s, dW.s}; };
  const long long m0 = (L + 1) * DN;
  const StridedT<S> R = at(L * DN), G = at(m0), T = at(m0 + DD), M = at(m0 + 2 * DD), dM = at(m0 + 3 * DD),
                H = at(m0 + 4 * DD), u = at(m0 + 5 * DD), v = at(m0 + 5 * DD + D), w = at(m0 + 5 * DD + 2 * D),
                x = at(m0 + 5 * DD + 3 * D);
  const long long mm = static_cast<long long>(D - 1) * (D - 1);
  // Forward, keeping Z before each layer (tape block l); the last layer's input stays in Z.
  for (int l = 0; l + 1 < L; ++l) {
    const StridedT<S> tape = at(l * DN);
    for (long long e = 0; e < DN; ++e) tape[e] = Z[e];
    stack_apply_layer(net, l, Z, G, T, u, v);
  }
  const S yhat = stack_query(net, Z, G, u);  // u = Q z_q
  const S* WL = net.weights + net.offset[L - 1];
  const S sL = lsa_layer_scale(net, L - 1);
  const int KL = net.masked[L - 1] ? N - 1 : N;
  const S err = yhat + static_cast<S>(net.loss_sign) * yq;
  for (long long e = 0; e < DN; ++e) R[e] = S(0);
  const StridedT<S> gL = grad(L - 1);
  lsa_query_backward(WL, WL + DD, sL, KL, Z, D, N, G, u, static_cast<S>(2.0 * net.loss_factor) * err, R, gL,
                     StridedT<S>{gL.p + DD * gL.s, gL.s}, v, w, x);
  for (int l = L - 2; l >= 0; --l) {  // Z before layer l is tape block l; R the adjoint of its output
    const S* W = net.weights + net.offset[l];
    const StridedT<S> gl = grad(l);
    if (net.kind[l] == kBilinear)
      bilinear_backward(W, W + mm, at(l * DN), D, N, R, gl, StridedT<S>{gl.p + mm * gl.s, gl.s}, G, T, u, v, w, x);
    else
      lsa_backward(W, W + DD, lsa_layer_scale(net, l), net.masked[l] ? N - 1 : N, at(l * DN), D, N, R, gl,
                   StridedT<S>{gl.p + DD * gl.s, gl.s}, G, T, M, dM, H, v);
  }
  return static_cast<S>(net.loss_factor) * err * err;
}

}  // namespace icl::portable
