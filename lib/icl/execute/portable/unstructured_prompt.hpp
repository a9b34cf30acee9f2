// One unstructured prompt (xlssc's E_2: icl::unstructured_prompts, model/softmax_attention.hpp's embedding) in
// portable code, the same draws in the same order as the CPU's drawer: theta first (with theta0: s theta0, s = -1
// when the first uniform is below 1/2, else +1; without: d normals, each divided by sqrt(d)), then the inputs X,
// d x (D + 1) normals column by column. Each label y_i = theta . x_i is a plain loop from a = 0 (the CPU's drawer
// forms theta^T X with Eigen, which may sum in another order: the labels agree to rounding; theta and X bit for bit).
// Z ((d + 1) x (2D + 1), column-major): x_i in rows 0..d-1 of column 2i, y_i in row d of column 2i + 1, x_q in
// column 2D, zeros elsewhere; the query's label y_D is returned.
#pragma once
#include "icl/execute/portable/hd.hpp"
#include "icl/execute/portable/philox.hpp"

namespace icl::portable {

struct UnstructuredPromptDesc {
  int d = 0, examples = 0;         // d, D
  const double* theta0 = nullptr;  // d entries: theta = +-theta0; null: theta ~ N(0, I_d / d)
};

// Scratch: theta (d entries, strided). Z: (d + 1) x (2D + 1), strided, column-major. Returns y_q.
ICL_HD inline double draw_unstructured_prompt(const UnstructuredPromptDesc& u, PromptStream& rng, Strided theta,
                                              Strided Z) {
  const int d = u.d, D = u.examples, rows = d + 1, cols = 2 * D + 1;
  if (u.theta0) {
    const bool negative = rng.uniform() < 0.5;
    for (int a = 0; a < d; ++a) theta[a] = negative ? -u.theta0[a] : u.theta0[a];
  } else {
    for (int a = 0; a < d; ++a) theta[a] = rng.normal();
#if defined(__CUDA_ARCH__)
    const double root = ::sqrt(static_cast<double>(d));
#else
    const double root = std::sqrt(static_cast<double>(d));
#endif
    for (int a = 0; a < d; ++a) theta[a] = theta[a] / root;
  }
  for (long long e = 0; e < static_cast<long long>(rows) * cols; ++e) Z[e] = 0.0;
  // x_i into column 2i (x_q: column 2D), in the draws' order.
  for (int i = 0; i <= D; ++i)
    for (int a = 0; a < d; ++a) Z[2LL * i * rows + a] = rng.normal();
  double yq = 0.0;
  for (int i = 0; i <= D; ++i) {
    double y = 0;
    for (int a = 0; a < d; ++a) y += theta[a] * Z[2LL * i * rows + a];
    if (i < D) Z[(2LL * i + 1) * rows + d] = y;
    else yq = y;
  }
  return yq;
}

}  // namespace icl::portable
