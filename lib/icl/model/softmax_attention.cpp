#include "icl/model/softmax_attention.hpp"

#include <cmath>
#include <stdexcept>

namespace icl {

void embed_unstructured(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::RowVectorXd>& y,
                        Eigen::Ref<Eigen::MatrixXd> Z) {
  const Eigen::Index d = X.rows(), D = X.cols() - 1;
  if (Z.rows() != d + 1 || Z.cols() != 2 * D + 1 || y.size() < D)
    throw std::invalid_argument("embed_unstructured: shapes do not match");
  Z.setZero();
  for (Eigen::Index i = 0; i < D; ++i) {
    Z.col(2 * i).head(d) = X.col(i);
    Z(d, 2 * i + 1) = y[i];
  }
  Z.col(2 * D).head(d) = X.col(D);
}

void SoftmaxAttention::apply(Eigen::Ref<Eigen::MatrixXd> Z, bool last_column_only) const {
  const Eigen::Index r = Z.rows(), N = Z.cols();
  if (V.rows() != r || V.cols() != r || K.rows() != r || K.cols() != r)
    throw std::invalid_argument("SoftmaxAttention: V, K must be (rows of Z) square");
  const Eigen::Index first = last_column_only ? N - 1 : 0;
  Eigen::MatrixXd out(r, N - first);  // V Z phi(.) for columns first..N-1, from the input Z
  if (activation == Activation::softmax && allow_uniform_shortcut && K.isZero(0.0)) {
    // All scores 0: softmax is uniform over the visible tokens, exactly.
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(r);
    if (causal) {
      for (Eigen::Index j = 0; j < N; ++j) {
        sum += Z.col(j);
        if (j >= first) out.col(j - first) = sum / static_cast<double>(j + 1);
      }
    } else {
      const Eigen::VectorXd mean = Z.rowwise().sum() / static_cast<double>(N);
      for (Eigen::Index j = first; j < N; ++j) out.col(j - first) = mean;
    }
    Z.rightCols(N - first) += V * out;
    return;
  }
  Eigen::VectorXd kz(r), s(N), w(N);
  for (Eigen::Index j = first; j < N; ++j) {
    const Eigen::Index visible = causal ? j + 1 : N;
    kz.noalias() = K * Z.col(j);
    s.head(visible).noalias() = Z.leftCols(visible).transpose() * kz;  // s_i = z_i^T K z_j
    if (activation == Activation::softmax) {
      const double m = s.head(visible).maxCoeff();
      double total = 0;
      for (Eigen::Index i = 0; i < visible; ++i) total += (w[i] = std::exp(s[i] - m));
      w.head(visible) /= total;
    } else {
      w.head(visible) = s.head(visible);
    }
    out.col(j - first).noalias() = Z.leftCols(visible) * w.head(visible);
  }
  Z.rightCols(N - first) += V * out;
}

void AttentionStack::forward(Eigen::Ref<Eigen::MatrixXd> Z, bool prediction_only) const {
  for (std::size_t k = 0; k < layers.size(); ++k) layers[k].apply(Z, prediction_only && k + 1 == layers.size());
}

}  // namespace icl
