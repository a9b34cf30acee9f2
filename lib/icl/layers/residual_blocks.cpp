#include "icl/layers/residual_blocks.hpp"

#include "icl/layers/gelu_mlp.hpp"
#include "icl/layers/layer_norm.hpp"
#include "icl/layers/multi_head_attention.hpp"

#include <Eigen/Dense>

#include <string>

namespace icl::layers {

using Eigen::Index;
using Eigen::MatrixXd;

namespace {

// Parameter indices: LayerNorm first (gamma, beta), then the branch piece's in its own order.
constexpr int kGamma = 0, kBeta = 1, kBranch = 2;

void append(std::vector<Param>& to, std::vector<Param> from, const std::string& prefix) {
  for (auto& p : from) to.push_back({prefix + p.name, std::move(p.value)});
}

void ensure_cache(Cache& c, std::size_t matrices) {
  if (c.m.size() < matrices) c.m.resize(matrices);
}

MatrixXd* want(Grads& g, int p) { return g.want(p) ? &g[p] : nullptr; }

}  // namespace

AttentionBlock::AttentionBlock(Index rows, Index heads, bool causal_, double eps)
    : causal(causal_), ln_eps(eps), heads_(heads) {
  append(params_, layer_norm_params(rows), "ln.");
  append(params_, multi_head_attention_params(rows, heads), "attn.");
}

namespace {
MhaWeights attention_weights(const Layer& l) {
  return {l.param(kBranch + 0), l.param(kBranch + 1), l.param(kBranch + 2), l.param(kBranch + 3),
          l.param(kBranch + 4), l.param(kBranch + 5), l.param(kBranch + 6), l.param(kBranch + 7)};
}
GeluMlpWeights mlp_weights(const Layer& l) {
  return {l.param(kBranch + 0), l.param(kBranch + 1), l.param(kBranch + 2), l.param(kBranch + 3)};
}
}  // namespace

void AttentionBlock::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch& s) const {
  ensure_cache(c, 5);
  layer_norm_forward(param(kGamma), param(kBeta), ln_eps, Z, c.m[0], c.m[1], c.v[0]);
  mha_forward(attention_weights(*this), heads_, causal, c.m[0], out, c.m[2], c.m[3], c.m[4], s);
  out += Z;
}

void AttentionBlock::backward(const MatrixXd&, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  s.M1 = R;  // the branch's adjoint
  mha_backward(attention_weights(*this), heads_, c.m[0], c.m[2], c.m[3], c.m[4], s, s.M1,
               {want(g, kBranch + 0), want(g, kBranch + 1), want(g, kBranch + 2), want(g, kBranch + 3),
                want(g, kBranch + 4), want(g, kBranch + 5), want(g, kBranch + 6), want(g, kBranch + 7)});
  layer_norm_backward(param(kGamma), c.m[1], c.v[0], s.M1, want(g, kGamma), want(g, kBeta));
  R += s.M1;
}

MlpBlock::MlpBlock(Index rows, Index hidden, double eps) : ln_eps(eps) {
  append(params_, layer_norm_params(rows), "ln.");
  append(params_, gelu_mlp_params(rows, hidden), "mlp.");
}

void MlpBlock::forward(const MatrixXd& Z, MatrixXd& out, Cache& c, Scratch&) const {
  layer_norm_forward(param(kGamma), param(kBeta), ln_eps, Z, c.m[0], c.m[1], c.v[0]);
  gelu_mlp_forward(mlp_weights(*this), c.m[0], out, c.m[2], c.m[3]);
  out += Z;
}

void MlpBlock::backward(const MatrixXd&, Cache& c, Scratch& s, MatrixXd& R, Grads& g) const {
  s.M1 = R;
  gelu_mlp_backward(mlp_weights(*this), c.m[0], c.m[2], c.m[3], s, s.M1,
                    {want(g, kBranch + 0), want(g, kBranch + 1), want(g, kBranch + 2), want(g, kBranch + 3)});
  layer_norm_backward(param(kGamma), c.m[1], c.v[0], s.M1, want(g, kGamma), want(g, kBeta));
  R += s.M1;
}

}  // namespace icl::layers
