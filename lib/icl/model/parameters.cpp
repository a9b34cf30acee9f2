#include "icl/model/parameters.hpp"

#include "icl/model/rng.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace icl {

ParamGroup ParamGroup::full(std::string name, int rows, int cols, std::vector<Target> targets) {
  ParamGroup g{std::move(name), rows, cols, {}, std::move(targets)};
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) g.patterns.push_back({{r, c, 1.0}});
  return g;
}

ParamGroup ParamGroup::symmetric(std::string name, int n, std::vector<Target> targets) {
  ParamGroup g{std::move(name), n, n, {}, std::move(targets)};
  for (int c = 0; c < n; ++c)
    for (int r = 0; r <= c; ++r) {
      if (r == c)
        g.patterns.push_back({{r, c, 1.0}});
      else
        g.patterns.push_back({{r, c, 1.0}, {c, r, 1.0}});
    }
  return g;
}

ParamGroup ParamGroup::masked(std::string name, const Eigen::MatrixXd& mask, std::vector<Target> targets) {
  ParamGroup g{std::move(name), static_cast<int>(mask.rows()), static_cast<int>(mask.cols()), {}, std::move(targets)};
  for (int c = 0; c < mask.cols(); ++c)
    for (int r = 0; r < mask.rows(); ++r)
      if (mask(r, c) != 0) g.patterns.push_back({{r, c, 1.0}});
  return g;
}

ParamGroup ParamGroup::span(std::string name, const std::vector<Eigen::MatrixXd>& basis, std::vector<Target> targets) {
  if (basis.empty()) throw std::invalid_argument("ParamGroup::span: empty basis");
  ParamGroup g{std::move(name), static_cast<int>(basis[0].rows()), static_cast<int>(basis[0].cols()), {},
               std::move(targets)};
  for (const auto& b : basis) {
    if (b.rows() != g.rows || b.cols() != g.cols) throw std::invalid_argument("ParamGroup::span: basis shapes differ");
    std::vector<Entry> p;
    for (int c = 0; c < b.cols(); ++c)
      for (int r = 0; r < b.rows(); ++r)
        if (b(r, c) != 0) p.push_back({r, c, b(r, c)});
    g.patterns.push_back(std::move(p));
  }
  return g;
}

int Parameterisation::add(ParamGroup g) {
  if (g.targets.empty()) throw std::invalid_argument("Parameterisation::add: group '" + g.name + "' has no target");
  for (auto& t : g.targets) {
    if (t.layer < 0 || t.layer >= base_.size())
      throw std::invalid_argument("Parameterisation::add: group '" + g.name + "' targets a missing layer");
    t.index = base_.layer(t.layer).find(t.param);
    if (t.index < 0)
      throw std::invalid_argument(fmt::format("Parameterisation::add: group '{}' targets parameter '{}', which the {} layer {} does not have",
                                              g.name, t.param, base_.layer(t.layer).kind(), t.layer));
    const auto& W = base_.layer(t.layer).param(t.index);
    if (t.row < 0 || t.col < 0 || t.row + g.rows > W.rows() || t.col + g.cols > W.cols())
      throw std::invalid_argument(fmt::format("Parameterisation::add: group '{}' ({}x{} at {},{}) does not fit {} of layer {} ({}x{})",
                                              g.name, g.rows, g.cols, t.row, t.col, t.param, t.layer, W.rows(), W.cols()));
  }
  if (find_group(g.name) >= 0) throw std::invalid_argument("Parameterisation::add: duplicate group name '" + g.name + "'");
  offsets_.push_back(size_);
  size_ += g.size();
  groups_.push_back(std::move(g));
  return static_cast<int>(groups_.size()) - 1;
}

int Parameterisation::find_group(const std::string& name) const {
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].name == name) return static_cast<int>(g);
  return -1;
}

void Parameterisation::apply(const Eigen::Ref<const Eigen::VectorXd>& theta, Network& net) const {
  if (theta.size() != size_) throw std::invalid_argument("Parameterisation::apply: theta has the wrong size");
  if (net.layers.size() != base_.layers.size()) {
    net = base_;
  } else {
    for (int l = 0; l < base_.size(); ++l)
      for (int p = 0; p < base_.layer(l).param_count(); ++p) net.layer(l).param(p) = base_.layer(l).param(p);
  }
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    const auto& g = groups_[gi];
    for (int k = 0; k < g.size(); ++k) {
      const double th = theta[offsets_[gi] + k];
      for (const auto& t : g.targets) {
        auto& W = net.layer(t.layer).param(t.index);
        for (const auto& e : g.patterns[k]) W(t.row + e.row, t.col + e.col) += t.coef * e.value * th;
      }
    }
  }
}

Network Parameterisation::network(const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  Network n = base_;
  apply(theta, n);
  return n;
}

void Parameterisation::pullback(const WeightGrads& dW, Eigen::Ref<Eigen::VectorXd> dtheta) const {
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    const auto& g = groups_[gi];
    for (int k = 0; k < g.size(); ++k) {
      double s = 0;
      for (const auto& t : g.targets) {
        const auto& G = dW.g[static_cast<std::size_t>(t.layer)][t.index];
        for (const auto& e : g.patterns[k]) s += t.coef * e.value * G(t.row + e.row, t.col + e.col);
      }
      dtheta[offsets_[gi] + k] += s;
    }
  }
}

WeightGrads Parameterisation::make_grads() const {
  WeightGrads w = base_.make_grads(false);
  for (const auto& g : groups_)
    for (const auto& t : g.targets) w.g[static_cast<std::size_t>(t.layer)].wanted[static_cast<std::size_t>(t.index)] = 1;
  return w;
}

Eigen::VectorXd Parameterisation::theta_from(const Network& net) const {
  Eigen::VectorXd th(size_);
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    const auto& g = groups_[gi];
    for (int k = 0; k < g.size(); ++k) {
      double num = 0, den = 0;
      for (const auto& t : g.targets)
        for (const auto& e : g.patterns[k]) {
          const double a = t.coef * e.value;
          num += a * (net.layer(t.layer).param(t.index)(t.row + e.row, t.col + e.col) -
                      base_.layer(t.layer).param(t.index)(t.row + e.row, t.col + e.col));
          den += a * a;
        }
      th[offsets_[gi] + k] = den > 0 ? num / den : 0.0;
    }
  }
  return th;
}

Eigen::MatrixXd Parameterisation::group_matrix(int gi, const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  const auto& g = groups_.at(gi);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(g.rows, g.cols);
  for (int k = 0; k < g.size(); ++k)
    for (const auto& e : g.patterns[k]) m(e.row, e.col) += e.value * theta[offsets_[gi] + k];
  return m;
}

Eigen::MatrixXd Parameterisation::group_matrix(const std::string& name, const Eigen::Ref<const Eigen::VectorXd>& theta) const {
  const int g = find_group(name);
  if (g < 0) throw std::invalid_argument("Parameterisation: no group named '" + name + "'");
  return group_matrix(g, theta);
}

Eigen::VectorXd normal_theta(const Parameterisation& p, double sd, std::uint64_t seed, std::uint64_t purpose) {
  PromptRng rng(seed, purpose, 0);
  Eigen::VectorXd th(p.size());
  rng.fill_normal(th);
  return sd * th;
}

}  // namespace icl
