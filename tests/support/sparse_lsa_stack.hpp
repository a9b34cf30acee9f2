// Helper of the conditional estimator's tests (tests/verdict/test_conditional_equality.cpp,
// tests/claim/test_estimator_equality_kind.cpp): a single masked sparse LSA (P = e e^T, Q = diag(Gamma, 0),
// Gamma = -0.8 Lam^{-1}) over the linear task on u = x, whose loss the library integrates exactly.
#pragma once
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/sparse_attention.hpp"
#include "icl/layers/network.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/tasks.hpp"

#include <Eigen/Dense>

#include <vector>

namespace icl::test {

struct SparseLsaStack {
  Transformer features, attention;  // no feature layer; the sparse LSA
  GaussianIclModel model;           // x ~ N(0, I), y = <w, x>
  std::vector<Poly> query_features;  // u = x at the query
  double exact = 0;                  // the exact loss at n
};

inline SparseLsaStack sparse_lsa_stack(int d, int n) {
  const PolynomialTask task = PolynomialTask::linear(d);
  std::vector<Polynomial<Rational>> u;
  for (int j = 0; j < d; ++j) u.push_back(Polynomial<Rational>::variable(d, j));
  const FeatureMoments m = feature_moments(u, task);
  const Eigen::MatrixXd Gamma = -0.8 * m.Lambda.inverse();
  LinearSelfAttention a;  // P = e e^T, Q = diag(Gamma, 0), masked
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = 1.0;
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d) = Gamma;
  a.masked = true;
  SparseLsaStack s;
  s.attention.layers.emplace_back(a);
  s.model = GaussianIclModel::from_task(task, Eigen::MatrixXd::Identity(d, d));
  for (const auto& f : u) s.query_features.push_back(f.to_double_poly());
  s.exact = sparse_lsa_loss(m, Gamma, n);
  return s;
}

}  // namespace icl::test
