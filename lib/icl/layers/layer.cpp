#include "icl/layers/layer.hpp"

#include "icl/layers/workspace.hpp"

#include <stdexcept>

namespace icl::layers {

void Grads::zero() {
  for (std::size_t p = 0; p < g.size(); ++p)
    if (wanted[p]) g[p].setZero();
}

int Layer::find(std::string_view name) const {
  for (std::size_t p = 0; p < params_.size(); ++p)
    if (params_[p].name == name) return static_cast<int>(p);
  return -1;
}

Eigen::MatrixXd& Layer::param(std::string_view name) {
  return const_cast<Eigen::MatrixXd&>(static_cast<const Layer&>(*this).param(name));
}

const Eigen::MatrixXd& Layer::param(std::string_view name) const {
  const int p = find(name);
  if (p < 0) {
    std::string have;
    for (const auto& q : params_) have += (have.empty() ? "" : ", ") + q.name;
    throw std::invalid_argument(std::string("a ") + kind() + " layer has no parameter '" + std::string(name) +
                                "' (it has: " + (have.empty() ? "none" : have) + ")");
  }
  return params_[static_cast<std::size_t>(p)].value;
}

Grads Layer::make_grads(bool all) const {
  Grads g;
  for (const auto& p : params_) g.g.push_back(Eigen::MatrixXd::Zero(p.value.rows(), p.value.cols()));
  g.wanted.assign(params_.size(), all ? 1 : 0);
  return g;
}

int Layer::add_param(std::string name, Eigen::Index rows, Eigen::Index cols) {
  params_.push_back({std::move(name), Eigen::MatrixXd::Zero(rows, cols)});
  return static_cast<int>(params_.size()) - 1;
}

double Layer::forward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s) const {
  forward(Z, c.out, c, s);
  return c.out(c.out.rows() - 1, c.out.cols() - 1);
}

void Layer::backward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, double dy, Eigen::MatrixXd& R,
                           Grads& g) const {
  R.setZero(c.out.rows(), c.out.cols());
  R(R.rows() - 1, R.cols() - 1) = dy;
  backward(Z, c, s, R, g);
}

void Layer::apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const {
  ws.in = Z;
  forward(ws.in, ws.out, ws.cache, ws.scratch);
  if (ws.out.rows() != Z.rows() || ws.out.cols() != Z.cols())
    throw std::invalid_argument(std::string("a ") + kind() + " layer changes the prompt's shape and cannot run in place");
  Z = ws.out;
}

}  // namespace icl::layers
