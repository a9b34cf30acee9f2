#include "icl/conditional_loss.hpp"

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
  // The actual prediction on the actual query.
  Z_ = Zf_;
  attention_->forward(Z_, draw_.workspace());
  const double yhat = prediction(Z_);
  const double yq = draw_.labels()[n];
  out[0] = (yhat + sign_ * yq) * (yhat + sign_ * yq);
  // b_k: the prediction when the query's feature column is e_k.
  double lin = 0;
  for (int k = 0; k < p; ++k) {
    Z_ = Zf_;
    Z_.col(n).setZero();
    Z_(k, n) = 1.0;
    attention_->forward(Z_, draw_.workspace());
    c_[k] = prediction(Z_);
    lin += c_[k] * Zf_(k, n);
  }
  out[2] = (yhat - lin) * (yhat - lin);
  const Eigen::VectorXd& w = model_->random_w ? draw_.coefficients() : model_->fixed_w;
  c_.tail(model_->num_coefficients()) = sign_ * w;
  out[1] = c_.dot(*Psi_ * c_) + model_->noise_sd * model_->noise_sd;
}

}  // namespace icl
