#include "icl/layers/lsa.hpp"

#include <Eigen/Dense>

namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {
constexpr int kP = 0, kQ = 1;
}

Lsa::Lsa(Index rows, bool masked_, double scale_) : masked(masked_), scale(scale_) {
  add_param("P", rows, rows);
  add_param("Q", rows, rows);
}

static double lsa_scale(double scale, Index N) { return scale != 0.0 ? scale : 1.0 / static_cast<double>(N - 1); }

void Lsa::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch& s) const {
  const Index N = Z.cols();
  const Index K = masked ? N - 1 : N;
  MatrixXd& G = c.m[0];
  MatrixXd& T = c.m[1];
  G.noalias() = Z.leftCols(K) * Z.leftCols(K).transpose();
  s.M1.noalias() = param(kP) * G;
  T.noalias() = s.M1 * param(kQ);
  out = Z;
  out.noalias() += lsa_scale(scale, N) * (T * Z);
}

void Lsa::backward(const MatrixXd& Z, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  const Index N = Z.cols();
  const Index K = masked ? N - 1 : N;
  const double sc = lsa_scale(scale, N);
  const MatrixXd& P = param(kP);
  const MatrixXd& Q = param(kQ);
  const MatrixXd& G = c.m[0];
  const MatrixXd& T = c.m[1];
  s.F.noalias() = sc * (R * Z.transpose());  // dT
  if (g.want(kP)) {
    s.M1.noalias() = Q.transpose() * G;
    g[kP].noalias() += s.F * s.M1;
  }
  if (g.want(kQ)) {
    s.M1.noalias() = G * P.transpose();
    g[kQ].noalias() += s.M1 * s.F;
  }
  s.M1.noalias() = P.transpose() * s.F;
  s.H.noalias() = s.M1 * Q.transpose();  // dG
  s.R2 = R;
  s.R2.noalias() += sc * (T.transpose() * R);
  s.F = s.H + s.H.transpose();
  s.R2.leftCols(K).noalias() += s.F * Z.leftCols(K);
  R.swap(s.R2);
}

double Lsa::forward_query(const MatrixXd& Z, Cache& c, Scratch&) const {
  const Index D = Z.rows(), N = Z.cols();
  const Index K = masked ? N - 1 : N;
  MatrixXd& G = c.m[0];
  G.noalias() = Z.leftCols(K) * Z.leftCols(K).transpose();
  c.v[0].noalias() = param(kQ) * Z.col(N - 1);  // q = Q z_q
  c.v[1].noalias() = G * c.v[0];                // G q
  return Z(D - 1, N - 1) + lsa_scale(scale, N) * param(kP).row(D - 1).dot(c.v[1]);
}

void Lsa::backward_query(const MatrixXd& Z, Cache& c, Scratch& s, double dy, MatrixXd& R, Grads& g) const {
  const Index D = Z.rows(), N = Z.cols();
  const Index K = masked ? N - 1 : N;
  R.setZero(D, N);
  R(D - 1, N - 1) = dy;
  const double cs = lsa_scale(scale, N) * dy;
  const MatrixXd& G = c.m[0];
  // yhat = Z(D-1, N-1) + s p^T G q, p = P row D-1, q = Q z_q.
  const auto p = param(kP).row(D - 1).transpose();
  if (g.want(kP)) g[kP].row(D - 1) += cs * c.v[1].transpose();  // d/dp = s G q
  s.v1.noalias() = G * p;                                         // G p
  if (g.want(kQ)) g[kQ].noalias() += cs * s.v1 * Z.col(N - 1).transpose();
  R.col(N - 1).noalias() += cs * (param(kQ).transpose() * s.v1);  // via q = Q z_q
  // via G: dG = c p q^T, dZ_K += (dG + dG^T) Z_K = c [p (q^T Z_K) + q (p^T Z_K)]
  s.v2.noalias() = Z.leftCols(K).transpose() * c.v[0];  // Z_K^T q
  R.leftCols(K).noalias() += cs * p * s.v2.transpose();
  s.v2.noalias() = Z.leftCols(K).transpose() * p;  // Z_K^T p
  R.leftCols(K).noalias() += cs * c.v[0] * s.v2.transpose();
}

}  // namespace icl::layers
