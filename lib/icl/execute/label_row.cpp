#include "icl/execute/label_row.hpp"

#include "icl/layers/lsa.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace icl::execute {

namespace {
// ICL_LABEL_ROW=0 in the environment starts with the path off: a run that reuses trainings checkpointed before the
// path existed (bench/paper-runs/) finds them under their old keys (learn/checkpoint.cpp) and gives their numbers.
bool enabled_at_start() {
  const char* v = std::getenv("ICL_LABEL_ROW");
  return !(v && std::string(v) == "0");
}
std::atomic<bool> g_enabled{enabled_at_start()};
}  // namespace

void set_label_row_enabled(bool on) { g_enabled = on; }
bool label_row_enabled() { return g_enabled.load(); }

std::unique_ptr<LabelRowStack> LabelRowStack::recognise(const icl::Parameterisation& params,
                                                        const icl::PromptSource& source) {
  const icl::Network& net = params.base();
  const int D = net.rows, L = net.size();
  if (D < 2 || D - 1 > label_row::kMaxD || source.rows != D || source.cols < 2 || L < 1 || L > label_row::kMaxLayers)
    return nullptr;
  const int d = D - 1;
  // Per layer, the entries of P (0) and Q (1) that some group writes.
  std::vector<Eigen::Matrix<char, Eigen::Dynamic, Eigen::Dynamic>> written(static_cast<std::size_t>(2 * L));
  for (int l = 0; l < L; ++l) {
    const auto* lsa = dynamic_cast<const layers::Lsa*>(&net.layer(l));
    if (!lsa || !lsa->masked || lsa->find("P") != 0 || lsa->find("Q") != 1) return nullptr;
    for (int m = 0; m < 2; ++m) {
      if (lsa->param(m).rows() != D || lsa->param(m).cols() != D) return nullptr;
      written[static_cast<std::size_t>(2 * l + m)].setZero(D, D);
    }
  }
  for (const auto& g : params.groups())
    for (const auto& t : g.targets)
      for (const auto& pattern : g.patterns)
        for (const auto& e : pattern) {
          if (t.index < 0 || t.index > 1) return nullptr;
          written[static_cast<std::size_t>(2 * t.layer + t.index)](t.row + e.row, t.col + e.col) = 1;
        }
  auto allowed = [d](int m, int i, int j) { return (i < d && j < d) || (m == 0 && i == d && j == d); };
  auto s = std::unique_ptr<LabelRowStack>(new LabelRowStack());
  s->d_ = d;
  s->L_ = L;
  s->n_ = source.cols - 1;
  s->has_B_.assign(static_cast<std::size_t>(L), 0);
  s->want_B_.assign(static_cast<std::size_t>(L), 0);
  s->want_P_.assign(static_cast<std::size_t>(L), 0);
  s->want_Q_.assign(static_cast<std::size_t>(L), 0);
  for (int l = 0; l < L; ++l) {
    const auto k = static_cast<std::size_t>(l);
    for (int m = 0; m < 2; ++m) {
      const Eigen::MatrixXd& W = net.layer(l).param(m);
      const auto& wr = written[2 * k + static_cast<std::size_t>(m)];
      for (int j = 0; j < D; ++j)
        for (int i = 0; i < D; ++i) {
          if (!allowed(m, i, j) && (W(i, j) != 0.0 || wr(i, j))) return nullptr;
          if (wr(i, j)) (m == 0 ? s->want_P_ : s->want_Q_)[k] = 1;
          if (m == 0 && i < d && j < d) {
            if (W(i, j) != 0.0 || wr(i, j)) s->has_B_[k] = 1;
            if (wr(i, j)) s->want_B_[k] = 1;
          }
        }
    }
  }
  const int gpl = label_row::grad_per_layer(d), dd = d * d;
  auto add = [&](int e0, int e1) {
    if (!s->acc_ranges_.empty() && s->acc_ranges_.back().second == e0)
      s->acc_ranges_.back().second = e1;
    else
      s->acc_ranges_.push_back({e0, e1});
  };
  for (int l = 0; l < L; ++l) {
    const auto k = static_cast<std::size_t>(l);
    if (s->want_Q_[k]) add(l * gpl, l * gpl + dd);
    if (s->want_B_[k] && l < L - 1) add(l * gpl + dd, l * gpl + 2 * dd);  // the last layer's B does not reach
                                                                          // the prediction: its gradient is zero
    if (s->want_P_[k]) add(l * gpl + 2 * dd, l * gpl + 2 * dd + 1);
  }
  s->Qa_.assign(static_cast<std::size_t>(L * dd), 0.0);
  s->B_.assign(static_cast<std::size_t>(L * dd), 0.0);
  s->sp_.assign(static_cast<std::size_t>(L), 0.0);
  s->s_.assign(static_cast<std::size_t>(L), 0.0);
  s->use_avx2(true);
  s->load(net);
  return s;
}

void LabelRowStack::use_avx2(bool on) { kernel_ = label_row::kernel(d_, on); }

void LabelRowStack::load(const icl::Network& net) {
  const int d = d_, dd = d * d;
  for (int l = 0; l < L_; ++l) {
    const auto& lsa = static_cast<const layers::Lsa&>(net.layer(l));
    const Eigen::MatrixXd& P = lsa.param(0);
    const Eigen::MatrixXd& Q = lsa.param(1);
    const double s = lsa.scale != 0.0 ? lsa.scale : 1.0 / static_cast<double>(n_);
    for (int j = 0; j < d; ++j)
      for (int i = 0; i < d; ++i) {
        Qa_[static_cast<std::size_t>(l * dd + i + d * j)] = Q(i, j);
        B_[static_cast<std::size_t>(l * dd + i + d * j)] = P(i, j);
      }
    s_[static_cast<std::size_t>(l)] = s;
    sp_[static_cast<std::size_t>(l)] = s * P(d, d);
  }
}

label_row::KernelWeights LabelRowStack::weights() const {
  return {d_, L_, Qa_.data(), B_.data(), sp_.data(), s_.data(), has_B_.data(), want_B_.data()};
}

void LabelRowStack::statistics(const Eigen::Ref<const Eigen::MatrixXd>& Z, double target, double* group, int lane) const {
  constexpr int W = label_row::kLanes;
  const int d = d_, dd = d * d, n = n_;
  double* f = group + lane;
  for (int b = 0; b < d; ++b)
    for (int a = 0; a <= b; ++a) {
      double v = 0;
      for (int j = 0; j < n; ++j) v += Z(a, j) * Z(b, j);
      f[W * (a + d * b)] = v;
      f[W * (b + d * a)] = v;
    }
  for (int a = 0; a < d; ++a) {
    double v = 0;
    for (int j = 0; j < n; ++j) v += Z(a, j) * Z(d, j);
    f[W * (dd + a)] = v;
    f[W * (dd + d + a)] = Z(a, n);
  }
  f[W * (dd + 2 * d)] = Z(d, n);
  f[W * (dd + 2 * d + 1)] = target;
}

void LabelRowStack::evaluate(const double* group, int lanes, icl::LossSpec loss, double* sum, double* acc,
                             Scratch& s) const {
  constexpr int W = label_row::kLanes;
  if (reinterpret_cast<std::uintptr_t>(group) % label_row::kAlign != 0)
    throw std::invalid_argument("LabelRowStack::evaluate: the group is not aligned (use label_row::Buffer)");
  const auto w = weights();
  s.tape.resize(static_cast<std::size_t>(L_ * label_row::tape_per_layer(d_)));
  double yhat[W], dy[W] = {0.0, 0.0, 0.0, 0.0};
  kernel_.forward(w, group, yhat, s.tape.data());
  const double* target = group + W * (fields() - 1);
  for (int k = 0; k < lanes; ++k) {
    *sum += loss(yhat[k], target[k]);
    dy[k] = loss.derivative(yhat[k], target[k]);
  }
  if (!acc) return;
  s.grad.resize(static_cast<std::size_t>(grad_size() * W));
  kernel_.backward(w, group, s.tape.data(), dy, s.grad.data());
  for (const auto& [e0, e1] : acc_ranges_) kernel_.accumulate(s.grad.data(), e0, e1, lanes, acc);  // prompt order
}

void LabelRowStack::write(const double* acc, WeightGrads& g) const {
  const int d = d_, dd = d * d, gpl = label_row::grad_per_layer(d);
  for (int l = 0; l < L_; ++l) {
    const auto k = static_cast<std::size_t>(l);
    auto& G = g.g[k];
    const double* a = acc + l * gpl;
    if (want_Q_[k]) G[1].topLeftCorner(d, d) = Eigen::Map<const Eigen::MatrixXd>(a, d, d);
    if (want_P_[k]) {
      if (want_B_[k] && l < L_ - 1) G[0].topLeftCorner(d, d) = Eigen::Map<const Eigen::MatrixXd>(a + dd, d, d);
      G[0](d, d) = a[2 * dd];
    }
  }
}

}  // namespace icl::execute
