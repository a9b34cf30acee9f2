// Which weights train: an affine map from a parameter vector theta to the weights of a Network.
//
//   weights = base + sum_k theta_k * pattern_k
//
// `base` holds every frozen value (e.g. acds form (8): P_i = [0, 0; 0, 1] entirely frozen). Parameters come
// in named groups ("A_0", "W0[3]"), each a small matrix of its own shape, written into one or more weight
// blocks (targets, with a coefficient: Q_i = -[A_i, 0; 0, 0] is group A_i at Q_i's top-left block with
// coefficient -1). A group's scalars are its free entries: all of them (full), the upper triangle
// (symmetric: A = A^T, one scalar per pair), the entries of a mask (sja's sparse form (12)), or the
// coefficients of given matrices (a span: A_i = a_i Sigma^-1 is a one-scalar group with pattern Sigma^-1).
// Tying across layers is one group with several targets. Per-matrix gradient clipping and reports act on
// groups. The gradient with respect to theta is the weights' gradient pulled back through the same map.
#pragma once
#include "icl/layers/network.hpp"

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace icl {

struct Target {
  int layer = 0;
  std::string param;     // the layer's parameter by name: "P", "Q" (lsa), "W0", "W1" (bilinear), "V", "K" (softmax)
  int row = 0, col = 0;  // top-left corner of the group's block in the weight matrix
  double coef = 1.0;
  int index = -1;        // the parameter's index in its layer (Parameterisation::add resolves the name)
};

struct ParamGroup {
  std::string name;
  int rows = 0, cols = 0;
  // Scalar k of the group contributes theta_k * pattern[k] (rows x cols, sparse triplets) to the group matrix.
  struct Entry {
    int row, col;
    double value;
  };
  std::vector<std::vector<Entry>> patterns;
  std::vector<Target> targets;
  int size() const { return static_cast<int>(patterns.size()); }

  // Every entry free.
  static ParamGroup full(std::string name, int rows, int cols, std::vector<Target> targets);
  // A = A^T: one scalar per diagonal entry and per pair (i < j).
  static ParamGroup symmetric(std::string name, int n, std::vector<Target> targets);
  // Only the entries where mask != 0 are free.
  static ParamGroup masked(std::string name, const Eigen::MatrixXd& mask, std::vector<Target> targets);
  // theta_k multiplies basis[k] (a span, e.g. {Sigma^-1} for A = a Sigma^-1).
  static ParamGroup span(std::string name, const std::vector<Eigen::MatrixXd>& basis, std::vector<Target> targets);
};

class Parameterisation {
public:
  Parameterisation() = default;
  // `base`: the network with its frozen values (entries that no group writes keep them).
  explicit Parameterisation(Network base) : base_(std::move(base)) {}
  // Adds a group; returns its index. Throws if a target block falls outside its weight matrix.
  int add(ParamGroup g);

  int size() const { return size_; }
  const Network& base() const { return base_; }
  Network& base() { return base_; }
  const std::vector<ParamGroup>& groups() const { return groups_; }
  int group_offset(int g) const { return offsets_[g]; }
  int find_group(const std::string& name) const;  // -1 if none

  // weights = base + sum theta_k pattern_k (net is resized to the base's shape).
  void apply(const Eigen::Ref<const Eigen::VectorXd>& theta, Network& net) const;
  Network network(const Eigen::Ref<const Eigen::VectorXd>& theta) const;
  // dtheta += pullback of the weights' gradient.
  void pullback(const WeightGrads& dW, Eigen::Ref<Eigen::VectorXd> dtheta) const;
  // Which parameters any group writes (only those need gradients).
  WeightGrads make_grads() const;
  // theta whose weights best match `net` on the free entries: exact when `net` lies in the family (groups
  // write disjoint entries); each scalar is the least-squares fit of its own pattern entries.
  Eigen::VectorXd theta_from(const Network& net) const;
  // The group's matrix (e.g. A_i) at theta.
  Eigen::MatrixXd group_matrix(int g, const Eigen::Ref<const Eigen::VectorXd>& theta) const;
  Eigen::MatrixXd group_matrix(const std::string& name, const Eigen::Ref<const Eigen::VectorXd>& theta) const;

private:
  Network base_;
  std::vector<ParamGroup> groups_;
  std::vector<int> offsets_;
  int size_ = 0;
};

// theta ~ N(0, sd^2) from the counter-based stream (seed, purpose, 0): the same for the same seed.
Eigen::VectorXd normal_theta(const Parameterisation& p, double sd, std::uint64_t seed, std::uint64_t purpose);

}  // namespace icl
