#include "icl/learn/network.hpp"

#include <cmath>
#include <stdexcept>

namespace icl::learn {

using Eigen::Index;
using Eigen::MatrixXd;

const char* to_string(LayerKind k) {
  switch (k) {
    case LayerKind::lsa: return "lsa";
    case LayerKind::bilinear: return "bilinear";
    case LayerKind::softmax: return "softmax";
  }
  return "?";
}

const char* slot_name(LayerKind k, int slot) {
  switch (k) {
    case LayerKind::lsa: return slot == 0 ? "P" : "Q";
    case LayerKind::bilinear: return slot == 0 ? "W0" : "W1";
    case LayerKind::softmax: return slot == 0 ? "V" : "K";
  }
  return "?";
}

void WeightGrads::zero() {
  for (std::size_t l = 0; l < g.size(); ++l)
    for (int s = 0; s < 2; ++s)
      if (wanted[l][s]) g[l][s].setZero();
}

Network& Network::add_lsa(bool masked, double scale) {
  LayerSpec s;
  s.kind = LayerKind::lsa;
  s.masked = masked;
  s.scale = scale;
  layers.push_back(s);
  weights.push_back({MatrixXd::Zero(rows, rows), MatrixXd::Zero(rows, rows)});
  return *this;
}

Network& Network::add_bilinear() {
  LayerSpec s;
  s.kind = LayerKind::bilinear;
  layers.push_back(s);
  weights.push_back({MatrixXd::Zero(rows - 1, rows - 1), MatrixXd::Zero(rows - 1, rows - 1)});
  return *this;
}

Network& Network::add_softmax(SoftmaxAttention::Activation act, bool causal) {
  LayerSpec s;
  s.kind = LayerKind::softmax;
  s.activation = act;
  s.causal = causal;
  layers.push_back(s);
  weights.push_back({MatrixXd::Zero(rows, rows), MatrixXd::Zero(rows, rows)});
  return *this;
}

Network Network::truncated(int k) const {
  if (k < 0 || k > size()) throw std::invalid_argument("Network::truncated: depth out of range");
  Network n;
  n.rows = rows;
  n.layers.assign(layers.begin(), layers.begin() + k);
  n.weights.assign(weights.begin(), weights.begin() + k);
  return n;
}

int Network::last_effective() const {
  for (int l = size() - 1; l >= 0; --l)
    if (layers[l].kind != LayerKind::bilinear) return l;
  return -1;
}

WeightGrads Network::make_grads(bool all) const {
  WeightGrads g;
  g.g.resize(layers.size());
  g.wanted.assign(layers.size(), {all, all});
  for (std::size_t l = 0; l < layers.size(); ++l)
    for (int s = 0; s < 2; ++s) g.g[l][s] = MatrixXd::Zero(weights[l][s].rows(), weights[l][s].cols());
  return g;
}

Transformer Network::to_transformer() const {
  Transformer t;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto& s = layers[l];
    if (s.kind == LayerKind::lsa)
      t.layers.emplace_back(LinearSelfAttention{weights[l][0], weights[l][1], s.masked, s.scale});
    else if (s.kind == LayerKind::bilinear)
      t.layers.emplace_back(BilinearLayer{weights[l][0], weights[l][1]});
    else
      throw std::invalid_argument("Network::to_transformer: a softmax layer has no Transformer counterpart");
  }
  return t;
}

AttentionStack Network::to_attention_stack() const {
  AttentionStack a;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const auto& s = layers[l];
    if (s.kind != LayerKind::softmax)
      throw std::invalid_argument("Network::to_attention_stack: only softmax layers have an AttentionStack counterpart");
    SoftmaxAttention layer;
    layer.V = weights[l][0];
    layer.K = weights[l][1];
    layer.activation = s.activation;
    layer.causal = s.causal;
    layer.allow_uniform_shortcut = false;
    a.layers.push_back(layer);
  }
  return a;
}

namespace {

double lsa_scale(const LayerSpec& s, Index N) { return s.scale != 0.0 ? s.scale : 1.0 / static_cast<double>(N - 1); }
Index visible(const LayerSpec& s, Index j, Index N) { return s.causal ? j + 1 : N; }

// Column-wise masked softmax (or identity) of the score matrix S into W (entries outside the mask 0).
void attention_weights(const LayerSpec& s, const MatrixXd& S, MatrixXd& W) {
  const Index N = S.cols();
  W.setZero(N, N);
  for (Index j = 0; j < N; ++j) {
    const Index v = visible(s, j, N);
    if (s.activation == SoftmaxAttention::Activation::softmax) {
      const double m = S.col(j).head(v).maxCoeff();
      double total = 0;
      for (Index i = 0; i < v; ++i) total += (W(i, j) = std::exp(S(i, j) - m));
      W.col(j).head(v) /= total;
    } else {
      W.col(j).head(v) = S.col(j).head(v);
    }
  }
}

// Full forward of layer l on Z (input) into Zout, caching what its adjoint needs in tape slot l.
void layer_forward(const Network& net, int l, const MatrixXd& Z, MatrixXd& Zout, Tape& t) {
  const LayerSpec& s = net.layers[l];
  const auto& W = net.weights[l];
  const Index D = Z.rows(), N = Z.cols();
  switch (s.kind) {
    case LayerKind::lsa: {
      const Index K = s.masked ? N - 1 : N;
      MatrixXd& G = t.C1[l];
      MatrixXd& T = t.C2[l];
      G.noalias() = Z.leftCols(K) * Z.leftCols(K).transpose();
      t.M1.noalias() = W[0] * G;
      T.noalias() = t.M1 * W[1];
      Zout = Z;
      Zout.noalias() += lsa_scale(s, N) * (T * Z);
      break;
    }
    case LayerKind::bilinear: {
      const Index d = D - 1;
      MatrixXd& A = t.C1[l];
      MatrixXd& B = t.C2[l];
      A.noalias() = W[0] * Z.topRows(d);
      B.noalias() = W[1] * Z.topRows(d);
      Zout = Z;
      Zout.topRows(d).array() += A.array() * B.array();
      break;
    }
    case LayerKind::softmax: {
      t.KZ.noalias() = W[1] * Z;                   // K Z
      t.S.noalias() = Z.transpose() * t.KZ;        // S_ij = z_i^T K z_j
      attention_weights(s, t.S, t.C1[l]);          // W
      t.C2[l].noalias() = Z * t.C1[l];             // C = Z W
      Zout = Z;
      Zout.noalias() += W[0] * t.C2[l];
      break;
    }
  }
}

// Adjoint of layer l: R holds dL/dZout on entry and dL/dZin on exit.
void layer_backward(const Network& net, int l, Tape& t, MatrixXd& R, WeightGrads& g) {
  const LayerSpec& s = net.layers[l];
  const auto& W = net.weights[l];
  const MatrixXd& Z = t.Z[l];
  const Index D = Z.rows(), N = Z.cols();
  switch (s.kind) {
    case LayerKind::lsa: {
      const Index K = s.masked ? N - 1 : N;
      const double sc = lsa_scale(s, N);
      const MatrixXd& G = t.C1[l];
      const MatrixXd& T = t.C2[l];
      t.F.noalias() = sc * (R * Z.transpose());  // dT
      if (g.wanted[l][0]) {
        t.M1.noalias() = W[1].transpose() * G;
        g.g[l][0].noalias() += t.F * t.M1;
      }
      if (g.wanted[l][1]) {
        t.M1.noalias() = G * W[0].transpose();
        g.g[l][1].noalias() += t.M1 * t.F;
      }
      t.M1.noalias() = W[0].transpose() * t.F;
      t.H.noalias() = t.M1 * W[1].transpose();  // dG
      t.R2 = R;
      t.R2.noalias() += sc * (T.transpose() * R);
      t.F = t.H + t.H.transpose();
      t.R2.leftCols(K).noalias() += t.F * Z.leftCols(K);
      R.swap(t.R2);
      break;
    }
    case LayerKind::bilinear: {
      const Index d = D - 1;
      const MatrixXd& A = t.C1[l];
      const MatrixXd& B = t.C2[l];
      t.R2 = R.topRows(d).cwiseProduct(B);  // R .* B
      t.F = R.topRows(d).cwiseProduct(A);   // R .* A
      if (g.wanted[l][0]) g.g[l][0].noalias() += t.R2 * Z.topRows(d).transpose();
      if (g.wanted[l][1]) g.g[l][1].noalias() += t.F * Z.topRows(d).transpose();
      R.topRows(d).noalias() += W[0].transpose() * t.R2;
      R.topRows(d).noalias() += W[1].transpose() * t.F;
      break;
    }
    case LayerKind::softmax: {
      const MatrixXd& Wt = t.C1[l];  // attention weights
      const MatrixXd& C = t.C2[l];
      if (g.wanted[l][0]) g.g[l][0].noalias() += R * C.transpose();
      t.H.noalias() = W[0].transpose() * R;  // dC (r x N)
      t.R2 = R;
      t.R2.noalias() += t.H * Wt.transpose();
      t.S.noalias() = Z.transpose() * t.H;  // dW (N x N)
      t.dS.setZero(N, N);
      for (Index j = 0; j < N; ++j) {
        const Index v = visible(s, j, N);
        if (s.activation == SoftmaxAttention::Activation::softmax) {
          const double dot = Wt.col(j).head(v).dot(t.S.col(j).head(v));
          for (Index i = 0; i < v; ++i) t.dS(i, j) = Wt(i, j) * (t.S(i, j) - dot);
        } else {
          t.dS.col(j).head(v) = t.S.col(j).head(v);
        }
      }
      t.F.noalias() = Z * t.dS;  // Z dS (r x N)
      if (g.wanted[l][1]) g.g[l][1].noalias() += t.F * Z.transpose();
      t.KZ.noalias() = W[1] * Z;  // K Z
      t.R2.noalias() += t.KZ * t.dS.transpose();
      t.R2.noalias() += W[1].transpose() * t.F;
      R.swap(t.R2);
      break;
    }
  }
}

// The last effective layer on the query column only: returns the prediction.
double last_forward(const Network& net, int l, const MatrixXd& Z, Tape& t) {
  const LayerSpec& s = net.layers[l];
  const auto& W = net.weights[l];
  const Index D = Z.rows(), N = Z.cols();
  switch (s.kind) {
    case LayerKind::lsa: {
      const Index K = s.masked ? N - 1 : N;
      MatrixXd& G = t.C1[l];
      G.noalias() = Z.leftCols(K) * Z.leftCols(K).transpose();
      t.v1.noalias() = W[1] * Z.col(N - 1);                           // q = Q z_q
      t.v2.noalias() = G * t.v1;                                      // G q
      return Z(D - 1, N - 1) + lsa_scale(s, N) * W[0].row(D - 1).dot(t.v2);
    }
    case LayerKind::softmax: {
      t.v1.noalias() = W[1] * Z.col(N - 1);          // K z_q
      t.v2.noalias() = Z.transpose() * t.v1;         // scores
      if (s.activation == SoftmaxAttention::Activation::softmax) {
        const double m = t.v2.maxCoeff();
        t.v2 = (t.v2.array() - m).exp();
        t.v2 /= t.v2.sum();
      }
      t.v3.noalias() = Z * t.v2;                     // c = Z w
      return Z(D - 1, N - 1) + W[0].row(D - 1).dot(t.v3);
    }
    case LayerKind::bilinear: break;
  }
  return Z(D - 1, N - 1);
}

void last_backward(const Network& net, int l, Tape& t, double dy, MatrixXd& R, WeightGrads& g) {
  const LayerSpec& s = net.layers[l];
  const auto& W = net.weights[l];
  const MatrixXd& Z = t.Z[l];
  const Index D = Z.rows(), N = Z.cols();
  R.setZero(D, N);
  R(D - 1, N - 1) = dy;
  switch (s.kind) {
    case LayerKind::lsa: {
      const Index K = s.masked ? N - 1 : N;
      const double c = lsa_scale(s, N) * dy;
      const MatrixXd& G = t.C1[l];
      // yhat = Z(D-1, N-1) + s p^T G q, p = P row D-1, q = Q z_q.
      const auto p = W[0].row(D - 1).transpose();
      if (g.wanted[l][0]) g.g[l][0].row(D - 1) += c * t.v2.transpose();  // d/dp = s G q
      t.v3.noalias() = G * p;                                             // G p
      if (g.wanted[l][1]) g.g[l][1].noalias() += c * t.v3 * Z.col(N - 1).transpose();
      R.col(N - 1).noalias() += c * (W[1].transpose() * t.v3);            // via q = Q z_q
      // via G: dG = c p q^T, dZ_K += (dG + dG^T) Z_K = c [p (q^T Z_K) + q (p^T Z_K)]
      t.v4.noalias() = Z.leftCols(K).transpose() * t.v1;  // Z_K^T q
      R.leftCols(K).noalias() += c * p * t.v4.transpose();
      t.v4.noalias() = Z.leftCols(K).transpose() * p;     // Z_K^T p
      R.leftCols(K).noalias() += c * t.v1 * t.v4.transpose();
      break;
    }
    case LayerKind::softmax: {
      // yhat = Z(D-1, N-1) + v^T c, c = Z w, w = phi(Z^T K z_q).
      const auto v = W[0].row(D - 1).transpose();
      if (g.wanted[l][0]) g.g[l][0].row(D - 1) += dy * t.v3.transpose();
      t.v4 = dy * v;                                  // dc
      R.noalias() += t.v4 * t.v2.transpose();         // dZ += dc w^T
      Eigen::VectorXd& dw = t.v5;
      dw.noalias() = Z.transpose() * t.v4;
      if (s.activation == SoftmaxAttention::Activation::softmax) {
        const double dot = t.v2.dot(dw);
        dw = t.v2.cwiseProduct((dw.array() - dot).matrix());
      }
      // s_i = z_i^T K z_q: dK = (Z ds) z_q^T, dZ += (K z_q) ds^T, dz_q += K^T Z ds.
      Eigen::VectorXd& Zds = t.v6;
      Zds.noalias() = Z * dw;
      if (g.wanted[l][1]) g.g[l][1].noalias() += Zds * Z.col(N - 1).transpose();
      R.noalias() += t.v1 * dw.transpose();
      R.col(N - 1).noalias() += W[1].transpose() * Zds;
      break;
    }
    case LayerKind::bilinear: break;
  }
}

void ensure_tape(const Network& net, Tape& t) {
  const std::size_t L = net.layers.size();
  if (t.Z.size() != L) {
    t.Z.resize(L);
    t.C1.resize(L);
    t.C2.resize(L);
  }
}

}  // namespace

void forward_full(const Network& net, Eigen::Ref<Eigen::MatrixXd> Z) {
  Tape t;
  ensure_tape(net, t);
  MatrixXd in = Z, out;
  for (int l = 0; l < net.size(); ++l) {
    layer_forward(net, l, in, out, t);
    in.swap(out);
  }
  Z = in;
}

double forward(const Network& net, const Eigen::Ref<const Eigen::MatrixXd>& Z, Tape& t) {
  if (Z.rows() != net.rows) throw std::invalid_argument("learn::forward: prompt rows differ from the network's");
  ensure_tape(net, t);
  const int last = net.last_effective();
  t.last = last;
  if (last < 0) return Z(Z.rows() - 1, Z.cols() - 1);
  t.Z[0] = Z;
  for (int l = 0; l < last; ++l) layer_forward(net, l, t.Z[l], t.Z[l + 1], t);
  return last_forward(net, last, t.Z[last], t);
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
  last_backward(net, last, t, dyhat, t.adj, g);
  for (int l = last - 1; l >= 0; --l) layer_backward(net, l, t, t.adj, g);
  if (dZ0) *dZ0 = t.adj;
}

}  // namespace icl::learn
