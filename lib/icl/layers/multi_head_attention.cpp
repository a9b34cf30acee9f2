#include "icl/layers/multi_head_attention.hpp"

#include <Eigen/Dense>

#include <cmath>
#include <stdexcept>
#include <string>

namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {

constexpr int kWq = 0, kBq = 1, kWk = 2, kBk = 3, kWv = 4, kBv = 5, kWo = 6, kBo = 7;

void add_bias_grad(Eigen::MatrixXd* g, const Eigen::Ref<const MatrixXd>& d) {
  if (g) g->col(0) += d.rowwise().sum();
}

}  // namespace

std::vector<Param> multi_head_attention_params(Index rows, Index heads) {
  if (rows <= 0 || heads <= 0 || rows % heads != 0)
    throw std::invalid_argument("MultiHeadAttention: " + std::to_string(rows) + " rows do not split into " +
                                std::to_string(heads) + " heads");
  std::vector<Param> p;
  for (const char* x : {"q", "k", "v", "o"}) {
    p.push_back({std::string("W") + x, MatrixXd::Zero(rows, rows)});
    p.push_back({std::string("b") + x, MatrixXd::Zero(rows, 1)});
  }
  return p;
}

void mha_forward(const MhaWeights& w, Index heads, bool causal, const MatrixXd& Z, MatrixXd& out, MatrixXd& QKV,
                 MatrixXd& Wt, MatrixXd& C, Scratch& s) {
  const Index p = w.Wq.rows(), N = Z.cols(), m = p / heads;
  if (Z.rows() != p) throw std::invalid_argument("MultiHeadAttention: input rows differ from the layer's");
  const double scale = 1.0 / std::sqrt(static_cast<double>(m));
  QKV.resize(3 * p, N);
  QKV.topRows(p).noalias() = w.Wq * Z;
  QKV.middleRows(p, p).noalias() = w.Wk * Z;
  QKV.bottomRows(p).noalias() = w.Wv * Z;
  QKV.topRows(p).colwise() += w.bq.col(0);
  QKV.middleRows(p, p).colwise() += w.bk.col(0);
  QKV.bottomRows(p).colwise() += w.bv.col(0);
  Wt.setZero(N, heads * N);
  C.resize(p, N);
  for (Index a = 0; a < heads; ++a) {
    s.S.noalias() = QKV.middleRows(p + a * m, m).transpose() * QKV.middleRows(a * m, m);  // K_a^T Q_a
    auto W = Wt.middleCols(a * N, N);
    for (Index j = 0; j < N; ++j) {
      const Index v = causal ? j + 1 : N;  // visible keys 0..v-1
      const double mx = scale * s.S.col(j).head(v).maxCoeff();
      double total = 0;
      for (Index i = 0; i < v; ++i) total += (W(i, j) = std::exp(scale * s.S(i, j) - mx));
      W.col(j).head(v) /= total;
    }
    C.middleRows(a * m, m).noalias() = QKV.middleRows(2 * p + a * m, m) * W;
  }
  out.noalias() = w.Wo * C;
  out.colwise() += w.bo.col(0);
}

void mha_backward(const MhaWeights& w, Index heads, const MatrixXd& Z, const MatrixXd& QKV, const MatrixXd& Wt,
                  const MatrixXd& C, Scratch& s, MatrixXd& R, const MhaGrads& g) {
  const Index p = w.Wq.rows(), N = Z.cols(), m = p / heads;
  const double scale = 1.0 / std::sqrt(static_cast<double>(m));
  if (g.Wo) g.Wo->noalias() += R * C.transpose();
  add_bias_grad(g.bo, R);
  MatrixXd& dC = s.F;
  MatrixXd& dQKV = s.H;
  dC.noalias() = w.Wo.transpose() * R;
  dQKV.resize(3 * p, N);
  for (Index a = 0; a < heads; ++a) {
    const auto W = Wt.middleCols(a * N, N);
    const auto Qa = QKV.middleRows(a * m, m);
    const auto Ka = QKV.middleRows(p + a * m, m);
    const auto Va = QKV.middleRows(2 * p + a * m, m);
    const auto dCa = dC.middleRows(a * m, m);
    dQKV.middleRows(2 * p + a * m, m).noalias() = dCa * W.transpose();  // dV_a
    s.S.noalias() = Va.transpose() * dCa;                                // dW_a
    s.dS.resize(N, N);
    for (Index j = 0; j < N; ++j) {
      const double dot = W.col(j).dot(s.S.col(j));
      s.dS.col(j) = scale * W.col(j).cwiseProduct((s.S.col(j).array() - dot).matrix());
    }
    dQKV.middleRows(a * m, m).noalias() = Ka * s.dS;                  // dQ_a
    dQKV.middleRows(p + a * m, m).noalias() = Qa * s.dS.transpose();  // dK_a
  }
  const auto dQ = dQKV.topRows(p), dK = dQKV.middleRows(p, p), dV = dQKV.bottomRows(p);
  if (g.Wq) g.Wq->noalias() += dQ * Z.transpose();
  if (g.Wk) g.Wk->noalias() += dK * Z.transpose();
  if (g.Wv) g.Wv->noalias() += dV * Z.transpose();
  add_bias_grad(g.bq, dQ);
  add_bias_grad(g.bk, dK);
  add_bias_grad(g.bv, dV);
  R.noalias() = w.Wq.transpose() * dQ;
  R.noalias() += w.Wk.transpose() * dK;
  R.noalias() += w.Wv.transpose() * dV;
}

MultiHeadAttention::MultiHeadAttention(Index rows, Index heads, bool causal_) : causal(causal_), heads_(heads) {
  params_ = multi_head_attention_params(rows, heads);
}

namespace {
MhaWeights weights(const Layer& l) {
  return {l.param(kWq), l.param(kBq), l.param(kWk), l.param(kBk),
          l.param(kWv), l.param(kBv), l.param(kWo), l.param(kBo)};
}
}  // namespace

void MultiHeadAttention::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch& s) const {
  mha_forward(weights(*this), heads_, causal, Z, out, c.m[0], c.m[1], c.m[2], s);
}

void MultiHeadAttention::backward(const MatrixXd& Z, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  const auto want = [&g](int p) { return g.want(p) ? &g[p] : nullptr; };
  mha_backward(weights(*this), heads_, Z, c.m[0], c.m[1], c.m[2], s, R,
               {want(kWq), want(kBq), want(kWk), want(kBk), want(kWv), want(kBv), want(kWo), want(kBo)});
}

}  // namespace icl::layers
