#include "constructions/xlssc_sec4.hpp"

#include "icl/model/rng.hpp"
#include "icl/verdict/quantities.hpp"
#include "icl/verdict/mutation.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace icl::xlssc {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kV1{"xlssc.twolayer/V1", "xlssc.twolayer", "layer 1: W_out W^V = I", true};
const MutationSite kK2{"xlssc.twolayer/K2", "xlssc.twolayer", "layer 2: W^K W^Q = I / log D", true};

class TwoLayerWorker {
public:
  TwoLayerWorker(const Network& model, int d, int D, std::uint64_t seed, std::uint64_t purpose)
      : model_(&model), d_(d), D_(D), seed_(seed), purpose_(purpose), X_(d, D + 1), theta_(d), y_(D + 1),
        Z_(d + 1, 2 * D + 1) {}
  void operator()(std::uint64_t i, double* out) {
    PromptRng rng(seed_, purpose_, i);
    rng.fill_normal(theta_);
    theta_ /= std::sqrt(static_cast<double>(d_));  // theta ~ N(0, I/d)
    rng.fill_normal(X_);
    y_ = theta_.transpose() * X_;
    embed_unstructured(X_, y_.head(D_), Z_);
    const double yhat = model_->predict(Z_, ws_), yq = y_[D_];
    const double m = eq5_main_term(X_, theta_);
    out[kLoss] = (yhat - yq) * (yhat - yq);
    out[kExcess] = yhat * yhat - 2 * yhat * yq;
    out[kY2] = yq * yq;
    out[kCross] = yhat * yq;
    out[kEq5Loss] = (m - yq) * (m - yq);
    out[kEps] = (yhat - m) * (yhat - m);
  }

private:
  const Network* model_;
  ForwardWorkspace ws_;
  int d_, D_;
  std::uint64_t seed_, purpose_;
  Eigen::MatrixXd X_;
  Eigen::VectorXd theta_;
  Eigen::RowVectorXd y_;
  Eigen::MatrixXd Z_;
};
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

double eq5_slope(int D) {
  double h = 0;
  for (int i = 1; i <= D; ++i) h += 1.0 / i;
  return (h - 0.5) / std::log(static_cast<double>(D));
}

TwoLayerAtD measure_twolayer(const SamplingPlan& plan, double alpha_case, int d, int D, std::uint64_t purpose) {
  const Network model = twolayer(d, D);
  auto make_worker = [&] { return TwoLayerWorker(model, d, D, plan.seed, purpose); };
  TwoLayerAtD t;
  t.d = d;
  t.D = D;
  t.excess = sequential_bound(plan, alpha_case, BoundKind::upper, 0.0, Tolerance{0, 0}, 2048,
                              std::max<std::uint64_t>(plan.samples, 2048), make_worker, 8192, kTwoLayerComponents,
                              kExcess);
  const Accumulator& a = t.excess.total;
  t.loss = make_estimate(a, kLoss, 1 - t.excess.alpha_look);
  t.slope = a.mean[kCross] / a.mean[kY2];
  t.eq5_main_loss = a.mean[kEq5Loss];
  t.eps_share = a.mean[kEps];
  t.slope_eq5 = eq5_slope(D);
  t.loss_times_logD = t.loss.mean * std::log(static_cast<double>(D));
  return t;
}

nlohmann::ordered_json TwoLayerAtD::row(nlohmann::ordered_json params) const {
  nlohmann::ordered_json r;
  r["params"] = std::move(params);
  r["loss"] = quantity_mc(loss);
  r["zero_predictor_loss"] = 1.0;  // E[y_q^2] = E|x|^2 / d
  r["excess_over_predicting_zero"] = quantity_mc(excess.mc);
  r["vs_predicting_zero"] = decision_json(excess.decision);
  r["slope"] = slope;
  r["slope_eq5"] = slope_eq5;
  r["eq5_main_loss"] = eq5_main_loss;
  r["eps_share"] = eps_share;
  r["loss_times_logD"] = loss_times_logD;
  return r;
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
