// A network of dense LSA, bilinear and softmax-attention layers (execute/portable/lsa_stack.hpp, bilinear.hpp,
// softmax.hpp) in portable code: the per-prompt loss, and the same loss with its gradient with respect to every
// layer's weights, for the training step. The stack runs up to its last LSA or softmax layer, which takes the query
// path and writes the prediction (a bilinear layer never writes the label row, so layers after the last such layer
// cannot change it and are not part of the stack: Network::last_effective); with none the prediction is Z(D-1, N-1)
// as drawn. Loss = factor (yhat + sign y_q)^2 (icl::LossSpec).
//
// stack_loss_grad runs the same steps as stack_loss (so the same loss bits), keeping Z before each layer, then the
// adjoints last to first; each weight entry's gradient gets one addition per prompt, so that a sum over prompts in
// prompt order is the same whether one thread adds the prompts as it goes (the CPU's portable path) or every prompt
// writes its own gradient and another pass adds them in order (the cuda kernels).
//
// Every function takes the schedule X first (schedule.hpp; Serial when not named): the same source runs one prompt
// on one thread (the CPU, the cuda thread-per-prompt kernels) or on the threads of a block, with the same bits.
#pragma once
#include "icl/execute/portable/bilinear.hpp"
#include "icl/execute/portable/hd.hpp"
#include "icl/execute/portable/lsa_stack.hpp"
#include "icl/execute/portable/schedule.hpp"
#include "icl/execute/portable/softmax.hpp"

namespace icl::portable {

enum LayerKind : int { kLsa = 0, kBilinear = 1, kSoftmax = 2 };

// The network in the scalar type S of its arithmetic: double, or float for the float32 option (plan.hpp: the
// prompt is drawn in double and rounded to float; the weights are the float copies of the double weights).
template <typename S>
struct StackDescT {
  int layers = 0;                  // up to and including the last LSA or softmax layer
  int rows = 0, cols = 0;          // D, N of the prompt
  const S* weights = nullptr;      // layer l's at offset[l]: lsa P then Q (D x D), bilinear W0 then W1 ((D-1)^2),
                                   // softmax V then K (D x D), column-major; a gradient has the same layout
  const long long* offset = nullptr;
  const int* kind = nullptr;       // per layer: kLsa, kBilinear or kSoftmax
  const int* masked = nullptr;     // per layer: lsa masked; softmax causal (the look-ahead mask)
  const int* act = nullptr;        // per layer (softmax): kSoftmaxPhi or kLinearPhi
  const double* scale = nullptr;   // per layer (lsa; 0: 1/n), in double; rounded to S once (lsa_layer_scale)
  double loss_sign = 1.0, loss_factor = 1.0;
};
using StackDesc = StackDescT<double>;

// The same network with other weights (the float copy: Plan::net32).
template <typename S>
StackDescT<S> with_weights(const StackDesc& net, const S* weights) {
  return {net.layers, net.rows, net.cols, weights, net.offset, net.kind, net.masked, net.act, net.scale,
          net.loss_sign, net.loss_factor};
}

template <typename S>
ICL_HD inline S lsa_layer_scale(const StackDescT<S>& net, int l) {
  return static_cast<S>(net.scale[l] != 0.0 ? net.scale[l] : 1.0 / static_cast<double>(net.cols - 1));
}

ICL_HD inline long long max_ll(long long a, long long b) { return a < b ? b : a; }

// The work area of the LSA and bilinear steps: G, T (D x D), columns u, v, w, x, y (D each), two slots (a value
// a single step hands to every thread: lsa_query's yhat), then a buffer of `big` entries (the loss: D x N, the
// increments of an update in place; the gradient: 2 D x N, bilinear_backward's R .* A and R .* B), and for the
// gradient M, dM, H (D x D each) after it.
template <typename S>
struct StackWork {
  StridedT<S> G, T, u, v, w, x, y, slot, big, M, dM, H;
};

// (The loss's work area ends at big's end: its M, dM, H are null.)
template <typename S>
ICL_HD inline StackWork<S> stack_work(StridedT<S> work, int D, long long big, bool adjoint) {
  const long long DD = static_cast<long long>(D) * D, o = 2 * DD + 5LL * D + 2, m = o + big;
  const auto at = [&](long long off) {
    return StridedT<S>{adjoint || off < m ? work.p + off * work.s : nullptr, work.s};
  };
  return {at(0),          at(DD),         at(2 * DD),     at(2 * DD + D), at(2 * DD + 2 * D), at(2 * DD + 3 * D),
          at(2 * DD + 4 * D), at(2 * DD + 5 * D), at(o),   at(m),          at(m + DD),         at(m + 2 * DD)};
}

// Scratch a prompt's loss needs beyond Z: stack_work without M, dM, H (big = D N) for LSA and bilinear layers; more
// where a softmax layer runs in full (any but the last) or takes the query path (the last).
template <typename S>
inline long long stack_scratch_size(const StackDescT<S>& net) {
  const int D = net.rows, N = net.cols;
  long long n = 2LL * D * D + 5LL * D + 2 + static_cast<long long>(D) * N;
  for (int l = 0; l < net.layers; ++l)
    if (net.kind[l] == kSoftmax)
      n = max_ll(n, l + 1 < net.layers ? softmax_apply_scratch(D, N) : softmax_query_scratch(D, N));
  return n;
}

// Layer l, not the stack's last, applied to Z in place (scratch: ws's G, T and big, at least D x N; a softmax layer
// the whole work area from G on).
template <typename X = Serial, typename S>
ICL_HD inline void stack_apply_layer(const StackDescT<S>& net, int l, StridedT<S> Z, const StackWork<S>& ws) {
  const int D = net.rows, N = net.cols;
  const S* W = net.weights + net.offset[l];
  if (net.kind[l] == kBilinear) {
    bilinear_apply<X>(W, W + static_cast<long long>(D - 1) * (D - 1), Z, D, N, ws.big);
    return;
  }
  if (net.kind[l] == kSoftmax) {  // its scratch: the whole work area, from G on
    softmax_apply<X>(W, W + static_cast<long long>(D) * D, net.act[l], net.masked[l], Z, D, N, ws.G);
    return;
  }
  lsa_gram<X>(Z, D, net.masked[l] ? N - 1 : N, ws.G);
  lsa_layer_matrix<X>(W, W + static_cast<long long>(D) * D, D, ws.G, ws.T, ws.G);
  lsa_apply<X>(ws.G, lsa_layer_scale(net, l), Z, D, N, ws.big);
}

// The stack's last layer (an LSA or softmax layer): its query path from Z, the prediction yhat; leaves, for the
// adjoint, G = Z_K Z_K^T and u = Q z_q (LSA) or softmax_query's columns from G on (softmax).
template <typename X = Serial, typename S>
ICL_HD inline S stack_query(const StackDescT<S>& net, StridedT<S> Z, const StackWork<S>& ws) {
  const int l = net.layers - 1, D = net.rows, N = net.cols;
  const S* W = net.weights + net.offset[l];
  if (net.kind[l] == kSoftmax)
    return softmax_query<X>(W, W + static_cast<long long>(D) * D, net.act[l], Z, D, N, ws.G);
  lsa_gram<X>(Z, D, net.masked[l] ? N - 1 : N, ws.G);
  return lsa_query<X>(W, W + static_cast<long long>(D) * D, lsa_layer_scale(net, l), Z, D, N, ws.G, ws.u, ws.v,
                      ws.slot);
}

// The loss of prompt Z (D x N, modified: every layer but the last is applied in place) with label yq. Every thread
// of a block returns it (yhat comes back through a slot; the last lines are the same on every thread).
template <typename X = Serial, typename S>
ICL_HD inline S stack_loss(const StackDescT<S>& net, StridedT<S> Z, S yq, StridedT<S> work) {
  const int D = net.rows, N = net.cols;
  const StackWork<S> ws = stack_work(work, D, static_cast<long long>(D) * N, false);
  for (int l = 0; l + 1 < net.layers; ++l) stack_apply_layer<X>(net, l, Z, ws);
  const S yhat = net.layers > 0 ? stack_query<X>(net, Z, ws) : Z[static_cast<long long>(N - 1) * D + D - 1];
  const S e = yhat + static_cast<S>(net.loss_sign) * yq;
  return static_cast<S>(net.loss_factor) * e * e;
}

// Scratch of stack_loss_grad beyond Z: the tape (Z before each layer: L blocks of D N), the adjoint R (D N), and a
// work area: stack_work with big = 2 D N for LSA and bilinear layers, more for softmax layers.
template <typename S>
inline long long stack_grad_scratch_size(const StackDescT<S>& net) {
  const int L = net.layers, D = net.rows, N = net.cols;
  long long work = 5LL * D * D + 5LL * D + 2 + 2LL * D * N;
  for (int l = 0; l < L; ++l)
    if (net.kind[l] == kSoftmax)
      work = max_ll(work, l + 1 < L ? softmax_backward_scratch(D, N) : softmax_query_scratch(D, N));
  return (static_cast<long long>(L) + 1) * D * N + work;
}

// The loss of prompt Z with label yq, as stack_loss, and its gradient with respect to every layer's weights added into
// dW (the layout of the weights).
template <typename X = Serial, typename S>
ICL_HD inline S stack_loss_grad(const StackDescT<S>& net, StridedT<S> Z, S yq, StridedT<S> work, StridedT<S> dW) {
  const int L = net.layers, D = net.rows, N = net.cols;
  const long long DD = static_cast<long long>(D) * D, DN = static_cast<long long>(D) * N;
  if (L == 0) return stack_loss<X>(net, Z, yq, work);  // no weights, no gradient
  const auto at = [&](long long off) { return StridedT<S>{work.p + off * work.s, work.s}; };
  const auto grad = [&](int l) { return StridedT<S>{dW.p + net.offset[l] * dW.s, dW.s}; };
  const StridedT<S> R = at(L * DN);
  const StackWork<S> ws = stack_work(at((L + 1) * DN), D, 2 * DN, true);
  const StridedT<S> big2{ws.big.p + DN * ws.big.s, ws.big.s};  // the second half of big
  const long long mm = static_cast<long long>(D - 1) * (D - 1);
  // Forward, keeping Z before each layer (tape block l); the last layer's input stays in Z.
  for (int l = 0; l + 1 < L; ++l) {
    const StridedT<S> tape = at(l * DN);
    X::each(DN, [&](long long e) { tape[e] = Z[e]; });
    stack_apply_layer<X>(net, l, Z, ws);
  }
  const S yhat = stack_query<X>(net, Z, ws);  // u = Q z_q (LSA); softmax_query's columns from G on (softmax)
  const S* WL = net.weights + net.offset[L - 1];
  const S err = yhat + static_cast<S>(net.loss_sign) * yq;
  const S dy = static_cast<S>(2.0 * net.loss_factor) * err;
  X::each(DN, [&](long long e) { R[e] = S(0); });
  const StridedT<S> gL = grad(L - 1);
  if (net.kind[L - 1] == kSoftmax)
    softmax_query_backward<X>(WL, WL + DD, net.act[L - 1], Z, D, N, dy, ws.G, R, gL,
                              StridedT<S>{gL.p + DD * gL.s, gL.s});
  else  // uz, wz: the first N entries of each half of big
    lsa_query_backward<X>(WL, WL + DD, lsa_layer_scale(net, L - 1), net.masked[L - 1] ? N - 1 : N, Z, D, N, ws.G,
                          ws.u, dy, R, gL, StridedT<S>{gL.p + DD * gL.s, gL.s}, ws.v, ws.w, ws.x, ws.y, ws.big, big2);
  for (int l = L - 2; l >= 0; --l) {  // Z before layer l is tape block l; R the adjoint of its output
    const S* W = net.weights + net.offset[l];
    const StridedT<S> gl = grad(l);
    if (net.kind[l] == kBilinear)
      bilinear_backward<X>(W, W + mm, at(l * DN), D, N, R, gl, StridedT<S>{gl.p + mm * gl.s, gl.s}, ws.big, big2);
    else if (net.kind[l] == kSoftmax)
      softmax_backward<X>(W, W + DD, net.act[l], net.masked[l], at(l * DN), D, N, R, gl,
                          StridedT<S>{gl.p + DD * gl.s, gl.s}, ws.G);
    else
      lsa_backward<X>(W, W + DD, lsa_layer_scale(net, l), net.masked[l] ? N - 1 : N, at(l * DN), D, N, R, gl,
                      StridedT<S>{gl.p + DD * gl.s, gl.s}, ws.G, ws.T, ws.M, ws.dM, ws.H, ws.big);
  }
  return static_cast<S>(net.loss_factor) * err * err;
}

}  // namespace icl::portable
