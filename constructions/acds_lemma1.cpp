#include "constructions/acds_lemma1.hpp"

#include <stdexcept>

namespace icl::acds {

LinearSelfAttention sparse_layer(const Eigen::MatrixXd& A) {
  if (A.rows() != A.cols()) throw std::invalid_argument("acds sparse layer: A must be square");
  const Eigen::Index d = A.rows();
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = 1.0;                              // P = [0 0; 0 1]
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d) = -A;                 // Q = -[A 0; 0 0]
  a.masked = true;                              // M = diag(I_n, 0)
  a.scale = 0.0;                                // 1/n, eq. (4)
  return a;
}

Transformer sparse_stack(const std::vector<Eigen::MatrixXd>& A) {
  Transformer t;
  for (const auto& a : A) t.layers.emplace_back(sparse_layer(a));
  return t;
}

}  // namespace icl::acds
