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

}  // namespace icl
