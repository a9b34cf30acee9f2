#include "icl/montecarlo/lsa_prompt_worker.hpp"

#include "icl/model/rng.hpp"

#include <cmath>

namespace icl {

LsaPromptWorker::LsaPromptWorker(const LsaWeights& weights, const LsaPromptModel& model, std::uint64_t seed,
                           std::uint64_t purpose)
    : w_(weights), model_(model), shape_(zfb_shape(model.d, model.N)), seed_(seed), purpose_(purpose) {
  LinearSelfAttention lsa;
  lsa.P = weights.pv;
  lsa.Q = weights.kq;
  lsa.masked = false;
  lsa.scale = 1.0 / model.N;
  net_.layers.push_back(lsa);
  X_.resize(model.d, model.N + 1);
  Xz_.resize(model.d, model.N + 1);
  q_.resize(model.d + 1);
  t_.resize(model.d + 1);
  gp_.resize(model.d + 1);
  gk_.resize(model.d + 1);
  E_.resize(shape_.rows(), shape_.cols());
  Z_.resize(shape_.rows(), shape_.cols());
  EEt_.resize(shape_.rows(), shape_.rows());
  task_.resize(model.d);
  lam_.resize(model.d);
  y_.resize(model.N + 1);
  ws_.reserve(shape_.rows(), shape_.cols());
}

void LsaPromptWorker::operator()(std::uint64_t i, double* out) {
  const int d = model_.d, N = model_.N;
  PromptRng rng(seed_, purpose_, i);
  rng.fill_normal(task_);
  const Eigen::VectorXd& w = model_.fixed_w ? *model_.fixed_w : task_;
  if (model_.lambda_quantile || !model_.lambda_quantiles.empty()) {
    for (int k = 0; k < d; ++k) {
      const double u = rng.uniform() - 0x1p-54;  // u in (0, 1)
      lam_[k] = std::sqrt(model_.lambda_quantile ? model_.lambda_quantile(u) : model_.lambda_quantiles.at(k)(u));
    }
    rng.fill_normal(Xz_);
    X_.noalias() = lam_.asDiagonal() * Xz_;
  } else {
    rng.fill_normal(Xz_);
    X_.noalias() = model_.chol * Xz_;
  }
  X_ *= model_.covariate_scale;
  if (model_.fixed_query) X_.col(N) = *model_.fixed_query;
  y_.noalias() = w.transpose() * X_;
  const double yq = y_[N];
  embed(shape_, X_, y_, E_);
  Z_ = E_;
  const double yhat = net_.predict(Z_, ws_);  // the prediction alone: the last layer on the query column
  const double e = yhat - yq;
  out[0] = 0.5 * e * e;
  out[1] = yhat;
  out[2] = yq;
  if (!model_.with_gradient) return;
  // d yhat / d W^{PV} = e_d (E E^T W^{KQ} q)^T / N,  d yhat / d W^{KQ} = (E E^T W^{PV}^T e_d) q^T / N,
  // q = E e_N = (x_q, 0): backpropagation through the product the layer computes.
  const int n = d + 1;
  EEt_.noalias() = E_ * E_.transpose();
  q_ = E_.col(N);
  t_.noalias() = w_.kq * q_;
  gp_.noalias() = EEt_ * t_;
  gp_ *= e / N;
  t_ = w_.pv.row(d).transpose();
  gk_.noalias() = EEt_ * t_;
  gk_ *= e / N;
  const auto& q = q_;
  double* g = out + 3;
  for (int k = 0; k < 2 * n * n; ++k) g[k] = 0;
  for (int a = 0; a < n; ++a) g[d + n * a] = gp_[a];  // W^{PV}(d, a), column-major
  for (int c = 0; c < n; ++c)
    for (int b = 0; b < n; ++b) g[n * n + b + n * c] = gk_[b] * q[c];
}

}  // namespace icl
