#include "icl/montecarlo/conditional_loss.hpp"

namespace icl {

Eigen::MatrixXd query_moment_matrix(const GaussianIclModel& model, const std::vector<Poly>& u) {
  std::vector<FlatPoly> psi;
  for (const auto& f : u) psi.emplace_back(model.compose(f));
  for (const auto& g : model.basis) psi.emplace_back(model.compose(g));
  const Eigen::Index k = static_cast<Eigen::Index>(psi.size());
  Eigen::MatrixXd M(k, k);
  for (Eigen::Index a = 0; a < k; ++a)
    for (Eigen::Index b = a; b < k; ++b) M(a, b) = M(b, a) = expect_product(psi[a], psi[b]);
  return M;
}

QueryConditionalWorker::QueryConditionalWorker(const Transformer& features, const Transformer& attention,
                                               const GaussianIclModel& model, const Eigen::MatrixXd& Psi,
                                               const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                                               double sign)
    : features_(&features), attention_(&attention), model_(&model), Psi_(&Psi),
      draw_(attention, model, shape, seed, purpose, sign), shape_(shape), sign_(sign) {
  Zf_.resize(shape.rows(), shape.cols());
  Z_.resize(shape.rows(), shape.cols());
  c_.resize(shape.dbar + model.num_coefficients());
  if (Psi.rows() != c_.size()) throw std::invalid_argument("QueryConditionalWorker: Psi has the wrong size");
}

void QueryConditionalWorker::operator()(std::uint64_t i, double* out) {
  draw_.draw(i);
  const int p = shape_.dbar, n = shape_.n;
  embed(shape_, draw_.inputs(), draw_.labels(), Zf_);
  features_->forward(Zf_, draw_.workspace());
  // The actual prediction on the actual query, through the real forward pass. For a stack of masked LSA
  // layers the context columns never see the query, and the query column is mapped linearly:
  // z_q <- (I + s P G Q) z_q with G = Z_ctx Z_ctx^T of that layer's input; the product of these maps,
  // read from the same pass, gives b. Other stacks: b_k from one pass per basis vector e_k.
  Z_ = Zf_;
  bool fast = true;
  for (const auto& l : attention_->layers) {
    const auto* a = dynamic_cast<const layers::Lsa*>(l.get());
    if (!a || !a->masked) fast = false;
  }
  double lin = 0;
  if (fast) {
    const Eigen::Index D = Z_.rows();
    Mq_.setIdentity(D, D);
    for (const auto& l : attention_->layers) {
      const auto& a = static_cast<const layers::Lsa&>(*l);
      const double s = a.scale != 0.0 ? a.scale : 1.0 / n;
      a.apply(Z_, draw_.workspace());
      // The layer has just formed the nonzero rows R of P G Q, G = Z_ctx Z_ctx^T of its input (masked:
      // the context columns only), in the workspace's T; its query map is I + s P G Q.
      const ForwardWorkspace& ws = draw_.workspace();
      T_.setZero(D, D);
      for (std::size_t r = 0; r < ws.R.size(); ++r) T_.row(ws.R[r]) = ws.T.row(static_cast<Eigen::Index>(r)).head(D);
      Mq_ = Mq_ + s * T_ * Mq_;
    }
    for (int k = 0; k < p; ++k) c_[k] = Mq_(D - 1, k);
  }
  if (!fast) attention_->forward(Z_, draw_.workspace());
  const double yhat = prediction(Z_);
  const double yq = draw_.labels()[n];
  out[0] = (yhat + sign_ * yq) * (yhat + sign_ * yq);
  if (!fast)
    for (int k = 0; k < p; ++k) {
      Z_ = Zf_;
      Z_.col(n).setZero();
      Z_(k, n) = 1.0;
      attention_->forward(Z_, draw_.workspace());
      c_[k] = prediction(Z_);
    }
  for (int k = 0; k < p; ++k) lin += c_[k] * Zf_(k, n);
  out[2] = (yhat - lin) * (yhat - lin);
  const Eigen::VectorXd& w = model_->random_w ? draw_.coefficients() : model_->fixed_w;
  c_.tail(model_->num_coefficients()) = sign_ * w;
  out[1] = c_.dot(*Psi_ * c_) + model_->noise_sd * model_->noise_sd;
}

}  // namespace icl
