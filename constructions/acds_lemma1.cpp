#include "constructions/acds_lemma1.hpp"

#include "icl/verdict/mutation.hpp"

#include <stdexcept>

namespace icl::acds {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kP{"acds.eq8/P", "acds.lemma1", "P = [0 0; 0 1] of the sparse form (8)", true};
const MutationSite kQ{"acds.eq8/Q", "acds.lemma1", "Q = -[A 0; 0 0] of the sparse form (8)", true};
}  // namespace

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
  a.P = kP(a.P);
  a.Q = kQ(a.Q);
  return a;
}

Transformer sparse_stack(const std::vector<Eigen::MatrixXd>& A) {
  Transformer t;
  for (const auto& a : A) t.layers.emplace_back(sparse_layer(a));
  return t;
}

}  // namespace icl::acds
