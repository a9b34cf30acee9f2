// One prompt of a GaussianIclModel (model/gaussian_model.hpp), embedded (model/prompt.hpp), in portable code: the
// same draws in the same order as GaussianPromptSampler::draw and embed(), so prompt i of (seed, purpose) has the
// same bits as icl::gaussian_prompts' drawer gives it:
//   w: M normals (always drawn, so a fixed w sees the same stream); the inputs, d x (n + 1) normals column by column;
//   x = L z per column (rows from the last up, each sum from j = 0) unless Sigma = I exactly; then per column the
//   label y = sum_m w_m g_m(x) (g_m evaluated as FlatPoly::evaluate: terms in order, v = coef, v *= x_i per power)
//   plus noise_sd * a normal when noise_sd > 0.
// Z (rows x cols, column-major) gets 1 in row 0 (sja embedding), x in rows r0 .. r0 + d - 1, the context labels in
// the last row of columns 0 .. n - 1, zeros elsewhere; the query's label is returned.
#pragma once
#include "icl/execute/portable/hd.hpp"
#include "icl/execute/portable/philox.hpp"

#include <cstdint>

namespace icl::portable {

struct GaussianPromptDesc {
  int d = 0, rows = 0, cols = 0, n = 0;
  int r0 = 0;                             // 1 for the sja embedding (a row of ones first), else 0
  int M = 0;                              // coefficients (basis polynomials)
  const double* chol = nullptr;           // d x d lower Cholesky factor of Sigma, column-major; null: Sigma = I
  const double* fixed_w = nullptr;        // M fixed coefficients; null: w ~ N(0, I) per prompt
  double noise_sd = 0.0;
  const int* term_begin = nullptr;        // M + 1: basis m's terms are [term_begin[m], term_begin[m + 1])
  const double* coef = nullptr;           // per term
  const unsigned char* exps = nullptr;    // per term, d exponents
};

// Scratch: w (M entries, strided). Z: rows x cols (strided, column-major). Returns y_q.
ICL_HD inline double draw_gaussian_prompt(const GaussianPromptDesc& t, PromptStream& rng, Strided w, Strided Z) {
  const int d = t.d, D = t.rows, N = t.cols;
  for (int m = 0; m < t.M; ++m) w[m] = rng.normal();
  for (long long e = 0; e < static_cast<long long>(D) * N; ++e) Z[e] = 0.0;
  // x in rows r0 .. r0 + d - 1 of each column (the inputs' column-major order is the draws' order).
  for (int c = 0; c < N; ++c)
    for (int r = 0; r < d; ++r) Z[static_cast<long long>(c) * D + t.r0 + r] = rng.normal();
  if (t.chol)
    for (int c = 0; c < N; ++c) {
      const long long x = static_cast<long long>(c) * D + t.r0;
      for (int r = d - 1; r >= 0; --r) {
        double s = 0;
        for (int j = 0; j <= r; ++j) s += t.chol[j * d + r] * Z[x + j];
        Z[x + r] = s;
      }
    }
  double yq = 0.0;
  for (int c = 0; c < N; ++c) {
    const long long x = static_cast<long long>(c) * D + t.r0;
    double y = 0;
    for (int m = 0; m < t.M; ++m) {
      double g = 0;
      for (int k = t.term_begin[m]; k < t.term_begin[m + 1]; ++k) {
        double v = t.coef[k];
        const unsigned char* e = t.exps + static_cast<long long>(k) * d;
        for (int i = 0; i < d; ++i)
          for (int p = 0; p < e[i]; ++p) v *= Z[x + i];
        g += v;
      }
      y += (t.fixed_w ? t.fixed_w[m] : w[m]) * g;
    }
    if (t.noise_sd > 0) y += t.noise_sd * rng.normal();
    if (c < t.n) Z[static_cast<long long>(c) * D + D - 1] = y;
    else yq = y;
  }
  if (t.r0)
    for (int c = 0; c < N; ++c) Z[static_cast<long long>(c) * D] = 1.0;
  return yq;
}

}  // namespace icl::portable
