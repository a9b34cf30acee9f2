#include "icl/layers/backprop.hpp"

#include <stdexcept>

namespace icl {

using Eigen::MatrixXd;

namespace {

void ensure_tape(const Network& net, Tape& t) {
  const std::size_t L = net.layers.size();
  if (t.Z.size() != L + 1) t.Z.resize(L + 1);
  if (t.cache.size() != L) t.cache.resize(L);
}

}  // namespace

void forward_full(const Network& net, Eigen::Ref<Eigen::MatrixXd> Z) {
  Tape t;
  ensure_tape(net, t);
  MatrixXd in = Z, out;
  for (int l = 0; l < net.size(); ++l) {
    net.layer(l).forward(in, out, t.cache[static_cast<std::size_t>(l)], t.scratch);
    in.swap(out);
  }
  if (in.rows() != Z.rows() || in.cols() != Z.cols())
    throw std::invalid_argument("icl::forward_full: the stack changes the shape of its input");
  Z = in;
}

double forward(const Network& net, const Eigen::Ref<const Eigen::MatrixXd>& Z, Tape& t) {
  if (Z.rows() != net.rows) throw std::invalid_argument("icl::forward: prompt rows differ from the network's");
  ensure_tape(net, t);
  const int last = net.last_effective();
  t.last = last;
  if (last < 0) return Z(Z.rows() - 1, Z.cols() - 1);
  t.Z[0] = Z;
  for (int l = 0; l < last; ++l) {
    const auto k = static_cast<std::size_t>(l);
    net.layer(l).forward(t.Z[k], t.Z[k + 1], t.cache[k], t.scratch);
  }
  const auto k = static_cast<std::size_t>(last);
  return net.layer(last).forward_query(t.Z[k], t.cache[k], t.scratch);
}

void backward(const Network& net, Tape& t, double dyhat, WeightGrads& g, Eigen::MatrixXd* dZ0) {
  const int last = t.last;
  if (last < 0) {
    if (dZ0) {
      dZ0->setZero(net.rows, dZ0->cols());
      (*dZ0)(net.rows - 1, dZ0->cols() - 1) = dyhat;
    }
    return;
  }
  const auto k = static_cast<std::size_t>(last);
  net.layer(last).backward_query(t.Z[k], t.cache[k], t.scratch, dyhat, t.adj, g.g[k]);
  for (int l = last - 1; l >= 0; --l) {
    const auto j = static_cast<std::size_t>(l);
    net.layer(l).backward(t.Z[j], t.cache[j], t.scratch, t.adj, g.g[j]);
  }
  if (dZ0) *dZ0 = t.adj;
}

}  // namespace icl
