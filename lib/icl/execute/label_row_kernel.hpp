// The arithmetic of a label-row LSA stack (execute/label_row.hpp), four prompts at a time: plain C++ on plain
// arrays, no Eigen, so that label_row_kernel.cpp can compile it twice, for the x86-64 baseline and for AVX2, with the
// same bits (elementwise IEEE products and sums, no fused multiply-add, no sum across lanes).
//
// A prompt enters as its sufficient statistics, F = d*d + 2d + 2 numbers: S = sum_{j<n} x_j x_j^T (d x d,
// column-major), b = sum_{j<n} y_j x_j, the query's x_q and y_q, and the target. A group holds kLanes prompts, field f
// of lane k at f * kLanes + k.
//
// Layer l (P = [B, 0; 0, p], Q = [Qa, 0; 0, 0], scale s) maps every column z_j to M z_j, M = [C, 0; r^T, 1] with
// t = Qa^T b, r = s p t, C = I + s B S Qa (C = I where B is zero). So the statistics of its output are
// S' = C S C^T, b' = C (S r + b), x_q' = C x_q, y_q' = y_q + r . x_q, and the prediction is y_q after the last layer
// (whose C, S', b', x_q' are never needed). The backward pass is the adjoint of these formulas (see label_row.hpp).
#pragma once
#include <cstddef>
#include <new>
#include <vector>

namespace icl::execute::label_row {

inline constexpr int kLanes = 4;    // prompts per group
inline constexpr int kMaxD = 8;     // d = 1..kMaxD (rows d + 1)
inline constexpr int kMaxLayers = 64;

constexpr int fields(int d) { return d * d + 2 * d + 2; }
// Per layer in a gradient: dL/dQa (d*d), dL/dB (d*d), dL/dp (1).
constexpr int grad_per_layer(int d) { return 2 * d * d + 1; }
// Doubles of forward-pass state kept per group (each kLanes wide).
constexpr int tape_per_layer(int d) { return (4 * d * d + 5 * d) * kLanes; }

// Every group, tape and gradient the kernels read or write starts at a multiple of kAlign bytes (their sizes are
// multiples of it): hold them in a Buffer.
inline constexpr std::size_t kAlign = 8 * kLanes;
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kAlign})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{kAlign}); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const { return true; }
};
using Buffer = std::vector<double, AlignedAllocator<double>>;

// The weights of a stack, as the kernels read them (layer-major; matrices d x d column-major).
struct KernelWeights {
  int d = 0, L = 0;
  const double* Qa = nullptr;           // L blocks: Q's top-left d x d block
  const double* B = nullptr;            // L blocks: P's top-left d x d block (read where has_B)
  const double* sp = nullptr;           // L: scale * P(d, d)
  const double* s = nullptr;            // L: scale
  const unsigned char* has_B = nullptr; // L: B may be nonzero
  const unsigned char* want_B = nullptr;  // L: dL/dB wanted (only where has_B)
};

// group, tape and grad aligned to kAlign bytes.
// yhat[k] for the group's lanes; tape: L * tape_per_layer(d) doubles, what backward() reads.
using ForwardFn = void (*)(const KernelWeights& w, const double* group, double* yhat, double* tape);
// With dy[k] = dL/dyhat per lane: grad (L * grad_per_layer(d) entries, each kLanes wide: entry e of lane k at
// e * kLanes + k) receives each lane's gradient (dB only where has_B and want_B and the layer is not the last;
// other dB entries are left as they were).
using BackwardFn = void (*)(const KernelWeights& w, const double* group, const double* tape, const double* dy,
                            double* grad);

// acc[e] += lane k of entry e of a gradient that backward() wrote, for k = 0, ..., lanes - 1 in that order, e in
// [e0, e1).
using AccumulateFn = void (*)(const double* grad, int e0, int e1, int lanes, double* acc);

struct Kernel {
  ForwardFn forward = nullptr;
  BackwardFn backward = nullptr;
  AccumulateFn accumulate = nullptr;
};

// The kernels for d (1..kMaxD), for the x86-64 baseline (avx2 false) or AVX2 (avx2 true; only where
// avx2_available()). Both give the same bits.
Kernel kernel(int d, bool avx2);
bool avx2_available();

}  // namespace icl::execute::label_row
