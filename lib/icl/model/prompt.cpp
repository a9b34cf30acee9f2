#include "icl/model/prompt.hpp"

#include <algorithm>
#include <stdexcept>

namespace icl {

PromptShape sja_shape(int d, int dbar, int n) {
  if (dbar < d + 1) throw std::invalid_argument("sja embedding needs dbar >= d + 1");
  return {Embedding::sja, d, dbar, n};
}
PromptShape acds_shape(int d, int n) { return {Embedding::acds, d, d, n}; }
PromptShape zfb_shape(int d, int n) { return {Embedding::zfb, d, d, n}; }
PromptShape unstructured_shape(int d, int n) { return {Embedding::unstructured, d, d, n}; }

void embed(const PromptShape& s, const Eigen::Ref<const Eigen::MatrixXd>& X,
           const Eigen::Ref<const Eigen::RowVectorXd>& y, Eigen::Ref<Eigen::MatrixXd> Z) {
  if (Z.rows() != s.rows() || Z.cols() != s.cols() || X.rows() != s.d || X.cols() != s.examples() ||
      y.size() < s.n)
    throw std::invalid_argument("embed: shapes do not match");
  if (s.embedding == Embedding::unstructured) {
    Z.setZero();
    const int D = s.rows();
    for (int j = 0; j < s.n; ++j) {
      Z.col(2 * j).head(s.d) = X.col(j);
      Z(D - 1, 2 * j + 1) = y[j];
    }
    Z.col(2 * s.n).head(s.d) = X.col(s.n);
    return;
  }
  // Zero first (one memset when Z is contiguous), then (1,) x_j and y_j column by column.
  if (Z.outerStride() == Z.rows()) std::fill_n(Z.data(), Z.size(), 0.0);
  else Z.setZero();
  const int r0 = s.embedding == Embedding::sja ? 1 : 0, D = s.rows();
  for (Eigen::Index j = 0; j < Z.cols(); ++j) {
    double* z = &Z(0, j);
    if (r0) z[0] = 1.0;
    for (int i = 0; i < s.d; ++i) z[r0 + i] = X(i, j);
    if (j < s.n) z[D - 1] = y[j];
  }
}

}  // namespace icl
