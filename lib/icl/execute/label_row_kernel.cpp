#include "icl/execute/label_row_kernel.hpp"

// The kernels twice: for the x86-64 baseline and, in a region compiled for AVX2, again. Only label_row_kernel.inc is
// compiled for AVX2 (no library header is included inside the region, so no inline function of another header gets
// an AVX2 copy that the linker could pick for baseline code). CMakeLists.txt compiles this file with
// -ffp-contract=off: no product and sum is fused on either side, so the two give the same bits.

namespace icl::execute::label_row {

namespace baseline_isa {
#include "icl/execute/label_row_kernel.inc"
}  // namespace baseline_isa

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ICL_LABEL_ROW_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2")
namespace avx2_isa {
#include "icl/execute/label_row_kernel.inc"
}  // namespace avx2_isa
#pragma GCC pop_options
#endif

namespace {

template <int d>
Kernel make(bool avx2) {
#ifdef ICL_LABEL_ROW_AVX2
  if (avx2) return {&avx2_isa::LR<d>::forward, &avx2_isa::LR<d>::backward, &avx2_isa::accumulate};
#else
  (void)avx2;
#endif
  return {&baseline_isa::LR<d>::forward, &baseline_isa::LR<d>::backward, &baseline_isa::accumulate};
}

}  // namespace

bool avx2_available() {
#ifdef ICL_LABEL_ROW_AVX2
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
#else
  return false;
#endif
}

Kernel kernel(int d, bool avx2) {
  avx2 = avx2 && avx2_available();
  switch (d) {
    case 1: return make<1>(avx2);
    case 2: return make<2>(avx2);
    case 3: return make<3>(avx2);
    case 4: return make<4>(avx2);
    case 5: return make<5>(avx2);
    case 6: return make<6>(avx2);
    case 7: return make<7>(avx2);
    case 8: return make<8>(avx2);
    default: return {};
  }
}

}  // namespace icl::execute::label_row
