// Helpers shared by the unit tests: random matrices and prompts from the project's own counter-based
// streams (so every test is reproducible), and prompts built from explicit numbers.
#pragma once
#include "icl/layers/lsa.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"

#include <Eigen/Dense>

#include <cstdint>

namespace icl::test {

// An r x c matrix of N(0, 1) entries from stream (seed, 77).
inline Eigen::MatrixXd random_matrix(int r, int c, std::uint64_t seed) {
  PromptRng rng(seed, 77, 0);
  Eigen::MatrixXd m(r, c);
  rng.fill_normal(m);
  return m;
}

// A well-conditioned symmetric positive definite d x d matrix.
inline Eigen::MatrixXd random_spd(int d, std::uint64_t seed) {
  const Eigen::MatrixXd a = random_matrix(d, d, seed);
  return a * a.transpose() / d + 0.3 * Eigen::MatrixXd::Identity(d, d);
}

// The prompt of `shape` holding inputs X (d x (n+1), the query last) and labels y (n+1, the query's 0).
inline Eigen::MatrixXd embedded(const PromptShape& shape, const Eigen::MatrixXd& X, const Eigen::RowVectorXd& y) {
  Eigen::MatrixXd Z(shape.rows(), shape.cols());
  embed(shape, X, y, Z);
  return Z;
}

// A prompt with N(0, 1) inputs and labels (query label 0), drawn from stream (seed, purpose, index).
struct RandomPrompt {
  Eigen::MatrixXd X;
  Eigen::RowVectorXd y;
  Eigen::MatrixXd Z;
};
inline RandomPrompt random_prompt(const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                                  std::uint64_t index = 0) {
  PromptRng rng(seed, purpose, index);
  RandomPrompt p{Eigen::MatrixXd(shape.d, shape.n + 1), Eigen::RowVectorXd(shape.n + 1), {}};
  rng.fill_normal(p.X);
  rng.fill_normal(p.y);
  p.y[shape.n] = 0;
  p.Z = embedded(shape, p.X, p.y);
  return p;
}

// A Monte Carlo worker writing mu + N(0, 1) for prompt i, from the prompt's own stream.
struct NormalWorker {
  std::uint64_t seed, purpose;
  double mu;
  void operator()(std::uint64_t i, double* out) const {
    PromptRng r(seed, purpose, i);
    out[0] = mu + r.normal();
  }
};

// The sparse single layer P = e e^T, Q = diag(Gamma, 0), masked (written without the papers' constructions).
inline LinearSelfAttention sparse_layer(const Eigen::MatrixXd& gamma) {
  const Eigen::Index D = gamma.rows() + 1;
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(D, D);
  a.P(D - 1, D - 1) = 1.0;
  a.Q = Eigen::MatrixXd::Zero(D, D);
  a.Q.topLeftCorner(D - 1, D - 1) = gamma;
  return a;
}

}  // namespace icl::test
