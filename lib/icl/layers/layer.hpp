// The layer concept: a layer type owns its parameters (named tensors), its forward pass and its adjoint, in one
// file. The papers' layers: lsa.hpp (linear self-attention), bilinear.hpp (sja's GLU without activation),
// softmax_attention.hpp (xlssc). The GPT-2 pieces (Garg et al.'s model as Xing et al. modify it): linear.hpp (token
// read-in and read-out), positional.hpp (none, trainable, sin-cos), layer_norm.hpp, multi_head_attention.hpp,
// gelu_mlp.hpp, and residual_blocks.hpp (x + MHA(LN(x)), x + MLP(LN(x)), through the same functions). A network
// (layers/backprop.hpp) is a stack of them; the trainer, the Monte Carlo loss of a trained network and the per-prompt
// losses all run the stack through these functions on the executor (execute/executor.hpp), and nothing outside a
// layer's file knows what it computes.
//
// Activations are matrices with one column per token (rows = features). A layer maps an input Z (r x N) to
// an output (out_rows(r) x N). The prediction of a stack is the last entry of its last output (the query
// column's last row), so the executor may use two properties a layer declares:
//   writes_prediction() false: the layer never changes that entry nor anything a later layer reads to form it
//     (sja's bilinear layer writes feature rows only); a stack's trailing such layers are skipped.
//   forward_query()/backward_query(): the last layer that matters computes the prediction alone (for linear
//     self-attention O(D N) instead of O(D^2 N)); the default runs the full forward and seeds the adjoint at
//     that one entry.
//   apply()/apply_query(): the forward pass in place, keeping nothing for an adjoint (the Monte Carlo workers run
//     a stack this way, layers/network.hpp). The paper layers skip the zero rows and columns of their weights
//     there (constructions are sparse: sja App. C's P = e e^T); the default goes through forward().
// Parameterisations (model/parameters.hpp) address a parameter by layer index and name ("P", "Q", "W0", ...).
//
// Adding a layer type: a class derived from Layer in one new file, and its finite-difference test
// (tests/layers/: every parameter entry and every input entry against central differences).
#pragma once
#include <Eigen/Core>

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace icl {
struct ForwardWorkspace;  // layers/workspace.hpp
}

namespace icl::layers {

// A parameter: a named tensor (a matrix; a vector is a single column).
struct Param {
  std::string name;
  Eigen::MatrixXd value;
};

// What a layer's forward pass keeps for its adjoint (one per layer and prompt; sized on first use, reused).
struct Cache {
  std::vector<Eigen::MatrixXd> m;
  std::vector<Eigen::VectorXd> v;
  Eigen::MatrixXd out;  // the default query path keeps the full output here
  Cache() : m(4), v(4) {}
};

// Scratch shared by every layer of a stack on one thread (no allocation once sized).
struct Scratch {
  Eigen::MatrixXd R2, F, H, M1, KZ, S, dS;
  Eigen::VectorXd v1, v2, v3;
};

// One layer's gradient accumulators: one per parameter (its shape), touched only where `wanted`.
struct Grads {
  std::vector<Eigen::MatrixXd> g;
  std::vector<char> wanted;
  bool want(int p) const { return wanted[static_cast<std::size_t>(p)] != 0; }
  Eigen::MatrixXd& operator[](int p) { return g[static_cast<std::size_t>(p)]; }
  const Eigen::MatrixXd& operator[](int p) const { return g[static_cast<std::size_t>(p)]; }
  void zero();
};

class Layer {
public:
  virtual ~Layer() = default;
  virtual const char* kind() const = 0;
  virtual std::unique_ptr<Layer> clone() const = 0;

  const std::vector<Param>& params() const { return params_; }
  std::vector<Param>& params() { return params_; }
  int param_count() const { return static_cast<int>(params_.size()); }
  // The index of the parameter called `name` (-1 if none).
  int find(std::string_view name) const;
  // The parameter called `name`; throws std::invalid_argument naming the layer kind and its parameters if none.
  Eigen::MatrixXd& param(std::string_view name);
  const Eigen::MatrixXd& param(std::string_view name) const;
  Eigen::MatrixXd& param(int p) { return params_[static_cast<std::size_t>(p)].value; }
  const Eigen::MatrixXd& param(int p) const { return params_[static_cast<std::size_t>(p)].value; }
  // Zero accumulators of every parameter's shape (wanted = all).
  Grads make_grads(bool all = true) const;

  // Output rows for `rows` input rows (most layers keep the shape).
  virtual Eigen::Index out_rows(Eigen::Index rows) const { return rows; }
  virtual bool writes_prediction() const { return true; }

  // out = layer(Z), keeping in c what backward() needs.
  virtual void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const = 0;
  // After forward(Z): R holds dL/d(out) on entry and dL/dZ on exit; parameter gradients are added into g.
  virtual void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const = 0;
  // The prediction out(last row, last column) alone, and its adjoint seeded with dy (R: dL/dZ on exit).
  virtual double forward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s) const;
  virtual void backward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, double dy, Eigen::MatrixXd& R,
                              Grads& g) const;
  // Z <- layer(Z) in place, nothing kept for an adjoint. The default runs forward() through ws (a layer whose
  // output has other rows than its input cannot run in place: it throws std::invalid_argument).
  virtual void apply(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const;
  // The query column (the last) alone: Z(:, N-1) becomes what apply() gives it; the other columns are left as
  // apply() or as the input had them (use it for the last layer of a stack). Default: apply().
  virtual void apply_query(Eigen::Ref<Eigen::MatrixXd> Z, ForwardWorkspace& ws) const { apply(Z, ws); }

protected:
  Layer() = default;
  Layer(const Layer&) = default;
  Layer& operator=(const Layer&) = default;
  // Adds a zero parameter of the given shape; returns its index.
  int add_param(std::string name, Eigen::Index rows, Eigen::Index cols);
  std::vector<Param> params_;
};

// A layer held by value (copying clones it), so networks copy like the matrices they hold.
class LayerPtr {
public:
  LayerPtr() = default;
  template <class L, class = std::enable_if_t<std::is_base_of_v<Layer, L>>>
  LayerPtr(std::unique_ptr<L> p) : p_(std::move(p)) {}  // NOLINT: implicit on purpose
  // From a construction's weights (icl::LinearSelfAttention, BilinearLayer, LinearAttentionHeads,
  // SoftmaxAttention: each layer file declares make_layer for its own), so a construction lists its weights.
  template <class Spec>
    requires requires(const Spec& s) { make_layer(s); }
  LayerPtr(const Spec& s) : p_(make_layer(s)) {}  // NOLINT: implicit on purpose
  LayerPtr(const LayerPtr& o) : p_(o.p_ ? o.p_->clone() : nullptr) {}
  LayerPtr(LayerPtr&&) noexcept = default;
  LayerPtr& operator=(const LayerPtr& o) {
    if (this != &o) p_ = o.p_ ? o.p_->clone() : nullptr;
    return *this;
  }
  LayerPtr& operator=(LayerPtr&&) noexcept = default;
  Layer& operator*() const { return *p_; }
  Layer* operator->() const { return p_.get(); }
  Layer* get() const { return p_.get(); }

private:
  std::unique_ptr<Layer> p_;
};

// CRTP helper: kind() and clone() for a concrete layer type L with `static constexpr const char* kKind`.
template <class L>
class LayerBase : public Layer {
public:
  const char* kind() const override { return L::kKind; }
  std::unique_ptr<Layer> clone() const override { return std::make_unique<L>(static_cast<const L&>(*this)); }
};

}  // namespace icl::layers
