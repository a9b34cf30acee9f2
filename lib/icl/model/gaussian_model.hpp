// A prompt distribution written in independent standard normals, for exact moments and Monte Carlo
// alike.
//
// Inputs x ~ N(0, Sigma) (x = L z, Sigma = L L^T), labels y = sum_m w_m g_m(x) + noise_sd * eps with
// any polynomial basis g_m (monomials, the orthonormal v_ij of sja Lemma 3, Hermite polynomials...),
// coefficients w ~ N(0, I) drawn once per prompt (or fixed), eps ~ N(0, 1) per example.
//
// Exact side: every quantity is a polynomial in the standard normals
//   (z_1..z_d, eps, w_1..w_m)     ("example" variables first, then "task" variables),
// so E[.] is exact Gaussian-moment arithmetic (algebra/gaussian_moments.hpp), and expectations over
// the examples only, with w held fixed, are partial expectations (`expect_over`).
// Monte Carlo side: `ModelPromptWorker` (montecarlo/prompt_loss.hpp) draws the same distribution and runs
// a real forward pass; exact side: exact/feature_moments.hpp.
#pragma once
#include "icl/algebra/flat_polynomial.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"

#include <Eigen/Dense>
#include <string>
#include <utility>
#include <vector>

namespace icl {

struct GaussianIclModel {
  int d = 1;
  Eigen::MatrixXd sigma;     // d x d input covariance
  std::vector<Poly> basis;   // g_m(x), polynomials in d variables
  bool random_w = true;      // w ~ N(0, I) per prompt; else fixed_w
  Eigen::VectorXd fixed_w;
  double noise_sd = 0;       // y += noise_sd * eps
  std::string name;

  // y = sum_m w_m x^{e_m} for the monomials of a PolynomialTask.
  static GaussianIclModel from_task(const PolynomialTask& task, const Eigen::MatrixXd& sigma);
  static GaussianIclModel from_basis(int d, std::vector<Poly> basis, const Eigen::MatrixXd& sigma,
                                     std::string name);

  int num_coefficients() const { return static_cast<int>(basis.size()); }
  int example_vars() const { return d + (noise_sd > 0 ? 1 : 0); }
  int task_vars() const { return random_w ? num_coefficients() : 0; }
  int num_vars() const { return example_vars() + task_vars(); }
  // Polynomials in all num_vars() standard normals.
  std::vector<Poly> inputs() const;                       // x_i = sum_j L_ij z_j
  Poly compose(const Poly& f) const;                      // f(x) in the standard normals
  Poly label() const;                                     // y
  Eigen::MatrixXd cholesky() const;
};

// Draws prompts of a GaussianIclModel from a counter-based stream: w (always drawn, so a fixed w sees the
// same stream), the inputs x = L z column by column (the query last), then each column's label with its
// noise. ModelPromptWorker (montecarlo/) and the trainer (model/prompt_source.hpp) both draw through it, so a
// Monte Carlo estimate and a training minibatch see the same prompt for the same (seed, purpose, index).
class GaussianPromptSampler {
public:
  GaussianPromptSampler(const GaussianIclModel& task, int columns);
  void draw(PromptRng& rng);
  const Eigen::MatrixXd& inputs() const { return X_; }        // d x columns
  const Eigen::RowVectorXd& labels() const { return y_; }     // columns (the query's label last)
  const Eigen::VectorXd& coefficients() const { return w_; }  // the drawn w

private:
  const GaussianIclModel* task_;
  std::vector<FlatPoly> basis_;
  Eigen::MatrixXd chol_;
  bool isotropic_;
  Eigen::MatrixXd X_;
  Eigen::VectorXd w_;
  Eigen::RowVectorXd y_;
  std::vector<double> xcol_;
};

// Standard test covariances (deterministic): 0 isotropic I; 1 diagonal, eigenvalues spread geometrically
// over [1/2, 2]; 2 the same spectrum rotated by a fixed Householder reflection; 3 ill-conditioned,
// eigenvalues geometric over [1/10, 10] (condition number 100), rotated.
Eigen::MatrixXd test_covariance(int d, int kind);
// What is wrong with s as a d x d covariance, or none: its shape, a non-finite entry, asymmetry beyond 1e-12 of its
// largest entry (at least 1), or a failed Cholesky factorisation (not positive definite). Each caller words it.
enum class CovarianceFault { none, shape, non_finite, not_symmetric, not_positive_definite };
CovarianceFault covariance_fault(const Eigen::MatrixXd& s, int d);
std::string covariance_name(int kind);
// The covariance test_covariance(d, kind) actually is: at d = 1 a variance ("variance 2"), never a spectrum
// or a rotation that a 1x1 matrix cannot have.
std::string covariance_name(int kind, int d);
// The short names of the kinds, (kind, name), for a claim's coded covariance parameter (ParamSpec::names,
// claim/claim.hpp): isotropic, diagonal, rotated, rot-k100.
const std::vector<std::pair<double, std::string>>& test_covariance_names();

// A Haar-distributed orthogonal d x d matrix from PromptRng(seed, purpose, 0) (QR of a Gaussian matrix with the signs
// of R's diagonal moved into Q).
Eigen::MatrixXd random_orthogonal(int d, std::uint64_t seed, std::uint64_t purpose);
// y = <w, x>, x ~ N(0, Sigma), w ~ N(0, Sigma^-1): drawn as y = sum_m u_m (C^-1 x)_m, u ~ N(0, I), Sigma = C C^T.
GaussianIclModel inverse_weight_model(const Eigen::MatrixXd& sigma);

}  // namespace icl
