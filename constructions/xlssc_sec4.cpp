#include "constructions/xlssc_sec4.hpp"

#include "icl/verdict/mutation.hpp"

#include <cmath>

namespace icl::xlssc {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kV1{"xlssc.twolayer/V1", "xlssc.twolayer", "layer 1: W_out W^V = I", true};
const MutationSite kK2{"xlssc.twolayer/K2", "xlssc.twolayer", "layer 2: W^K W^Q = I / log D", true};
}  // namespace

Network twolayer(int d, int D) {
  const int r = d + 1;
  SoftmaxAttention l1;
  l1.V = Eigen::MatrixXd::Identity(r, r);  // W_out W^V = I
  l1.K = Eigen::MatrixXd::Zero(r, r);      // W^K = W^Q = 0
  l1.activation = SoftmaxAttention::Activation::softmax;
  l1.causal = true;
  SoftmaxAttention l2;
  l2.V = Eigen::MatrixXd::Zero(r, r);
  l2.V(d, d) = 1.0;  // last row (0, ..., 0, 1)
  l2.K = Eigen::MatrixXd::Zero(r, r);
  l2.K.topLeftCorner(d, d) = Eigen::MatrixXd::Identity(d, d) / std::log(static_cast<double>(D));
  l2.activation = SoftmaxAttention::Activation::linear;
  l2.causal = true;
  l1.V = kV1(l1.V);
  l2.K = kK2(l2.K);
  Network n;
  n.rows = r;
  n.add(l1).add(l2);
  return n;
}

double eq5_main_term(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& theta) {
  const Eigen::Index D = X.cols() - 1;
  const Eigen::VectorXd xq = X.col(D);
  double s = 0;
  for (Eigen::Index i = 0; i < D; ++i)
    s += (1.0 / static_cast<double>(i + 1) - 1.0 / (2.0 * D)) * xq.dot(X.col(i)) * X.col(i).dot(theta);
  return s / std::log(static_cast<double>(D));
}

SoftmaxAttention onelayer(const Eigen::VectorXd& v, const Eigen::MatrixXd& K, SoftmaxAttention::Activation act) {
  const Eigen::Index r = v.size();
  SoftmaxAttention a;
  a.V = Eigen::MatrixXd::Zero(r, r);
  a.V.row(r - 1) = v.transpose();
  a.K = K;
  a.activation = act;
  a.causal = true;
  return a;
}

SoftmaxAttention onelayer_sign_probe(const Eigen::VectorXd& theta0, double alpha, double beta,
                                     SoftmaxAttention::Activation act) {
  const Eigen::Index d = theta0.size();
  Eigen::VectorXd v = Eigen::VectorXd::Zero(d + 1);
  v.head(d) = alpha * theta0;  // value of an x token: alpha theta0^T x
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(d + 1, d + 1);
  K.row(d).head(d) = -beta * theta0.transpose();  // score of a y token for the query: -beta y theta0^T x_q
  return onelayer(v, K, act);
}

}  // namespace icl::xlssc
