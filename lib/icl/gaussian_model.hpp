// A prompt distribution written in independent standard normals, for exact moments and Monte Carlo
// alike.
//
// Inputs x ~ N(0, Sigma) (x = L z, Sigma = L L^T), labels y = sum_m w_m g_m(x) + noise_sd * eps with
// any polynomial basis g_m (monomials, the orthonormal v_ij of sja Lemma 3, Hermite polynomials...),
// coefficients w ~ N(0, I) drawn once per prompt (or fixed), eps ~ N(0, 1) per example.
//
// Exact side: every quantity is a polynomial in the standard normals
//   (z_1..z_d, eps, w_1..w_m)     ("example" variables first, then "task" variables),
// so E[.] is exact Gaussian-moment arithmetic (lib/icl/gaussian_moments.hpp), and expectations over
// the examples only, with w held fixed, are partial expectations (`expect_over`).
// Monte Carlo side: `ModelPromptWorker` draws the same distribution and runs a real forward pass.
#pragma once
#include "icl/gaussian_moments.hpp"
#include "icl/layers.hpp"
#include "icl/prompt.hpp"
#include "icl/rng.hpp"
#include "icl/sparse_attention.hpp"
#include "icl/tasks.hpp"

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace icl {

using Poly = Polynomial<double>;

// A polynomial flattened for fast evaluation and fast moment sums.
struct FlatPoly {
  int nvars = 0;
  std::vector<double> coef;
  std::vector<std::uint8_t> exps;  // nterms x nvars
  FlatPoly() = default;
  explicit FlatPoly(const Poly& p);
  std::size_t size() const { return coef.size(); }
  double evaluate(const double* x) const;
};

// E[p(v) q(v)], v ~ N(0, I), without forming the product.
double expect_product(const FlatPoly& p, const FlatPoly& q);
// E over the variables [first, first + count) only; the result keeps the same variable count.
Poly expect_over(const Poly& p, int first, int count);
// p(x_1..x_k) as a polynomial in `total` variables, x_i placed at offset + i.
Poly lift(const Poly& p, int total, int offset = 0);

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

// The sparse single-layer moments (lib/icl/sparse_attention.hpp) of features u(x) (polynomials in the d
// input variables) under any GaussianIclModel: Lambda = E[u u^T], S = E_w[xi xi^T] with
// xi(w) = E_x[u y | w], K4 = E[y^2 u u^T], Ey2. Double precision throughout.
FeatureMoments model_feature_moments(const GaussianIclModel& m, const std::vector<Poly>& u);

// The features computed by one sja bilinear layer on the sja embedding (rows 1, x, zeros up to dbar):
// row r of the output, as a polynomial in x: base_r + (W0 base)_r (W1 base)_r.
std::vector<Poly> bilinear_features(const BilinearLayer& layer, int d, int dbar);
// The sja embedding rows themselves (1, x_1..x_d, zeros): the features when there is no FF layer.
std::vector<Poly> sja_embedding_features(int d, int dbar);
// The identity features x_1..x_d (acds / zfb embeddings).
std::vector<Poly> identity_features(int d);

// Monte Carlo through a real forward pass: draws w (always, so a fixed w sees the same stream), the
// inputs, the noise, builds the prompt with `shape`, runs `model`, returns (yhat + sign * y_q)^2.
// sign = +1: the sja/acds loss (yhat approximates -y); sign = -1: the zfb loss (yhat approximates y).
class ModelPromptWorker {
public:
  ModelPromptWorker(const Transformer& model, const GaussianIclModel& task, const PromptShape& shape,
                    std::uint64_t seed, std::uint64_t purpose, double sign = +1.0);
  double loss(std::uint64_t prompt_index);
  void operator()(std::uint64_t i, double* out) { out[0] = loss(i); }
  // Draws prompt i into X (d x (n+1)) and y (n+1, with the query label at n), without running the model.
  void draw(std::uint64_t prompt_index);
  const Eigen::MatrixXd& inputs() const { return X_; }
  const Eigen::RowVectorXd& labels() const { return y_; }
  const Eigen::VectorXd& coefficients() const { return w_; }  // the drawn w (used unless the task fixes w)
  Eigen::MatrixXd& prompt() { return Z_; }
  ForwardWorkspace& workspace() { return ws_; }

private:
  const Transformer* model_;
  const GaussianIclModel* task_;
  std::vector<FlatPoly> basis_;
  Eigen::MatrixXd chol_;
  bool isotropic_;
  PromptShape shape_;
  std::uint64_t seed_, purpose_;
  double sign_;
  Eigen::MatrixXd X_, Z_;
  Eigen::VectorXd w_;
  Eigen::RowVectorXd y_;
  std::vector<double> xcol_;
  ForwardWorkspace ws_;
};

// Standard test covariances (deterministic): 0 isotropic I; 1 diagonal, eigenvalues spread geometrically
// over [1/2, 2]; 2 the same spectrum rotated by a fixed Householder reflection; 3 ill-conditioned,
// eigenvalues geometric over [1/10, 10] (condition number 100), rotated.
Eigen::MatrixXd test_covariance(int d, int kind);
std::string covariance_name(int kind);

}  // namespace icl
